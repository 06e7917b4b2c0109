package main

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"github.com/chaind/chaind/internal/version"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/chaind/chaind/grpcsrv"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/fdlimit"
	"github.com/chaind/chaind/internal/node"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// runFlags are the flags of the node itself; every flag can also be set as
// CHAIND_<FLAG> or in a JSON --config file (applyEnvAndConfig).
type runFlags struct {
	dev          bool
	network      string
	genesis      string
	datadir      string
	cacheMiB     int
	host         string
	httpPort     int
	wsPort       int
	restPort     int
	grpcPort     int
	cometPort    int
	grpcServer   string
	explorerPort int
	p2pPort      int
	blockTime    time.Duration
	public       bool
	unprotected  bool
	archive      bool
	metrics      bool
	chainID      uint64
	validatorKey string
	gasLimit     uint64
	logLevel     string
	logFormat    string
	config       string
	cors         string
	vhosts       string
	httpAPI      string
	wsAPI        string
	pprof        string
	gcHeadroom   uint64
	gcMemLimit   int
	procs        int
	historyKeep  string
	stateHistory uint64
	ops          opsFlags
	devf         devFlags
	fork         forkFlags

	// stored is the data directory's genesis, read once per start
	// (storedGenesis): several checks ask.
	stored     *chain.Genesis
	storedRead bool
	// storeCfg, once set, is the node's config: storedGenesis then opens
	// the store as the node does and keeps it (kv) for the node, so a
	// start opens it once.
	storeCfg *node.Config
	kv       *store.DB
}

// storedGenesis is the genesis stored in --datadir (see storedGenesis),
// read on the first call.
func (f *runFlags) storedGenesis() (*chain.Genesis, bool) {
	if f.storedRead {
		return f.stored, f.stored != nil
	}
	f.storedRead = true
	if f.storeCfg != nil && f.datadir != "" && store.Exists(f.datadir) {
		if kv, err := store.OpenWith(f.datadir, f.storeCfg.StoreOptions()); err == nil {
			f.kv = kv
			f.stored, _, _ = chain.StoredGenesis(kv)
			return f.stored, f.stored != nil
		}
		// The node's own open says why, with the rest of its errors.
	}
	f.stored, _ = storedGenesis(f.datadir)
	return f.stored, f.stored != nil
}

