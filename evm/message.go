package evm

import (
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// BlockContext is what the EVM knows about the block a transaction runs in.
type BlockContext struct {
	Coinbase    types.Address
	Number      uint64
	Time        uint64
	GasLimit    uint64
	BaseFee     *uint256.Int // nil before London
	BlobBaseFee *uint256.Int // nil before Cancun
	Difficulty  *uint256.Int // DIFFICULTY before Paris
	Random      *types.Hash  // PREVRANDAO from Paris on
	// GetHash returns the hash of block n; it is only asked for the 256
	// blocks before Number.
	GetHash func(n uint64) types.Hash
	// Blob is the blob schedule in force; the zero value means the fork's
	// default (BlobSchedule). Chains with BPO forks set it from their config.
	Blob BlobConfig
}

// TxContext is the per-transaction part of the environment.
type TxContext struct {
	Origin     types.Address
	GasPrice   *uint256.Int
	BlobHashes []types.Hash
	BlobFeeCap *uint256.Int
}

// Message is a transaction reduced to what execution needs: the sender is
// already recovered. Calls that are not transactions (eth_call) set the
// Skip* flags.
type Message struct {
	From          types.Address
	To            *types.Address // nil creates a contract
	Nonce         uint64
	Value         *uint256.Int
	GasLimit      uint64
	GasPrice      *uint256.Int // legacy and access-list price; for 1559 txs set by the caller or left nil
	GasFeeCap     *uint256.Int
	GasTipCap     *uint256.Int
	Data          []byte
	AccessList    types.AccessList
	BlobHashes    []types.Hash
	BlobGasFeeCap *uint256.Int
	AuthList      []SetCodeAuthorization

	SkipNonceChecks  bool
	SkipFromEOACheck bool
	// SkipGasLimitCap lifts EIP-7825's per-transaction gas cap, for
	// simulated calls (eth_simulateV1, eth_call) that are no transactions.
	SkipGasLimitCap bool
}

// Result is the outcome of a transaction that was valid and got executed.
type Result struct {
	UsedGas    uint64 // gas charged to the sender, after refund and the EIP-7623 floor
	Refund     uint64 // refund granted
	ReturnData []byte // return data, or revert data when Err is ErrExecutionReverted
	Err        error  // execution error of the top call frame, nil on success

	// MissingPrecompiles lists precompiles that were called but are not
	// implemented yet; the result is then not trustworthy.
	MissingPrecompiles []types.Address
}

// Failed reports whether execution ended in an error (including revert).
func (r *Result) Failed() bool { return r.Err != nil }

// Revert returns the revert data, or nil if the call did not revert.
func (r *Result) Revert() []byte {
	if r.Err != ErrExecutionReverted {
		return nil
	}
	return r.ReturnData
}

// GasPool tracks the gas still available in a block.
type GasPool uint64

// SubGas takes gas out of the pool or fails with ErrGasLimitReached.
func (gp *GasPool) SubGas(amount uint64) error {
	if uint64(*gp) < amount {
		return ErrGasLimitReached
	}
	*gp -= GasPool(amount)
	return nil
}

// AddGas returns gas to the pool.
func (gp *GasPool) AddGas(amount uint64) { *gp += GasPool(amount) }

// Gas returns the gas left.
func (gp *GasPool) Gas() uint64 { return uint64(*gp) }

// TransactionToMessage turns a signed transaction whose sender has been
// recovered into a Message. Blob and set-code transactions get non-nil
// BlobHashes and AuthList even when empty, so that validation can tell
// them apart from other types.
func TransactionToMessage(tx *types.Transaction, from types.Address) *Message {
	// The message and the copies of the transaction's values it points to
	// live in one allocation: block execution makes one per transaction.
	m := &struct {
		Message
		to                types.Address
		value, price, tip uint256.Int
	}{}
	msg := &m.Message
	*msg = Message{
		From:       from,
		Nonce:      tx.Nonce(),
		Value:      m.value.Set(tx.Value()),
		GasLimit:   tx.Gas(),
		Data:       tx.Data(),
		AccessList: tx.AccessList(),
	}
	if to := tx.To(); to != nil {
		m.to = *to
		msg.To = &m.to
	}
	switch tx.Type() {
	case types.LegacyTxType, types.AccessListTxType:
		msg.GasPrice = m.price.Set(tx.GasPrice())
	default:
		msg.GasFeeCap = m.price.Set(tx.GasFeeCap())
		msg.GasTipCap = m.tip.Set(tx.GasTipCap())
	}
	switch tx.Type() {
	case types.BlobTxType:
		msg.BlobHashes = tx.BlobHashes()
		if msg.BlobHashes == nil {
			msg.BlobHashes = []types.Hash{}
		}
		msg.BlobGasFeeCap = tx.BlobGasFeeCap()
	case types.SetCodeTxType:
		msg.AuthList = tx.AuthList()
		if msg.AuthList == nil {
			msg.AuthList = []SetCodeAuthorization{}
		}
	}
	return msg
}
