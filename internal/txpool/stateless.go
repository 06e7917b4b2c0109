package txpool

import (
	"errors"
	"fmt"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Stateless rejections beyond the EVM's own errors.
var (
	ErrNonceMax     = errors.New("nonce has max value")
	ErrCostOverflow = errors.New("gas * gas price overflows 256 bits")
)

// StatelessRules are what validating a transaction without any state
// depends on: the fork, its signer and the limits of the next block.
type StatelessRules struct {
	Signer   types.Signer
	Fork     forks.Fork
	GasLimit uint64 // the block gas limit; 0 sets none
	MaxSize  int    // encoded bytes; 0 sets none
	MaxBlobs uint64 // blobs per transaction
	// MaxCodeSize is the chain's code size setting (chain.Config's; 0:
	// the protocol's), which sets the initcode limit (evm.CodeSizeLimits).
	MaxCodeSize uint64
}

// ValidateStateless runs every check a transaction must pass whatever the
// state it meets: type, size, signature, fee fields, intrinsic gas and the
// calldata floor, initcode size, and the shape of blob and set-code
// transactions. It returns the sender and the intrinsic gas. The pool runs
// it before its checks against the head; the transaction-test runner runs
// it alone, so both say the same about a transaction.
func ValidateStateless(tx *types.Transaction, r StatelessRules) (from types.Address, intrinsic uint64, err error) {
	if !r.Signer.Supports(tx.Type()) {
		return from, 0, evm.ErrTxTypeNotSupported
	}
	if size := tx.Size(); r.MaxSize > 0 && size > uint64(r.MaxSize) {
		return from, 0, fmt.Errorf("%w: %d bytes, limit %d", ErrOversizedData, size, r.MaxSize)
	}
	if r.GasLimit > 0 && tx.Gas() > r.GasLimit {
		return from, 0, ErrGasLimit
	}
	// EIP-7825: no block could ever include it, so a send waiting for its
	// block would wait for ever.
	if r.Fork >= forks.Osaka && tx.Gas() > evm.MaxTxGas {
		return from, 0, fmt.Errorf("%w (cap: %d, tx: %d)", evm.ErrGasLimitTooHigh, evm.MaxTxGas, tx.Gas())
	}
	if tx.GasFeeCap().Lt(tx.GasTipCap()) {
		return from, 0, evm.ErrTipAboveFeeCap
	}
	if from, err = r.Signer.Sender(tx); err != nil {
		return from, 0, fmt.Errorf("%w: %v", ErrInvalidSender, err)
	}
	// EIP-2681: a transaction with the largest nonce could never be
	// followed, so none is valid.
	if tx.Nonce() == ^uint64(0) {
		return from, 0, ErrNonceMax
	}
	if _, overflow := new(uint256.Int).MulOverflow(uint256.NewInt(tx.Gas()), tx.GasFeeCap()); overflow {
		return from, 0, ErrCostOverflow
	}
	data := tx.Data()
	if intrinsic, err = evm.IntrinsicGas(r.Fork, data, tx.AccessList(), len(tx.AuthList()), tx.To() == nil); err != nil {
		return from, 0, err
	}
	if tx.Gas() < intrinsic {
		return from, 0, fmt.Errorf("%w: have %d, want %d", evm.ErrIntrinsicGas, tx.Gas(), intrinsic)
	}
	if r.Fork >= forks.Prague && tx.Gas() < evm.FloorDataGas(data) {
		return from, 0, fmt.Errorf("%w: have %d, want %d", evm.ErrFloorDataGas, tx.Gas(), evm.FloorDataGas(data))
	}
	if _, limit := evm.CodeSizeLimits(r.MaxCodeSize); tx.To() == nil && r.Fork >= forks.Shanghai && uint64(len(data)) > limit {
		return from, 0, fmt.Errorf("%w: code size %d, limit %d", evm.ErrMaxInitCodeSizeExceeded, len(data), limit)
	}
	switch tx.Type() {
	case types.BlobTxType:
		if tx.To() == nil {
			return from, 0, evm.ErrBlobTxCreate
		}
		if len(tx.BlobHashes()) == 0 {
			return from, 0, evm.ErrMissingBlobHashes
		}
		if uint64(len(tx.BlobHashes())) > r.MaxBlobs {
			return from, 0, evm.ErrTooManyBlobs
		}
	case types.SetCodeTxType:
		if tx.To() == nil {
			return from, 0, evm.ErrSetCodeTxCreate
		}
		if len(tx.AuthList()) == 0 {
			return from, 0, evm.ErrEmptyAuthList
		}
	}
	return from, intrinsic, nil
}
