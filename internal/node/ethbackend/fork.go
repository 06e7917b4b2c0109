package ethbackend

import (
	"context"
	"fmt"

	"github.com/chaind/chaind/internal/types"
)

// forkSigner is the chain ID that signed the transactions of the fork
// block of the given hash.
type forkSigner struct {
	hash    types.Hash
	chainID uint64
}

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
// The chain stores that block's header only; its contents come from the
// upstream the view follows (chainview.View.ForkBlock), and every
// interface reads them through the backend (by number, by hash, as the
// head, its receipts and logs).
func (b *Backend) forkBlock(blk *types.Block) (*types.Block, types.Receipts, error) {
	f := b.chain.Fork()
	if blk == nil || f == nil || len(f.Header) == 0 || blk.Hash() != f.Hash {
		return nil, nil, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), b.opts.CallTimeout)
	defer cancel()
	up, rs, id, err := b.view.ForkBlock(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("fork block %d: %w", blk.Number(), err)
	}
	if up == nil || up.Hash() != blk.Hash() {
		// The upstream was reset away from this fork point.
		return nil, nil, nil
	}
	b.forkSigner.Store(&forkSigner{up.Hash(), id})
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

// upstreamChainID is the chain ID that signed the transactions of block
// number of a fork whose genesis is that upstream block, once its contents
// were read; ok false for every other block.
func (b *Backend) upstreamChainID(number uint64) (uint64, bool) {
	f := b.chain.Fork()
	if f == nil || len(f.Header) == 0 || number != uint64(f.Number) {
		return 0, false
	}
	s := b.forkSigner.Load()
	if s == nil || s.hash != f.Hash || s.chainID == 0 {
		return 0, false
	}
	return s.chainID, true
}
