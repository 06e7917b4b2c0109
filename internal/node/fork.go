package node

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/node/fork"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
)

// ForkConfig makes a development node a fork of another chain (its state
// read lazily from the upstream's JSON-RPC endpoint, as anvil does) and
// lets it be reset.
type ForkConfig struct {
	URL     string  // upstream JSON-RPC endpoint; empty: no fork
	Block   *uint64 // fork block; nil: the upstream's latest block at start
	ChainID uint64  // chain ID of a new fork; 0: the upstream's
	// Reset serves anvil_reset and hardhat_reset (development nodes only).
	Reset bool
}

// forkState is a node's fork bookkeeping.
type forkState struct {
	mu   sync.Mutex                  // serialises resets
	base chain.Genesis               // the genesis before any fork was applied to it
	up   atomic.Pointer[fork.Client] // nil: the chain is no fork
}

// prepareFork turns cfg.Genesis into a fork genesis when cfg.Fork asks for
// one, or reconnects a stored fork genesis to its upstream.
func prepareFork(ctx context.Context, cfg *Config) (*forkState, error) {
	g := cfg.Genesis
	fs := &forkState{base: *g}
	fs.base.Alloc = maps.Clone(g.Alloc) // a fork genesis rewrites its own
	switch {
	case g.Fork != nil:
		url := g.Fork.URL
		if cfg.Fork.URL != "" {
			url = cfg.Fork.URL
		}
		if b := cfg.Fork.Block; b != nil && *b != uint64(g.Fork.Number) {
			return nil, fmt.Errorf("the data directory holds a fork of block %d; use another --datadir to fork block %d", g.Fork.Number, *b)
		}
		// Not dialled: what was fetched before is in the store, and
		// proofs of the rest are checked against the stored state root.
		up := fork.Pinned(url, fork.Block{Number: uint64(g.Fork.Number), Hash: g.Fork.Hash, StateRoot: g.Fork.StateRoot})
		g.Fork.Remote = up
		fs.up.Store(up)
	case cfg.Fork.URL != "":
		up, err := fork.Dial(ctx, cfg.Fork.URL, cfg.Fork.Block)
		if err != nil {
			return nil, err
		}
		id := cfg.Fork.ChainID
		if id == 0 {
			id = up.ChainID
		}
		conf := *g.Config
		conf.ChainID = id
		g.Config = &conf
		fs.base.Config = &conf
		if err := fork.Genesis(ctx, g, up); err != nil {
			return nil, err
		}
		fs.up.Store(up)
		cfg.Log.Info("forking", "upstream", up.URL(), "block", up.Block.Number, "hash", up.Block.Hash, "chainId", id)
	}
	return fs, nil
}

// registerReset serves anvil_reset and hardhat_reset.
func (n *Node) registerReset() {
	n.RPC.Register("anvil_reset", 0, 1, func(ctx context.Context, p rpc.Params) (any, error) {
		return nil, n.resetFromParams(ctx, p)
	})
	n.RPC.Register("hardhat_reset", 0, 1, func(ctx context.Context, p rpc.Params) (any, error) {
		return true, n.resetFromParams(ctx, p)
	})
}

// resetParams is the parameter of anvil_reset and hardhat_reset.
type resetParams struct {
	Forking *struct {
		JSONRPCURL  string          `json:"jsonRpcUrl"`
		BlockNumber json.RawMessage `json:"blockNumber"` // a number or a hex quantity
	} `json:"forking"`
}

func (n *Node) resetFromParams(ctx context.Context, p rpc.Params) error {
	var rp resetParams
	if _, err := p.Optional(0, &rp); err != nil {
		return err
	}
	if rp.Forking == nil {
		return n.Reset(ctx, "", nil)
	}
	var block *uint64
	if raw := strings.TrimSpace(string(rp.Forking.BlockNumber)); raw != "" && raw != "null" {
		v, err := parseBlockNumber(raw)
		if err != nil {
			return rpc.InvalidParams(0, fmt.Errorf("forking.blockNumber: %w", err))
		}
		block = &v
	}
	url := rp.Forking.JSONRPCURL
	if url == "" {
		if up := n.Upstream(); up != nil {
			url = up.URL()
		} else {
			return rpc.InvalidParams(0, errors.New("forking.jsonRpcUrl is required: this node is no fork"))
		}
	}
	return n.Reset(ctx, url, block)
}

