package types

import (
	"errors"
	"sync/atomic"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/holiman/uint256"
)

// Transaction types as they appear in the first byte of a typed envelope.
const (
	LegacyTxType     = 0x00
	AccessListTxType = 0x01
	DynamicFeeTxType = 0x02
	BlobTxType       = 0x03
	SetCodeTxType    = 0x04
)

// Errors of transaction decoding. Lower-level RLP errors are wrapped, so
// errors.Is works for both the rlp error and these.
var (
	ErrTxTypeNotSupported = errors.New("types: transaction type not supported")
	ErrTxTooShort         = errors.New("types: typed transaction too short")
	ErrTooManyFields      = errors.New("types: rlp list has too many elements")
	ErrTooFewFields       = errors.New("types: rlp list has too few elements")
	ErrAddressLength      = errors.New("types: address must be 0 or 20 bytes")
	ErrHashLength         = errors.New("types: hash must be 32 bytes")
	ErrBlobTxCreate       = errors.New("types: blob transaction cannot create a contract")
	ErrSetCodeTxCreate    = errors.New("types: set-code transaction cannot create a contract")
	ErrLegacyTyped        = errors.New("types: legacy transaction inside a typed envelope")
)

// TxData is the payload of one transaction type. Only this package's
// LegacyTx, AccessListTx, DynamicFeeTx, BlobTx and SetCodeTx implement it;
// wrap one with NewTx.
type TxData interface {
	txType() byte
	copy() TxData

	chainID() *uint256.Int
	nonce() uint64
	gasPrice() *uint256.Int // fee cap for typed fee-market transactions
	gasTipCap() *uint256.Int
	gasFeeCap() *uint256.Int
	gas() uint64
	to() *Address
	value() *uint256.Int
	data() []byte
	accessList() AccessList
	rawSignatureValues() (v, r, s *uint256.Int)
	setSignatureValues(chainID, v, r, s *uint256.Int)

	// fieldsSize and appendFields write the fields that precede the
	// signature, without a list header: the signature covers exactly these
	// (legacy EIP-155 adds the chain id and two zeros). decodeRLP reads the
	// content of the whole payload list, signature included.
	fieldsSize() int
	appendFields(dst []byte) []byte
	decodeRLP(content []byte) error
}

// LegacyTx is a pre-EIP-2718 transaction, with or without EIP-155 replay
// protection (V carries the chain id when it has it).
type LegacyTx struct {
	Nonce    uint64
	GasPrice uint256.Int
	Gas      uint64
	To       *Address // nil for contract creation
	Value    uint256.Int
	Data     []byte
	V, R, S  uint256.Int
}

// AccessListTx is an EIP-2930 transaction (type 1).
type AccessListTx struct {
	ChainID    uint256.Int
	Nonce      uint64
	GasPrice   uint256.Int
	Gas        uint64
	To         *Address // nil for contract creation
	Value      uint256.Int
	Data       []byte
	AccessList AccessList
	V, R, S    uint256.Int // V is the y parity, 0 or 1
}

// DynamicFeeTx is an EIP-1559 transaction (type 2).
type DynamicFeeTx struct {
	ChainID    uint256.Int
	Nonce      uint64
	GasTipCap  uint256.Int // maxPriorityFeePerGas
	GasFeeCap  uint256.Int // maxFeePerGas
	Gas        uint64
	To         *Address // nil for contract creation
	Value      uint256.Int
	Data       []byte
	AccessList AccessList
	V, R, S    uint256.Int
}

// BlobTx is an EIP-4844 transaction (type 3) in its canonical form,
// without the network sidecar of blobs, commitments and proofs.
type BlobTx struct {
	ChainID    uint256.Int
	Nonce      uint64
	GasTipCap  uint256.Int
	GasFeeCap  uint256.Int
	Gas        uint64
	To         Address // blob transactions cannot create contracts
	Value      uint256.Int
	Data       []byte
	AccessList AccessList
	BlobFeeCap uint256.Int // maxFeePerBlobGas
	BlobHashes []Hash      // versioned hashes
	V, R, S    uint256.Int
}

// SetCodeTx is an EIP-7702 transaction (type 4).
type SetCodeTx struct {
	ChainID    uint256.Int
	Nonce      uint64
	GasTipCap  uint256.Int
	GasFeeCap  uint256.Int
	Gas        uint64
	To         Address // set-code transactions cannot create contracts
	Value      uint256.Int
	Data       []byte
	AccessList AccessList
	AuthList   []SetCodeAuthorization
	V, R, S    uint256.Int
}

