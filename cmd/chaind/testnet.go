package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/chaind/chaind/internal/pos"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/crypto/hd"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/p2p"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

func init() {
	register(command{"testnet", "write a network's genesis, keys and node configs: testnet --validators N [--full M] --out DIR", runTestnet})
}

// testnetSpec describes a network to write.
type testnetSpec struct {
	validators, full int
	chainID          uint64
	host             string             // where the nodes listen and find each other
	hostOf           func(i int) string // node i's own address, if they differ (nil: host)
	blockTime        time.Duration
	// sentry hides the validators behind the full nodes: a validator's
	// only peers are the full nodes and its peer exchange is off; the full
	// nodes never give out the validators' addresses.
	sentry bool
	// port gives node i's p2p, JSON-RPC HTTP and WebSocket ports.
	port func(i int) (p2pPort, httpPort, wsPort int)
	// apiPorts gives node i's explorer, REST and gRPC ports; nil puts them
	// right after its WebSocket port (JSON-RPC port + 2, 3 and 4, and the
	// CometBFT RPC at + 5), inside
	// the stride of ten ports each node of a one-host network gets.
	apiPorts func(i, httpPort int) (explorer, rest, grpc int)
}

// testnetNode is one node written by writeTestnet.
type testnetNode struct {
	Name      string
	Dir       string
	Config    string // the --config file that starts it
	Validator bool
	ID        p2p.ID
	P2P       string
	Host      string
	HTTP, WS  int
}

func runTestnet(args []string) int {
	fs := flag.NewFlagSet("chaind testnet", flag.ContinueOnError)
	validators := fs.Int("validators", 4, "number of validators (equal stake)")
	full := fs.Int("full", 0, "number of full nodes (no key; serve every API)")
	out := fs.String("out", "", "directory to write the network into (required)")
	chainID := fs.Uint64("chain-id", chain.TestChainID, "chain ID")
	host := fs.String("host", "127.0.0.1", "address the nodes listen on and dial each other at (one machine); edit the configs for several")
	p2pBase := fs.Int("p2p.base", 26656, "p2p port of node 0; node i uses base+i")
	httpBase := fs.Int("http.base", 8545, "JSON-RPC port of node 0; node i uses base+10i (WebSocket base+10i+1)")
	blockTime := fs.Duration("block-time", 2*time.Second, "minimum time between blocks")
	sentry := fs.Bool("sentry", false, "sentry-node layout: validators peer only with the full nodes, which keep their addresses private")
	if code, ok := parseFlags(fs, fs.Name()+" [flags]", args); !ok {
		return code
	}
	if code, ok := checkArgs(fs.Name(),
		check{*validators < 1 || *validators > 100, "--validators must be 1..100"},
		check{*full < 0 || *full > 100, "--full must be 0..100"},
		check{*out == "", "--out DIR is required"},
		check{*sentry && *full < 1, "--sentry needs at least one full node (--full)"},
		check{*chainID == 0, "--chain-id must not be 0"},
		check{*blockTime < 0, "--block-time must not be negative"},
		check{*p2pBase < 1 || *p2pBase+*validators+*full > 65535, "--p2p.base leaves no room for every node's port"},
		check{*httpBase < 1 || *httpBase+10*(*validators+*full) > 65535, "--http.base leaves no room for every node's port"},
		noArgs(fs),
	); !ok {
		return code
	}
	nodes, err := writeTestnet(*out, testnetSpec{validators: *validators, full: *full, chainID: *chainID, host: *host,
		blockTime: *blockTime, sentry: *sentry, port: func(i int) (int, int, int) { return *p2pBase + i, *httpBase + 10*i, *httpBase + 10*i + 1 }})
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaind testnet:", err)
		return 1
	}
	for _, n := range nodes {
		fmt.Printf("%-10s chaind --config %s   (p2p %s@%s, JSON-RPC http://%s:%d)\n", n.Name, n.Config, n.ID, n.P2P, *host, n.HTTP)
	}
	return 0
}

func newNodeKey() (*secp256k1.PrivateKey, error) {
	var b [32]byte
	for {
		if _, err := rand.Read(b[:]); err != nil {
			return nil, err
		}
		if k, err := crypto.ToPrivateKey(b[:]); err == nil {
			return k, nil
		}
	}
}