// parseBlockNumber reads 123, "123" or "0x7b".
func parseBlockNumber(raw string) (uint64, error) {
	s := strings.Trim(raw, `"`)
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		return strconv.ParseUint(s[2:], 16, 64)
	}
	return strconv.ParseUint(s, 10, 64)
}

// ErrResetUpstream wraps a failure to reach the upstream of a re-fork;
// the chain is then left as it was.
var ErrResetUpstream = errors.New("reset")

// Reset starts the chain over. With url empty the chain returns to its
// genesis (for a fork: the fork point, whose fetched state stays in the
// store). Otherwise it becomes a fork of url at block (nil: its latest);
// the chain ID stays the node's. Pending transactions are dropped.
func (n *Node) Reset(ctx context.Context, url string, block *uint64) error {
	f := n.fork
	f.mu.Lock()
	defer f.mu.Unlock()
	var g *chain.Genesis
	var up *fork.Client
	if url != "" {
		var err error
		if up, err = fork.Dial(ctx, url, block); err != nil {
			return fmt.Errorf("%w: %w", ErrResetUpstream, err)
		}
		ng := f.base
		ng.Alloc = maps.Clone(f.base.Alloc)
		conf := *f.base.Config
		ng.Config = &conf
		if err := fork.Genesis(ctx, &ng, up); err != nil {
			return fmt.Errorf("%w: %w", ErrResetUpstream, err)
		}
		// The chain keeps its config; its engine adds the system
		// contracts, whose genesis state depends on the genesis time the
		// fork point moved (Chain.Reset).
		ng.Config = n.Chain.Config
		g = &ng
	}
	// The upstream is dialled and the genesis laid out before block
	// production stops; if its state then cannot be read, Chain.Reset
	// changes nothing and production resumes on the old chain.
	n.mu.Lock()
	closed := n.closed
	n.mu.Unlock()
	if closed {
		return errors.New("node: reset of a closed node")
	}
	n.stopConsensusAndWait()
	err := n.Chain.Reset(g)
	if err == nil && g != nil {
		f.up.Store(up)
	}
	if err == nil && n.dev != nil {
		n.dev.Forget() // the snapshots' blocks are gone; the chosen coinbase too, as on a fresh node
	}
	n.dropPool()
	if n.cfg.Validator != nil && n.cfg.P2P == nil {
		if serr := n.startConsensus(); serr != nil {
			err = errors.Join(err, fmt.Errorf("consensus: %w", serr))
		}
	}
	return err
}

// dropPool empties the transaction pool and moves it to the new head.
func (n *Node) dropPool() {
	n.Pool.Clear()
	n.resetPool()
}

// Upstream returns the client of the chain's fork upstream (nil: no fork).
func (n *Node) Upstream() *fork.Client { return n.fork.up.Load() }

// openFork is prepareFork with a deadline for the upstream.
func openFork(cfg *Config) (*forkState, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*fork.Timeout)
	defer cancel()
	return prepareFork(ctx, cfg)
}

// registerFork adds the fork's and reset's methods.
func (n *Node) registerFork() {
	reset := n.cfg.Fork.Reset && !n.cfg.Public
	if n.Upstream() != nil || reset { // a reset can make a chain a fork
		n.backend.SetForkContents(func(ctx context.Context) (*types.Block, types.Receipts, uint64, error) {
			if up := n.Upstream(); up != nil {
				return up.BlockContents(ctx)
			}
			return nil, nil, 0, nil
		})
		fork.Forward(n.RPC, n.Chain, n.Upstream)
	}
	if reset {
		n.registerReset()
	}
}
