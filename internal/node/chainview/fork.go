package chainview

import (
	"context"

	"github.com/chaind/chaind/internal/node/fork"
	"github.com/chaind/chaind/internal/types"
)

// A forked chain reads what its store lacks from an upstream: the state
// of accounts, slots and code never touched (through the chain's remote,
// which is the fork's State), and the body and receipts of the fork block
// when the genesis is that block. The view holds the fork, so every
// backend behind it — JSON-RPC, GraphQL, the explorer, REST and gRPC,
// chain_* — and the dev helpers reach the one upstream the chain follows,
// which a re-fork replaces in one place.

// SetFork makes fs the view's fork (a node's, also when it forks nothing
// yet: a reset can make it a fork). Set before serving.
func (v *View) SetFork(fs *fork.State) { v.fork = fs }

// Fork is the view's fork bookkeeping (nil: the node set none).
func (v *View) Fork() *fork.State { return v.fork }

// Upstream is the client of the upstream the chain follows now (nil: the
// chain is no fork).
func (v *View) Upstream() *fork.Client {
	if v.fork == nil {
		return nil
	}
	return v.fork.Upstream()
}

// ForkBlock reads the whole fork block of the upstream the chain follows:
// its header and body, its receipts and the upstream's chain ID, which
// signed its transactions. The block is nil when the chain is no fork.
// The fork keeps what it read in the store (fork.State.BlockContents), so
// this asks the upstream once per fork block, restarts included.
func (v *View) ForkBlock(ctx context.Context) (*types.Block, types.Receipts, uint64, error) {
	if v.fork == nil {
		return nil, nil, 0, nil
	}
	return v.fork.BlockContents(ctx)
}