// writeTestnet writes into dir: genesis.json (the dev accounts funded, the
// validators bonded in its staking section), validators.json (the genesis
// set), and per node a directory with its key and config.json. Every node
// lists every other as a static peer, except in the sentry layout, where
// a validator lists the full nodes only.
func writeTestnet(dir string, spec testnetSpec) ([]testnetNode, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(dir, "genesis.json")); err == nil {
		return nil, fmt.Errorf("%s already holds a network; choose an empty directory", dir)
	}
	devKeys, err := hd.DevAccounts(hd.DevMnemonic, 10)
	if err != nil {
		return nil, err
	}
	var devAddrs []types.Address
	for _, k := range devKeys {
		devAddrs = append(devAddrs, types.Address(crypto.PrivkeyToAddress(k)))
	}
	genesis := chain.DevGenesis(spec.chainID, devAddrs, uint64(time.Now().Unix()))
	total := spec.validators + spec.full
	nodes := make([]testnetNode, total)
	keys := make([]*secp256k1.PrivateKey, total)
	var vf validatorSetFile
	for i := range total {
		if keys[i], err = newNodeKey(); err != nil {
			return nil, err
		}
		p2pPort, httpPort, wsPort := spec.port(i)
		n := &nodes[i]
		n.Validator = i < spec.validators
		n.Name = fmt.Sprintf("full%d", i-spec.validators)
		if n.Validator {
			n.Name = fmt.Sprintf("validator%d", i)
			vf.Validators = append(vf.Validators, struct {
				Address types.Address `json:"address"`
				Power   int64         `json:"power"`
			}{types.Address(crypto.PrivkeyToAddress(keys[i])), 1})
		}
		host := spec.host
		if spec.hostOf != nil {
			host = spec.hostOf(i)
		}
		n.Dir = filepath.Join(dir, n.Name)
		n.ID = p2p.IDOf(keys[i])
		n.P2P = net.JoinHostPort(host, strconv.Itoa(p2pPort))
		n.Host, n.HTTP, n.WS = host, httpPort, wsPort
	}
	// A proof-of-stake genesis: the validators bonded at genesis at their
	// p2p addresses; the nodes read every later set from the staking
	// state. validators.json keeps the genesis set for tools that check
	// certificates without a chain.
	var valKeys []*secp256k1.PrivateKey
	var valAddrs []string
	for i := range spec.validators {
		valKeys, valAddrs = append(valKeys, keys[i]), append(valAddrs, nodes[i].P2P)
	}
	if err := pos.SetTestStaking(genesis, valKeys, valAddrs); err != nil {
		return nil, err
	}
	if err := writeJSON(filepath.Join(dir, "genesis.json"), genesis); err != nil {
		return nil, err
	}
	setPath := filepath.Join(dir, "validators.json")
	if err := writeJSON(setPath, vf); err != nil {
		return nil, err
	}
	for i := range nodes {
		n := &nodes[i]
		if err := os.MkdirAll(n.Dir, 0o700); err != nil {
			return nil, err
		}
		keyFile := filepath.Join(n.Dir, "node_key")
		if n.Validator {
			keyFile = filepath.Join(n.Dir, "validator_key")
		}
		if err := os.WriteFile(keyFile, []byte(hex.EncodeToString(keys[i].Serialize())+"\n"), 0o600); err != nil {
			return nil, err
		}
		var peers []string
		for j, o := range nodes {
			if j != i && !(spec.sentry && n.Validator && o.Validator) {
				peers = append(peers, o.ID.String()+"@"+o.P2P)
			}
		}
		p2pPort, httpPort, wsPort := spec.port(i)
		cfg := map[string]any{
			"genesis": filepath.Join(dir, "genesis.json"), "datadir": filepath.Join(n.Dir, "data"),
			"host": n.Host, "http.port": httpPort, "ws.port": wsPort, "p2p.port": p2pPort,
			"p2p.peers":  strings.Join(peers, ","),
			"block-time": spec.blockTime.String(),
		}
		explorer, rest, grpc, comet := httpPort+2, httpPort+3, httpPort+4, httpPort+5
		if spec.apiPorts != nil {
			// The caller places the API ports; the CometBFT RPC takes any
			// free port then, so nodes on one host never share 26657.
			explorer, rest, grpc = spec.apiPorts(i, httpPort)
			comet = 0
		}
		cfg["explorer.port"], cfg["rest.port"], cfg["grpc.port"], cfg["cometrpc.port"] = explorer, rest, grpc, comet
		if n.Validator {
			cfg["validator-key"] = keyFile
		} else {
			cfg["p2p.key"] = keyFile
		}
		if spec.sentry && n.Validator {
			cfg["p2p.pex"] = false
		}
		if spec.sentry && !n.Validator {
			var private []string
			for _, o := range nodes[:spec.validators] {
				private = append(private, o.ID.String())
			}
			cfg["p2p.private-peers"] = strings.Join(private, ",")
		}
		n.Config = filepath.Join(n.Dir, "config.json")
		if err := writeJSON(n.Config, cfg); err != nil {
			return nil, err
		}
	}
	return nodes, nil
}

func writeJSON(path string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return errors.New("writing " + path + ": " + err.Error())
	}
	return nil
}
