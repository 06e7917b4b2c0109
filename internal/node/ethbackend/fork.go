package ethbackend

import (
	"context"
	"fmt"

	"github.com/chaind/chaind/internal/types"
)

// ForkContents reads the whole fork block of a fork's upstream: its
// header and body, and its receipts (consensus fields). It returns nil,
// nil, nil when the chain is no fork.
type ForkContents func(ctx context.Context) (*types.Block, types.Receipts, error)

// SetForkContents sets where the contents of a fork's genesis come from
// when that genesis is the upstream's fork block itself: the chain stores
// its header only, and every interface reads the block the upstream made
// through the backend (by number, by hash, as the head, its receipts and
// logs). Call it before serving.
func (b *Backend) SetForkContents(f ForkContents) { b.forkContents = f }

// whole returns blk with the upstream's body when blk is a fork's genesis
// that is the upstream's fork block, and blk itself otherwise.
func (b *Backend) whole(blk *types.Block) (*types.Block, error) {
	up, _, err := b.forkBlock(blk)
	if err != nil || up == nil {
		return blk, err
	}
	return up, nil
}

// forkBlock returns the upstream's block and receipts when blk is the
// fork's genesis made of the upstream's fork block; nil when it is not.
func (b *Backend) forkBlock(blk *types.Block) (*types.Block, types.Receipts, error) {
	f := b.chain.Fork()
	if blk == nil || f == nil || len(f.Header) == 0 || b.forkContents == nil || blk.Hash() != f.Hash {
		return nil, nil, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), b.opts.CallTimeout)
	defer cancel()
	up, rs, err := b.forkContents(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("fork block %d: %w", blk.Number(), err)
	}
	if up == nil || up.Hash() != blk.Hash() {
		// The upstream was reset away from this fork point.
		return nil, nil, nil
	}
	return up, rs, nil
}

// cloneReceipts copies receipts and their logs one level deep.
func cloneReceipts(rs types.Receipts) types.Receipts {
	out := make(types.Receipts, len(rs))
	for i, r := range rs {
		c := *r
		c.Logs = make([]*types.Log, len(r.Logs))
		for j, l := range r.Logs {
			lc := *l
			c.Logs[j] = &lc
		}
		out[i] = &c
	}
	return out
}