func (f *runFlags) define(fs *flag.FlagSet) {
	fs.BoolVar(&f.dev, "dev", false, "run a throwaway single-validator network with funded dev accounts")
	fs.StringVar(&f.network, "network", "main", "network preset: main (chain ID 8118) or test (8119)")
	fs.StringVar(&f.genesis, "genesis", "", "go-ethereum-style genesis.json (overrides --network)")
	fs.StringVar(&f.datadir, "datadir", "", "data directory (default: in memory)")
	fs.IntVar(&f.cacheMiB, "cache", 64, "MiB of the store's block cache and the chain's trie node cache (half of it): with the memtables (16 MiB), the bound on the state storage's memory")
	fs.StringVar(&f.host, "host", "127.0.0.1", "address every listener binds to")
	fs.IntVar(&f.httpPort, "http.port", 8545, "JSON-RPC HTTP and WebSocket port (-1 off, 0 any free port)")
	fs.IntVar(&f.wsPort, "ws.port", 8546, "JSON-RPC WebSocket-only port (-1 off, 0 any free port)")
	fs.IntVar(&f.restPort, "rest.port", 1317, "Cosmos-style REST query port (-1 off, 0 any free port)")
	fs.IntVar(&f.cometPort, "cometrpc.port", 26657, "read-only CometBFT RPC port for Cosmos clients (cosmjs), JSON-RPC and URI form (-1 off, 0 any free port)")
	fs.IntVar(&f.grpcPort, "grpc.port", 9090, "Cosmos-style gRPC query port, cleartext HTTP/2 (-1 off, 0 any free port)")
	fs.StringVar(&f.grpcServer, "grpc.server", "", "HTTP/2 server of the gRPC port: h2 (chaind's own) or net/http (default: the built-in choice)")
	fs.IntVar(&f.explorerPort, "explorer.port", 8080, "block explorer web page and /api/ port (-1 off, 0 any free port)")
	fs.IntVar(&f.p2pPort, "p2p.port", 26656, "p2p port of --p2p.peers networks (-1: accept no connections)")
	fs.DurationVar(&f.blockTime, "block-time", 2*time.Second, "minimum time between blocks of a validator; 0 seals as soon as transactions are pending, and nothing while idle")
	fs.BoolVar(&f.public, "public", false, "apply public rate limits (10/s, 600/min, 5 connections per client)")
	fs.BoolVar(&f.unprotected, "rpc.allow-unprotected-txs", false, "accept transactions without EIP-155 replay protection over RPC (never with --public)")
	fs.BoolVar(&f.archive, "archive", false, "keep the state of every block (default: the last 128 blocks' states)")
	fs.Uint64Var(&f.stateHistory, "state.history", 128, "recent blocks whose state stays readable without --archive; older trie nodes are pruned in the background as blocks leave that window")
	fs.StringVar(&f.historyKeep, "history.keep", "all", "blocks whose transactions stay indexed (lookups by hash, address lists, explorer listings), counted back from the head, or all; older ones are answered as unknown")
	fs.BoolVar(&f.metrics, "metrics", false, "serve Prometheus metrics on /metrics of --metrics.port")
	fs.Uint64Var(&f.chainID, "chain-id", 0, "chain ID of a --dev network (default 8118; with --fork-url the upstream's)")
	fs.StringVar(&f.validatorKey, "validator-key", "", "hex private key (or a file holding it) that signs blocks")
	fs.Uint64Var(&f.gasLimit, "gas-limit", 0, "block gas limit a validator aims for (default: keep the genesis limit)")
	fs.StringVar(&f.logLevel, "log-level", "info", "debug, info, warn or error")
	fs.StringVar(&f.logFormat, "log.format", "text", "log line format: text (key=value) or json (one object per line)")
	fs.StringVar(&f.config, "config", "", "JSON file of flag values, e.g. {\"http.port\": 8545}")
	fs.StringVar(&f.cors, "http.corsdomain", "", "comma-separated origins allowed to call the JSON-RPC port (* for any; default * with --dev, else none)")
	fs.StringVar(&f.pprof, "pprof", "", "serve Go's runtime profiles (net/http/pprof) on this address, e.g. 127.0.0.1:6061")
	fs.IntVar(&f.procs, "procs", 0, "goroutines running at once (GOMAXPROCS); 0: 8 on machines with 4 or fewer CPUs, else one per CPU")
	fs.Uint64Var(&f.gcHeadroom, "gc.headroom", defaultGCHeadroomMiB, "MiB the heap may grow between garbage collections while the live heap is small (0: Go's default; GOGC overrides)")
	fs.IntVar(&f.gcMemLimit, "gc.memlimit", -1, "soft limit (MiB) on the Go memory of the node, which the garbage collector works to keep (-1: --cache + 400; 0: none; GOMEMLIMIT overrides)")
	fs.StringVar(&f.vhosts, "http.vhosts", "", "comma-separated Host header names the JSON-RPC port accepts (default: any)")
	fs.StringVar(&f.httpAPI, "http.api", "", "comma-separated JSON-RPC namespaces served on --http.port: eth, net, web3, debug, txpool, testing, chain, personal (default: all; with --public all but debug, testing, txpool and personal)")
	fs.StringVar(&f.wsAPI, "ws.api", "", "comma-separated JSON-RPC namespaces served on --ws.port (default as --http.api)")
	f.ops.define(fs)
	f.devf.define(fs)
	f.fork.define(fs)
}

func init() {
	register(command{"run", "run the node (the default command; see chaind --help)", runNode})
}

// applyEnvAndConfig fills flags not set on the command line from
// CHAIND_<FLAG> environment variables, then from the config file.
func applyEnvAndConfig(fs *flag.FlagSet, configPath string) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var fromFile map[string]any
	if configPath != "" {
		data, err := os.ReadFile(configPath)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(data, &fromFile); err != nil {
			var se *json.SyntaxError
			if errors.As(err, &se) {
				line := 1 + strings.Count(string(data[:min(int(se.Offset), len(data))]), "\n")
				return fmt.Errorf("config file %s, line %d: %v (want a JSON object of flag names, e.g. {\"http.port\": 8545})", configPath, line, err)
			}
			return fmt.Errorf("config file %s: %v (want a JSON object of flag names, e.g. {\"http.port\": 8545})", configPath, err)
		}
		for k := range fromFile {
			if fs.Lookup(k) == nil {
				return fmt.Errorf("config file %s: unknown flag %q", configPath, k)
			}
		}
	}
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if set[f.Name] || err != nil {
			return
		}
		env := "CHAIND_" + strings.ToUpper(strings.NewReplacer(".", "_", "-", "_").Replace(f.Name))
		if v, ok := os.LookupEnv(env); ok {
			if e := fs.Set(f.Name, v); e != nil {
				err = fmt.Errorf("environment %s=%q: want %s", env, v, flagForm(f))
			}
			return
		}
		if v, ok := fromFile[f.Name]; ok {
			s := fmt.Sprint(v)
			if fv, isNum := v.(float64); isNum && fv == float64(int64(fv)) {
				s = fmt.Sprint(int64(fv))
			}
			if e := fs.Set(f.Name, s); e != nil {
				err = fmt.Errorf("config file %s: %q is %s, want %s", configPath, f.Name, string(mustJSON(v)), flagForm(f))
			}
		}
	})
	return err
}

