package backend

import (
	"context"
	"errors"

	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// DevNextBlock are a development node's test helpers that choose fields of
// the blocks it makes next and edit its pool, as Hardhat Network and anvil
// serve them (hardhat_setCoinbase, hardhat_setNextBlockBaseFeePerGas,
// hardhat_setPrevRandao, evm_setBlockGasLimit, hardhat_dropTransaction and
// their anvil_ names).
// The choices are read back from the blocks made: the header's miner,
// baseFeePerGas and mixHash, and the COINBASE, BASEFEE and PREVRANDAO
// opcodes of the transactions in them.
type DevNextBlock interface {
	// SetCoinbase makes addr the fee recipient of every block from the
	// next one on.
	SetCoinbase(ctx context.Context, addr types.Address) error
	// Coinbase is the fee recipient set by SetCoinbase; false when none
	// is (the validator's address is).
	Coinbase() (types.Address, bool)
	// SetNextBlockBaseFee fixes the base fee of the next block; the
	// blocks after it follow EIP-1559 from there. The pool and the fee
	// suggestions take it at once. ErrBaseFeeInactive when the next block
	// has no base fee.
	SetNextBlockBaseFee(ctx context.Context, fee *uint256.Int) error
	// SetNextBlockRandao fixes the PREVRANDAO (the header's mixHash) of
	// the next block; the blocks after it draw theirs as before.
	SetNextBlockRandao(ctx context.Context, r types.Hash) error
	// SetBlockGasLimit makes limit the gas limit of every block from the
	// next one on, exactly, beyond the 1/1024 step a block may move it
	// (evm_setBlockGasLimit). The pool and the pending block take it at
	// once.
	SetBlockGasLimit(ctx context.Context, limit uint64) error
	// DropTransaction removes a transaction from the pool, waiting until
	// no block is being made (so that none takes it meanwhile): false when
	// the pool does not hold it. A sender's later transactions stay,
	// queued behind the gap.
	DropTransaction(ctx context.Context, h types.Hash) (bool, error)
	// DropAllTransactions empties the pool, as DropTransaction waits.
	DropAllTransactions(ctx context.Context) error
}

// RevertOptions say what a revert to a snapshot restores besides the
// chain, its state and the dev clock, where Hardhat Network and anvil
// differ: Hardhat restores all of these, anvil none.
type RevertOptions struct {
	// Pool puts the pool back as it was at the snapshot; without it the
	// pool keeps the transactions the restored state still admits.
	Pool bool
	// Coinbase restores the fee recipient and the block gas limit set at
	// the snapshot; without it the current ones stay.
	Coinbase bool
	// NextRandao restores a PREVRANDAO chosen for the next block at the
	// snapshot; without it any chosen one is dropped.
	NextRandao bool
}

// ErrBaseFeeInactive is returned for a base fee chosen where EIP-1559 is
// not active.
var ErrBaseFeeInactive = errors.New("EIP-1559 is not active")
