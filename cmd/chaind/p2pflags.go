package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/consensus/cycle"
	"github.com/chaind/chaind/internal/node"
	"github.com/chaind/chaind/internal/pos"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/p2p"
)

// p2pFlags are the flags that put a node on a network of processes.
type p2pFlags struct {
	peers        string
	bootnodes    string
	maxPeers     int
	pex          bool
	privatePeers string
	key          string
	validatorSet string
	external     string
}

func (f *p2pFlags) define(fs *flag.FlagSet) {
	fs.StringVar(&f.peers, "p2p.peers", "", "comma-separated static peers, ID@host:port or host:port, kept connected")
	fs.StringVar(&f.bootnodes, "p2p.bootnodes", "", "comma-separated peers dialed to discover others")
	fs.IntVar(&f.maxPeers, "p2p.maxpeers", 50, "most peers connected at once")
	fs.BoolVar(&f.pex, "p2p.pex", true, "peer exchange: ask peers for addresses and dial them; false keeps the node to --p2p.peers (a validator behind sentry nodes)")
	fs.StringVar(&f.privatePeers, "p2p.private-peers", "", "comma-separated node IDs whose addresses are never given out in peer exchange (a sentry node's validators)")
	fs.StringVar(&f.key, "p2p.key", "", "hex node key (or a file holding it); default: the validator key, or a fresh key")
	fs.StringVar(&f.external, "p2p.external", "", "host:port other machines reach this node's p2p port at (NAT, or --host 0.0.0.0): what a full or RPC node announces in chain_getNodeList (default: its listen address, none if that is every interface)")
	fs.StringVar(&f.validatorSet, "validator-set", "", "JSON file of the validator set whose certificates the node checks (written by chaind testnet)")
}

func (f *p2pFlags) enabled() bool { return f.peers != "" || f.bootnodes != "" || f.validatorSet != "" }

// apply configures cfg's p2p network, or, without one, says in the log
// that the node is on its own.
func (f *p2pFlags) apply(cfg *node.Config, rf *runFlags, log *slog.Logger) error {
	if !f.enabled() {
		if !rf.dev && cfg.Validator == nil {
			// Bare "chaind": say what is running and what was likely meant.
			log.Warn("no validator key (--validator-key) and no p2p peers (--p2p.peers, --p2p.bootnodes, --validator-set): "+
				"this node serves its chain's genesis on its own, makes no blocks and will see none; "+
				"for a local development chain with funded accounts run: chaind --dev",
				"chainId", cfg.Genesis.Config.ChainID, "genesis", genesisSource(rf))
		}
		return nil
	}
	if rf.dev {
		return errors.New("--dev is a network of one; it takes no p2p flags")
	}
	if rf.p2pPort < -1 || rf.p2pPort > 65535 {
		return errors.New("--p2p.port must be -1..65535")
	}
	if f.maxPeers < 1 {
		return errors.New("--p2p.maxpeers must be at least 1")
	}
	if !f.pex && f.bootnodes != "" {
		return errors.New("--p2p.bootnodes needs peer exchange; with --p2p.pex=false list the peers in --p2p.peers")
	}
	private, err := parseNodeIDs(f.privatePeers)
	if err != nil {
		return fmt.Errorf("--p2p.private-peers: %w", err)
	}
	// The sets whose certificates the node checks: a file's fixed set, or,
	// on a proof-of-stake genesis, none here (the staking state holds them).
	var vals consensus.ValidatorSource
	switch {
	case f.validatorSet != "":
		if vals, err = loadValidatorSet(f.validatorSet); err != nil {
			return err
		}
	case cfg.Genesis == nil || !pos.ForGenesis(cfg.Genesis).ProofOfStake():
		return errors.New("a node on a p2p network needs --validator-set FILE to check block certificates (or a genesis with a staking section)")
	}
	pc := &node.P2PConfig{MaxPeers: f.maxPeers, NoPeerExchange: !f.pex, PrivatePeers: private}
	if pc.StaticPeers, err = p2p.ParsePeerAddrs(f.peers); err != nil {
		return fmt.Errorf("--p2p.peers: %w", err)
	}
	if pc.Bootnodes, err = p2p.ParsePeerAddrs(f.bootnodes); err != nil {
		return fmt.Errorf("--p2p.bootnodes: %w", err)
	}
	if f.key != "" {
		if pc.Key, err = parseKey(f.key); err != nil {
			return fmt.Errorf("--p2p.key: %w", err)
		}
	}
	if rf.p2pPort >= 0 {
		pc.ListenAddr = net.JoinHostPort(rf.host, strconv.Itoa(rf.p2pPort))
	}
	if f.external != "" {
		if err := checkExternalAddr(f.external); err != nil {
			return fmt.Errorf("--p2p.external: %w", err)
		}
		if rf.p2pPort < 0 {
			return errors.New("--p2p.external needs a p2p port (the node accepts no connections with --p2p.port -1)")
		}
		pc.ExternalAddr = f.external
	}
	cfg.P2P, cfg.Validators = pc, vals
	return nil
}

// checkExternalAddr accepts a host:port peers can dial: a host name or a
// specific IP (not every interface) and a port 1..65535.
func checkExternalAddr(s string) error {
	host, port, err := net.SplitHostPort(s)
	if err != nil {
		return fmt.Errorf("%q is not host:port", s)
	}
	if host == "" {
		return fmt.Errorf("%q names no host", s)
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		return fmt.Errorf("%q is every interface, which no peer can dial", s)
	}
	if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
		return fmt.Errorf("%q: port must be 1..65535", s)
	}
	return nil
}

// validatorSetFile is the JSON of a validator set.
type validatorSetFile struct {
	Validators []struct {
		Address types.Address `json:"address"`
		Power   int64         `json:"power"`
	} `json:"validators"`
}

func loadValidatorSet(path string) (consensus.ValidatorSource, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var vf validatorSetFile
	if err := json.Unmarshal(data, &vf); err != nil {
		return nil, fmt.Errorf("validator set %s: %v", path, err)
	}
	var members []consensus.Validator
	for _, v := range vf.Validators {
		members = append(members, consensus.Validator{Address: v.Address, Power: v.Power})
	}
	set, err := consensus.NewValidatorSet(members)
	if err != nil {
		return nil, fmt.Errorf("validator set %s: %v", path, err)
	}
	return cycle.NewSchedule(set), nil
}

// genesisSource names where a node's genesis came from, for the log.
func genesisSource(rf *runFlags) string {
	switch {
	case rf.genesis != "":
		return rf.genesis
	case rf.datadir != "":
		if _, ok := rf.storedGenesis(); ok {
			return "stored in " + rf.datadir
		}
	}
	return "--network " + rf.network + " preset"
}

// parseNodeIDs parses a comma-separated list of node IDs (40 hex digits
// each, as ID@host:port peer addresses begin), ignoring empty items.
func parseNodeIDs(s string) ([]p2p.ID, error) {
	var out []p2p.ID
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item == "" {
			continue
		}
		id, err := p2p.ParseID(item)
		if err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, nil
}