// flagForm says what a flag's value must look like, for error messages.
func flagForm(f *flag.Flag) string {
	switch fmt.Sprintf("%T", f.Value) {
	case "*flag.durationValue":
		return `a duration such as "5s" or "500ms"`
	case "*flag.intValue", "*flag.int64Value":
		return "a whole number"
	case "*flag.uintValue", "*flag.uint64Value":
		return "a non-negative whole number"
	case "*flag.boolValue":
		return "true or false"
	case "*flag.float64Value":
		return "a number"
	}
	return fmt.Sprintf("a value like the default %q", f.DefValue)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return []byte(fmt.Sprint(v))
	}
	return b
}

// newLogger builds the logger of a command from --log-level and
// --log.format and makes it the process default, so that every line the
// process logs has the one format.
func newLogger(level, format string) (*slog.Logger, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(level)); err != nil {
		return nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", level)
	}
	opts := &slog.HandlerOptions{Level: l}
	var h slog.Handler
	switch format {
	case "text", "":
		h = slog.NewTextHandler(os.Stderr, opts)
	case "json":
		h = slog.NewJSONHandler(os.Stderr, opts)
	default:
		return nil, fmt.Errorf("--log.format %q: want text or json", format)
	}
	log := slog.New(h)
	slog.SetDefault(log)
	return log, nil
}

// clientVersion is what `chaind version` prints and web3_clientVersion
// answers; the version in it is internal/version's, which the network
// account's versions and upgrade plans are compared with.
func clientVersion() string {
	return fmt.Sprintf("chaind/v%s/%s-%s/%s", version.Binary, runtime.GOOS, runtime.GOARCH, runtime.Version())
}

// loadGenesis picks the genesis: a file, the dev network or a preset.
func (f *runFlags) loadGenesis(dev *devSetup) (*chain.Genesis, error) {
	switch {
	case f.genesis != "":
		return chain.LoadGenesis(f.genesis)
	case f.dev:
		return dev.Genesis, nil
	case f.network == "main":
		return chain.MainGenesis(), nil
	case f.network == "test":
		return chain.TestGenesis(), nil
	}
	return nil, fmt.Errorf("unknown --network %q (main or test)", f.network)
}

func parseKey(s string) (*secp256k1.PrivateKey, error) {
	if data, err := os.ReadFile(s); err == nil {
		s = strings.TrimSpace(string(data))
	}
	b, err := hex.DecodeString(strings.TrimPrefix(s, "0x"))
	if err != nil {
		return nil, errors.New("validator key is neither a file nor 64 hex digits")
	}
	return crypto.ToPrivateKey(b)
}

// nodeFlags is the flag set of a node, in one place for runNode and for
// chaind help, which lists it.
func nodeFlags() (*flag.FlagSet, *runFlags, *p2pFlags) {
	fs := flag.NewFlagSet("chaind", flag.ContinueOnError)
	var f runFlags
	f.define(fs)
	var pf p2pFlags
	pf.define(fs)
	return fs, &f, &pf
}

