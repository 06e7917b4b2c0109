package backend

import (
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// PendingBlocks shows the block the node would build next.
type PendingBlocks interface {
	// PendingBlock is the block the node would build on its head from the
	// pool's transactions now: executed, neither sealed nor stored. It is
	// ErrNotFound when the chain's rules let the node build no block at
	// the next height (a proof-of-work schedule there).
	PendingBlock() (*types.Block, error)
	// PendingReceipts is PendingBlock with its receipts, their block
	// fields filled in for the pending block.
	PendingReceipts() (*types.Block, types.Receipts, error)
}

// Difficulty reads the fork-choice weight of stored blocks.
type Difficulty interface {
	// TotalDifficulty is the sum of the difficulties of block h and its
	// ancestors; false when h is not stored.
	TotalDifficulty(h types.Hash) (*uint256.Int, bool)
}