// SetCodeAuthorization is one signed EIP-7702 delegation: the authority
// (recovered from the signature) asks that its code point at Address.
type SetCodeAuthorization struct {
	ChainID uint256.Int // 0 means valid on every chain
	Address Address
	Nonce   uint64
	V       uint8 // y parity
	R, S    uint256.Int
}

// Transaction is an immutable signed transaction of any type. Hash, size
// and sender are computed once and cached; a Transaction is safe for
// concurrent use.
type Transaction struct {
	inner TxData
	enc   []byte // binary encoding when decoded (immutable); saves re-encoding for Hash

	hash atomic.Pointer[Hash]
	size atomic.Uint64
	from atomic.Pointer[senderCache]
}

type senderCache struct {
	chainID uint256.Int // chain id the sender was recovered under
	lowS    bool        // whether EIP-2 was applied
	imp     bool        // whether impersonated transactions were accepted
	from    Address
}

// NewTx wraps a copy of inner in a Transaction.
func NewTx(inner TxData) *Transaction {
	return &Transaction{inner: inner.copy()}
}

// Type returns the transaction type (0 to 4).
func (tx *Transaction) Type() uint8 { return tx.inner.txType() }

// Inner returns a copy of the typed payload (a *LegacyTx, *AccessListTx, ...).
func (tx *Transaction) Inner() TxData { return tx.inner.copy() }

// ChainID returns the chain id the transaction is bound to. For a legacy
// transaction it is derived from V (zero without EIP-155).
func (tx *Transaction) ChainID() *uint256.Int { return new(uint256.Int).Set(tx.inner.chainID()) }

// Protected reports whether the signature commits to a chain id.
func (tx *Transaction) Protected() bool {
	if ltx, ok := tx.inner.(*LegacyTx); ok {
		return isProtectedV(&ltx.V)
	}
	return true
}

// Nonce returns the sender's account nonce.
func (tx *Transaction) Nonce() uint64 { return tx.inner.nonce() }

// Gas returns the gas limit.
func (tx *Transaction) Gas() uint64 { return tx.inner.gas() }

// GasPrice returns the gas price of legacy and access-list transactions
// and the fee cap of fee-market ones.
func (tx *Transaction) GasPrice() *uint256.Int { return new(uint256.Int).Set(tx.inner.gasPrice()) }

// GasTipCap returns maxPriorityFeePerGas (the gas price for older types).
func (tx *Transaction) GasTipCap() *uint256.Int { return new(uint256.Int).Set(tx.inner.gasTipCap()) }

// GasFeeCap returns maxFeePerGas (the gas price for older types).
func (tx *Transaction) GasFeeCap() *uint256.Int { return new(uint256.Int).Set(tx.inner.gasFeeCap()) }

// To returns the recipient, or nil for a contract creation.
func (tx *Transaction) To() *Address {
	to := tx.inner.to()
	if to == nil {
		return nil
	}
	c := *to
	return &c
}

// Value returns the amount of wei transferred.
func (tx *Transaction) Value() *uint256.Int { return new(uint256.Int).Set(tx.inner.value()) }

// Data returns the call data or init code. Callers must not modify it.
func (tx *Transaction) Data() []byte { return tx.inner.data() }

// AccessList returns the EIP-2930 access list (nil for legacy).
func (tx *Transaction) AccessList() AccessList { return tx.inner.accessList() }

// BlobHashes returns the versioned blob hashes of a blob transaction.
func (tx *Transaction) BlobHashes() []Hash {
	if b, ok := tx.inner.(*BlobTx); ok {
		return b.BlobHashes
	}
	return nil
}

// BlobGas returns the blob gas the transaction consumes.
func (tx *Transaction) BlobGas() uint64 { return uint64(len(tx.BlobHashes())) * BlobGasPerBlob }

// BlobGasPerBlob is the blob gas of one blob (EIP-4844).
const BlobGasPerBlob = 1 << 17

// BlobGasFeeCap returns maxFeePerBlobGas, or nil when the type has none.
func (tx *Transaction) BlobGasFeeCap() *uint256.Int {
	if b, ok := tx.inner.(*BlobTx); ok {
		return new(uint256.Int).Set(&b.BlobFeeCap)
	}
	return nil
}

// AuthList returns the EIP-7702 authorizations of a set-code transaction.
func (tx *Transaction) AuthList() []SetCodeAuthorization {
	if s, ok := tx.inner.(*SetCodeTx); ok {
		return s.AuthList
	}
	return nil
}