func runNode(args []string) int {
	fs, f, pf := nodeFlags()
	if code, ok := parseFlags(fs, "chaind [flags]          run a node (chaind help lists the other commands)", args); !ok {
		return code
	}
	if fs.NArg() > 0 {
		return usageError("chaind", fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
	}
	if err := applyEnvAndConfig(fs, f.config); err != nil {
		fmt.Fprintln(os.Stderr, "chaind:", err)
		return 2
	}
	// Checked after the environment and the config file had their say.
	if code, ok := checkArgs(fs.Name(),
		check{!portOK(f.httpPort), "--http.port must be -1..65535"},
		check{!portOK(f.wsPort), "--ws.port must be -1..65535"},
		check{!portOK(f.explorerPort), "--explorer.port must be -1..65535"},
		check{!portOK(f.restPort), "--rest.port must be -1..65535"},
		check{!portOK(f.grpcPort), "--grpc.port must be -1..65535"},
		check{!portOK(f.cometPort), "--cometrpc.port must be -1..65535"},
		check{f.grpcServer != "" && grpcsrv.Servers[f.grpcServer] == nil, "--grpc.server must be h2 or net/http"},
		check{f.blockTime < 0, "--block-time must not be negative"},
		check{f.gasLimit != 0 && f.gasLimit < 5000, "--gas-limit must be 0 (keep the genesis limit) or at least 5000"},
		check{f.procs < 0, "--procs must not be negative"},
		check{f.chainID != 0 && !f.dev, "--chain-id applies to --dev only (a --genesis file or --network sets the chain ID)"},
		check{f.unprotected && f.public, "--rpc.allow-unprotected-txs is never allowed with --public"},
	); !ok {
		return code
	}
	if f.dev {
		if code, ok := checkArgs(fs.Name(), f.devf.checks()...); !ok {
			return code
		}
	} else if name, ok := f.devf.given(fs); ok {
		return usageError(fs.Name(), "--"+name+" applies to --dev only")
	}
	log, err := newLogger(f.logLevel, f.logFormat)
	if err != nil {
		return usageError(fs.Name(), err.Error())
	}
	historyKeep, err := parseHistoryKeep(f.historyKeep)
	if err != nil {
		return usageError(fs.Name(), err.Error())
	}
	cfg := node.Config{
		HistoryKeep: historyKeep, StateHistory: f.stateHistory,
		DataDir: f.datadir, CacheMiB: f.cacheMiB, Host: f.host, HTTPPort: f.httpPort, WSPort: f.wsPort,
		Explorer: f.explorerPort >= 0, ExplorerPort: f.explorerPort,
		RESTPort: &f.restPort, GRPCPort: &f.grpcPort, CometRPCPort: &f.cometPort, GRPCServer: f.grpcServer,
		BlockTime: f.blockTime, GasLimit: f.gasLimit, Public: f.public, Archive: f.archive,
		AllowUnprotectedTxs: f.unprotected,
		ClientVersion:       clientVersion(), Log: log,
	}
	if f.cors != "" {
		cfg.CORS = strings.Split(f.cors, ",")
	} else if f.dev && !flagSet(fs, "http.corsdomain") {
		// A dApp on localhost:3000 calls a dev node from the browser.
		cfg.CORS = []string{"*"}
	}
	if f.vhosts != "" {
		cfg.VHosts = strings.Split(f.vhosts, ",")
	}
	cfg.HTTPAPIs, cfg.WSAPIs = apiList(f.httpAPI), apiList(f.wsAPI)
	cfg.Ops.Metrics = f.metrics
	if err := f.ops.apply(&cfg.Ops); err != nil {
		fmt.Fprintln(os.Stderr, "chaind:", err)
		return 2
	}
	f.storeCfg = &cfg
	var dev *devSetup
	if f.dev {
		if dev, err = buildDev(f.devf, f.chainID); err != nil {
			fmt.Fprintln(os.Stderr, "chaind:", err)
			return 1
		}
		cfg.Validator, cfg.Accounts = dev.Validator, dev.Keys
		cfg.DevTools = !f.public // the test helpers (evm_*, hardhat_*, anvil_*)
		cfg.DevNoMining, cfg.DevAutoImpersonate = f.devf.noMining, f.devf.autoImpersonate
		cfg.Dev = f.devf.options()
	}
	if f.validatorKey != "" {
		k, err := parseKey(f.validatorKey)
		if err != nil {
			fmt.Fprintln(os.Stderr, "chaind:", err)
			return 2
		}
		cfg.Validator = k
	}
	// A data directory remembers its genesis: without --genesis, a node
	// restarted on it continues that chain (a --dev chain included).
	// Flags that choose a chain must agree with the one it holds.
	if stored, ok := f.storedGenesis(); ok {
		if err := f.checkDatadir(fs, stored, dev); err != nil {
			return usageError(fs.Name(), err.Error())
		}
		cfg.Genesis = stored
		if dev != nil && stored.Fork == nil {
			// The same chain (checked above), with the dev accounts'
			// allocation, which the stored genesis leaves in the state
			// and the test helpers seed their key record from.
			cfg.Genesis = dev.Genesis
		}
	} else if cfg.Genesis, err = f.loadGenesis(dev); err != nil {
		fmt.Fprintln(os.Stderr, "chaind:", err)
		return 2
	}
	if err := f.fork.apply(&cfg, f); err != nil {
		fmt.Fprintln(os.Stderr, "chaind:", err)
		return 2
	}
	if err := pf.apply(&cfg, f, log); err != nil {
		fmt.Fprintln(os.Stderr, "chaind:", err)
		return 2
	}
	if f.pprof != "" {
		ln, err := net.Listen("tcp", f.pprof)
		if err != nil {
			fmt.Fprintln(os.Stderr, "chaind: --pprof:", err)
			return 2
		}
		log.Info("listening", "kind", "pprof", "addr", ln.Addr().String())
		// The block and mutex profiles sample only when asked to: with a
		// profile listener, where the node waits is as wanted as where it
		// computes (one blocking event in 10 µs of blocking, one mutex
		// contention in 10).
		runtime.SetBlockProfileRate(10_000)
		runtime.SetMutexProfileFraction(10)
		mux := http.NewServeMux()
		mux.HandleFunc("/debug/pprof/", pprof.Index)
		mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
		mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
		go http.Serve(ln, mux)
	}
	setProcs(f.procs)
	// Lift the soft open-file limit to the hard one before any listener
	// opens: the listeners' connection caps are sized from it.
	if limit, err := fdlimit.Raise(); err != nil {
		log.Warn("could not raise the open-file limit", "err", err)
	} else {
		log.Debug("open-file limit", "limit", limit)
	}
	startGCFloor(f.gcHeadroom << 20)
	if limit := startMemLimit(f.gcMemLimit, f.cacheMiB); limit > 0 {
		log.Debug("soft memory limit", "MiB", limit>>20)
	}
	cfg.Store = f.kv
	n, err := node.New(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaind:", err)
		return 1
	}
	if err := n.Start(); err != nil {
		n.Close()
		fmt.Fprintln(os.Stderr, "chaind:", err)
		return 1
	}
	head := n.Chain.Head()
	// The chain ID of the next block: a dev chain's anvil_setChainId moves
	// it, and a restart on its data directory keeps it.
	chainID := n.Chain.Config.ChainIDAt(head.Number() + 1)
	log.Info("chain", "chainId", chainID, "head", head.Number(), "hash", head.Hash(), "producing", cfg.Validator != nil)
	if f.dev {
		printDevAccounts(os.Stdout, dev.Keys, dev.Balance, f.devf.mnemonic, f.devf.derivationPath, chainID)
		if f.devf.configOut != "" {
			gen, err := n.Chain.BlockByNumber(0)
			if err == nil {
				price, _ := parseWei(f.devf.gasPrice) // checked with the flags
				err = writeConfigOut(f.devf.configOut, dev.Keys, f.devf.mnemonic, f.devf.derivationPath, gen, price)
			}
			if err != nil {
				n.Close()
				fmt.Fprintln(os.Stderr, "chaind: --config-out:", err)
				return 1
			}
		}
		log.Info("dev block producer (its own key, none of the accounts)", "address", types.Address(crypto.PrivkeyToAddress(dev.Validator)).Hex())
		n.StartConsole()
		if d := n.DevTools(); d != nil && f.devf.state != "" {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			err := d.LoadStateFile(ctx, f.devf.state)
			cancel()
			if err != nil {
				n.Close()
				fmt.Fprintln(os.Stderr, "chaind: --state:", err)
				return 1
			}
		}
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	code := 0
	select {
	case <-sig:
		log.Info("shutting down")
	case <-n.Failed():
		// Crash-only: a supervisor restarts the process from disk, which
		// holds every committed block.
		log.Error("exiting: the node failed and must be restarted", "err", n.Failure())
		code = exitFailed
	}
	if d := n.DevTools(); d != nil && f.devf.state != "" {
		if err := d.WriteStateFile(f.devf.state); err != nil {
			log.Error("--state: writing the state", "file", f.devf.state, "err", err)
			code = 1
		} else {
			log.Info("state written", "file", f.devf.state)
		}
	}
	done := make(chan error, 1)
	go func() { done <- n.Close() }()
	select {
	case err := <-done:
		if err != nil {
			log.Error("close", "err", err)
			return 1
		}
	case <-time.After(5 * time.Second):
		log.Error("shutdown took longer than 5s")
		return 1
	}
	return code
}

// exitFailed is the exit status of a node that failed permanently
// (Node.Failed), so that a supervisor tells it from a clean stop.
const exitFailed = 3

// apiList splits a --http.api or --ws.api value; empty means the default
// (nil), and blanks around names are forgiven. The node rejects unknown
// namespaces.
func apiList(s string) []string {
	var out []string
	for _, ns := range strings.Split(s, ",") {
		if ns = strings.TrimSpace(ns); ns != "" {
			out = append(out, ns)
		}
	}
	return out
}

// parseHistoryKeep reads --history.keep: a number of blocks, or all (0).
func parseHistoryKeep(v string) (uint64, error) {
	if v == "" || v == "all" {
		return 0, nil
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("--history.keep %q: want a number of blocks above 0, or all", v)
	}
	return n, nil
}
