package ethbackend

import (
	"time"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// PendingBlock builds, as the proposer would, a block on the head from the
// pool's pending transactions in price order, at the current time.
func (b *Backend) PendingBlock() (*types.Block, error) {
	built, err := b.buildPending()
	if err != nil {
		return nil, err
	}
	return built.Block, nil
}

// PendingReceipts is PendingBlock with the receipts of its transactions.
func (b *Backend) PendingReceipts() (*types.Block, types.Receipts, error) {
	built, err := b.buildPending()
	if err != nil {
		return nil, nil, err
	}
	rs := built.Receipts
	if rs == nil {
		rs = types.Receipts{}
	}
	if err := b.deriveReceipts(built.Block, rs); err != nil {
		return nil, nil, err
	}
	return built.Block, rs, nil
}

func (b *Backend) buildPending() (*chain.Built, error) {
	head := b.chain.Head()
	if !b.chain.Config.IsMerged(head.Number() + 1) {
		return nil, backend.ErrNotFound
	}
	// The block the proposer would make now: the next block's parameters
	// (a development node's choices of fee recipient, base fee and
	// PREVRANDAO among them) and the pool in the order of its base fee.
	hd := head.HeaderRef()
	nb := b.view.NextBlockParams(hd, &chain.Attributes{Time: uint64(time.Now().Unix())})
	p := chain.BuildParams{Coinbase: nb.Coinbase, Time: nb.Time, Random: nb.Random, BaseFee: nb.BaseFee,
		DevGasLimit: b.view.ChoicesOn(hd.Hash()).GasLimit, State: b.view.StateRoot(hd)}
	var candidates []*types.Transaction
	if b.pool != nil {
		candidates = b.pool.Ordered(nb.BaseFee, 0)
	}
	built, err := b.chain.BuildBlock(p, candidates)
	if err != nil {
		return nil, err
	}
	built.State.Release()
	return built, nil
}

// TotalDifficulty is the stored block h's total difficulty.
func (b *Backend) TotalDifficulty(h types.Hash) (*uint256.Int, bool) {
	return b.chain.TotalDifficulty(h)
}

// StateRetention is the number of recent blocks whose state the node
// keeps; 0: all of them (an archive node).
func (b *Backend) StateRetention() uint64 { return b.opts.StateRetention }
