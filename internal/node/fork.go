package node

import (
	"context"
	"errors"
	"fmt"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/node/fork"
	"github.com/chaind/chaind/rpc"
)

// ForkConfig makes a development node a fork of another chain and lets it
// be reset (fork.Config).
type ForkConfig = fork.Config

// ErrResetUpstream wraps a failure to reach the upstream of a re-fork;
// the chain is then left as it was.
var ErrResetUpstream = fork.ErrResetUpstream

// registerReset serves anvil_reset and hardhat_reset.
func (n *Node) registerReset() {
	reset := func(ctx context.Context, p rpc.Params) error {
		req, err := fork.ParseReset(p, n.Upstream())
		if err != nil {
			return err
		}
		return n.Reset(ctx, req.URL, req.Block)
	}
	n.RPC.Register("anvil_reset", 0, 1, func(ctx context.Context, p rpc.Params) (any, error) {
		return nil, reset(ctx, p)
	})
	n.RPC.Register("hardhat_reset", 0, 1, func(ctx context.Context, p rpc.Params) (any, error) {
		return true, reset(ctx, p)
	})
}

// Reset starts the chain over. With url empty the chain returns to its
// genesis (for a fork: the fork point, whose fetched state stays in the
// store). Otherwise it becomes a fork of url at block (nil: its latest);
// the chain ID stays the node's. Pending transactions are dropped.
func (n *Node) Reset(ctx context.Context, url string, block *uint64) error {
	f := n.view.Fork()
	f.Lock()
	defer f.Unlock()
	var g *chain.Genesis
	var up *fork.Client
	if url != "" {
		var err error
		if g, up, err = f.Refork(ctx, url, block, n.Chain.Config); err != nil {
			return err
		}
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
	err := f.Reset(ctx, g, up, n.Chain.Reset, n.log)
	if err == nil && n.dev != nil {
		n.dev.Forget() // the snapshots' blocks are gone; the chosen coinbase too, as on a fresh node
	}
	n.Pool.Clear()
	n.pool.Reset()
	if n.cfg.Validator != nil && n.cfg.P2P == nil {
		if serr := n.startConsensus(); serr != nil {
			err = errors.Join(err, fmt.Errorf("consensus: %w", serr))
		}
	}
	return err
}

// Upstream returns the client of the chain's fork upstream (nil: no fork).
func (n *Node) Upstream() *fork.Client { return n.view.Upstream() }

// openFork prepares cfg.Genesis for a fork (fork.Prepare), with a
// deadline for the upstream.
func openFork(cfg *Config, kv fork.Store) (*fork.State, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*fork.Timeout)
	defer cancel()
	return fork.Prepare(ctx, cfg.Genesis, cfg.Fork, kv, cfg.Log)
}

// registerFork adds the fork's and reset's methods.
func (n *Node) registerFork() {
	reset := n.cfg.Fork.Reset && !n.cfg.Public
	if n.Upstream() != nil || reset { // a reset can make a chain a fork
		fork.Forward(n.RPC, n.Chain, n.view.Upstream)
	}
	if reset {
		n.registerReset()
	}
}
