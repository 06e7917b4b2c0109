package ethbackend

import (
	"context"

	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// SetSentHook installs f to run after every transaction the pool accepts
// from a client: a development node that automines waits there until the
// transaction is in a block, as Hardhat Network does, so a test reads its
// effects right after sending. Set before serving.
func (b *Backend) SetSentHook(f func(ctx context.Context, tx *types.Transaction)) { b.sent = f }

func (b *Backend) afterSend(ctx context.Context, tx *types.Transaction) {
	if b.sent != nil {
		b.sent(ctx, tx)
	}
}

// NextBlock are a development node's choices for the block it makes on a
// parent (hardhat_setCoinbase, hardhat_setNextBlockBaseFeePerGas,
// hardhat_setPrevRandao); nil fields are the chain's own.
type NextBlock struct {
	Coinbase *types.Address
	BaseFee  *uint256.Int
	Random   *types.Hash
}

// SetNextBlockHook installs f, which says what a development node chose
// for its next block on parent: the next base fee the fee methods and
// eth_sendTransaction use, and the pending block, follow it. Set before
// serving.
func (b *Backend) SetNextBlockHook(f func(parent types.Hash) NextBlock) { b.nextBlock = f }

func (b *Backend) nextBlockOn(parent types.Hash) NextBlock {
	if b.nextBlock == nil {
		return NextBlock{}
	}
	return b.nextBlock(parent)
}
