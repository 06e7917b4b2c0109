package node

import (
	"context"
	"errors"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/node/fork"
)

// ForkConfig makes a development node a fork of another chain and lets it
// be reset (fork.Config).
type ForkConfig = fork.Config

// ErrResetUpstream wraps a failure to reach the upstream of a re-fork;
// the chain is then left as it was.
var ErrResetUpstream = fork.ErrResetUpstream

// Reset starts the chain over (fork.State.ResetNode): to its genesis with
// url empty, else as a fork of url at block (nil: its latest).
func (n *Node) Reset(ctx context.Context, url string, block *uint64) error {
	return n.view.Fork().ResetNode(ctx, resetNode{n}, url, block, n.Chain.Config, n.log)
}

// resetNode is the node as a reset drives it.
type resetNode struct{ n *Node }

func (r resetNode) Halt() error {
	r.n.mu.Lock()
	closed := r.n.closed
	r.n.mu.Unlock()
	if closed {
		return errors.New("node: reset of a closed node")
	}
	r.n.stopConsensusAndWait()
	return nil
}

func (r resetNode) ResetChain(g *chain.Genesis) error { return r.n.Chain.Reset(g) }

func (r resetNode) Resume(made bool) error {
	n := r.n
	if made && n.dev != nil {
		n.dev.Forget() // the snapshots' blocks are gone; the chosen coinbase too, as on a fresh node
	}
	n.Pool.Clear()
	n.pool.Reset()
	if n.cfg.Validator != nil && n.cfg.P2P == nil {
		return n.startConsensus()
	}
	return nil
}

// Upstream returns the client of the chain's fork upstream (nil: no fork).
func (n *Node) Upstream() *fork.Client { return n.view.Upstream() }

// registerFork adds the fork's and reset's methods.
func (n *Node) registerFork() {
	reset := n.cfg.Fork.Reset && !n.cfg.Public
	if n.Upstream() != nil || reset { // a reset can make a chain a fork
		fork.Forward(n.RPC, n.Chain, n.view.Upstream)
	}
	if reset {
		n.view.Fork().RegisterReset(n.RPC, resetNode{n}, func() *chain.Config { return n.Chain.Config }, n.log)
	}
}
