package node

import (
	"fmt"
	"github.com/chaind/chaind/internal/pos"
	"log/slog"
	"sync"
	"time"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/crypto/hd"
	"github.com/chaind/chaind/internal/node/bft"
	"github.com/chaind/chaind/internal/staking"
	"github.com/chaind/chaind/internal/types"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// DevnetConfig configures StartDevnet.
type DevnetConfig struct {
	Validators int           // equal stake each, bonded at genesis
	BlockTime  time.Duration // minimum time between blocks
	Host       string
	HTTPPort   int // JSON-RPC port of the first validator's node (-1 off, 0 any free port)
	// Explorer serves the block explorer of the first validator's node on
	// ExplorerPort (0 any free port).
	Explorer      bool
	ExplorerPort  int
	ChainID       uint64
	ClientVersion string
	Log           *slog.Logger
	// Params, when set, replaces the dev network parameters (DevParams):
	// a test that waits out a cooldown or a voting period in real time
	// shortens it.
	Params *staking.Params
}

// Devnet is N validators in one process, each with its own node (chain,
// pool, consensus; only the first serves JSON-RPC), deciding blocks over
// the in-process transport. A --dev node is the same with N = 1 and no
// devnet around it.
type Devnet struct {
	Keys  []*secp256k1.PrivateKey // the funded dev accounts
	Nodes []*Node

	net    *bft.MemNetwork
	addrs  []types.Address
	cancel func()
	wg     sync.WaitGroup
}

// DevValidatorKey derives validator i's key of a devnet: fixed, so a devnet
// restarted with the same N has the same validator set.
func DevValidatorKey(i int) (*secp256k1.PrivateKey, error) {
	k := crypto.Keccak256([]byte("chaind devnet validator"), []byte{byte(i >> 8), byte(i)})
	return crypto.ToPrivateKey(k[:])
}

// StartDevnet starts the validators' nodes.
func StartDevnet(cfg DevnetConfig) (*Devnet, error) {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	keys, err := hd.DevAccounts(hd.DevMnemonic, 10)
	if err != nil {
		return nil, fmt.Errorf("dev accounts: %w", err)
	}
	dn := &Devnet{Keys: keys, net: bft.NewMemNetwork(cfg.ChainID), cancel: func() {}}
	var devAddrs []types.Address
	for _, k := range keys {
		devAddrs = append(devAddrs, types.Address(crypto.PrivkeyToAddress(k)))
	}
	genesis := chain.DevGenesis(cfg.ChainID, devAddrs, uint64(time.Now().Unix()))
	var valKeys []*secp256k1.PrivateKey
	for i := range cfg.Validators {
		k, err := DevValidatorKey(i)
		if err != nil {
			return nil, err
		}
		valKeys = append(valKeys, k)
		dn.addrs = append(dn.addrs, types.Address(crypto.PrivkeyToAddress(k)))
	}
	host := cfg.Host
	if host == "" {
		host = "127.0.0.1"
	}
	if err := pos.SetDevStaking(genesis, valKeys, host); err != nil {
		return nil, err
	}
	if cfg.Params != nil {
		if err := pos.SetStakingParams(genesis, *cfg.Params); err != nil {
			return nil, err
		}
	}
	for i, k := range valKeys {
		port := -1
		if i == 0 {
			port = cfg.HTTPPort
		}
		n, err := New(Config{Genesis: genesis, Host: cfg.Host, HTTPPort: port, WSPort: -1,
			Explorer: i == 0 && cfg.Explorer, ExplorerPort: cfg.ExplorerPort,
			Validator: k, BlockTime: cfg.BlockTime, Transport: dn.net.Join(dn.addrs[i]),
			Accounts: keys, ClientVersion: cfg.ClientVersion, Log: cfg.Log.With("validator", i)})
		if err != nil {
			dn.Close()
			return nil, err
		}
		dn.Nodes = append(dn.Nodes, n)
		if err := n.Start(); err != nil {
			dn.Close()
			return nil, err
		}
	}
	dn.relayTransactions()
	return dn, nil
}

// relayTransactions copies every transaction the first node's pool accepts
// (it is the one serving JSON-RPC) into the other validators' pools, so
// whoever proposes next includes it: a stand-in for transaction gossip.
func (dn *Devnet) relayTransactions() {
	txs, cancel := dn.Nodes[0].Pool.Subscribe(1024)
	dn.cancel = cancel
	dn.wg.Add(1)
	go func() {
		defer dn.wg.Done()
		for tx := range txs {
			sc, _ := dn.Nodes[0].Pool.Sidecar(tx.Hash()) // a blob transaction travels with its blobs
			for _, n := range dn.Nodes[1:] {
				n.Pool.AddPooled(tx, sc) // a pool that already has it or rejects it is fine
			}
		}
	}()
}

// Stop crashes validator i: it leaves the network and its consensus
// stops; its node goes on serving what it has.
func (dn *Devnet) Stop(i int) {
	dn.net.Leave(dn.addrs[i])
	dn.Nodes[i].haltConsensus()
}

// Close stops every node.
func (dn *Devnet) Close() {
	dn.cancel()
	dn.wg.Wait()
	for _, n := range dn.Nodes {
		n.Close()
	}
}