// RawSignatureValues returns V, R and S as they are stored: V is the
// y parity for typed transactions and 27/28 or chainID*2+35/36 for legacy.
func (tx *Transaction) RawSignatureValues() (v, r, s *uint256.Int) {
	v, r, s = tx.inner.rawSignatureValues()
	return new(uint256.Int).Set(v), new(uint256.Int).Set(r), new(uint256.Int).Set(s)
}

// Cost returns gas*feeCap + value (+ blob gas * blob fee cap): the most the
// sender can be charged. ok is false when it overflows 256 bits.
func (tx *Transaction) Cost() (cost *uint256.Int, ok bool) {
	cost = new(uint256.Int).SetUint64(tx.Gas())
	if _, of := cost.MulOverflow(cost, tx.inner.gasFeeCap()); of {
		return nil, false
	}
	if _, of := cost.AddOverflow(cost, tx.inner.value()); of {
		return nil, false
	}
	if b, isBlob := tx.inner.(*BlobTx); isBlob {
		bc := new(uint256.Int).SetUint64(tx.BlobGas())
		if _, of := bc.MulOverflow(bc, &b.BlobFeeCap); of {
			return nil, false
		}
		if _, of := cost.AddOverflow(cost, bc); of {
			return nil, false
		}
	}
	return cost, true
}

// ErrGasFeeCapTooLow is returned by EffectiveGasTip when the fee cap is
// below the base fee.
var ErrGasFeeCapTooLow = errors.New("types: max fee per gas less than block base fee")

// EffectiveGasTip returns min(tipCap, feeCap-baseFee), the part of the gas
// price that goes to the block producer. A nil baseFee means the tip cap.
// When feeCap < baseFee it returns zero and ErrGasFeeCapTooLow.
func (tx *Transaction) EffectiveGasTip(baseFee *uint256.Int) (*uint256.Int, error) {
	tip := tx.GasTipCap()
	if baseFee == nil {
		return tip, nil
	}
	feeCap := tx.inner.gasFeeCap()
	if feeCap.Lt(baseFee) {
		// The true tip would be negative; callers must reject the
		// transaction, so report zero rather than a wrapped-around value.
		return new(uint256.Int), ErrGasFeeCapTooLow
	}
	room := new(uint256.Int).Sub(feeCap, baseFee)
	if room.Lt(tip) {
		return room, nil
	}
	return tip, nil
}

// EffectiveGasPrice returns the price per gas the sender pays in a block
// with baseFee: baseFee + EffectiveGasTip (the gas price before London).
func (tx *Transaction) EffectiveGasPrice(baseFee *uint256.Int) *uint256.Int {
	if baseFee == nil {
		return tx.GasPrice()
	}
	tip, err := tx.EffectiveGasTip(baseFee)
	if err != nil {
		return tx.GasFeeCap()
	}
	return tip.Add(tip, baseFee)
}

// Hash returns the transaction hash: keccak256 of the RLP for legacy
// transactions, keccak256 of type || RLP for typed ones.
func (tx *Transaction) Hash() Hash {
	if h := tx.hash.Load(); h != nil {
		return *h
	}
	buf := tx.enc
	if buf == nil {
		buf = tx.appendBinary(make([]byte, 0, tx.binarySize()))
	}
	h := Hash(crypto.Keccak256(buf))
	tx.hash.Store(&h)
	return h
}

// Size returns the size of the binary encoding in bytes (what eth_
// getTransactionByHash reports as part of a block's size).
func (tx *Transaction) Size() uint64 {
	if s := tx.size.Load(); s != 0 {
		return s
	}
	s := uint64(tx.binarySize())
	tx.size.Store(s)
	return s
}

// WithSignature returns a copy of tx carrying the 65-byte signature
// sig (R || S || V, V in {0,1}) as produced by crypto.Sign, with V adapted
// to the signer's rules.
func (tx *Transaction) WithSignature(s Signer, sig []byte) (*Transaction, error) {
	r, sv, v, err := s.SignatureValues(tx, sig)
	if err != nil {
		return nil, err
	}
	inner := tx.inner.copy()
	inner.setSignatureValues(&s.chainID, v, r, sv)
	return &Transaction{inner: inner}, nil
}

// Transactions is a list of transactions, as in a block body.
type Transactions []*Transaction

func isProtectedV(v *uint256.Int) bool {
	if v.IsUint64() {
		x := v.Uint64()
		return x != 27 && x != 28 && x != 1 && x != 0
	}
	return true
}
