package types

import (
	"bytes"

	"github.com/chaind/chaind/rlp"
	"github.com/holiman/uint256"
)

// Two encodings of a transaction exist:
//   - binary (MarshalBinary): the legacy RLP list, or type || RLP payload.
//     This is what eth_sendRawTransaction takes and what the hash covers.
//   - RLP item (AppendRLP): how a transaction sits inside a block body or a
//     p2p message: the legacy list as is, a typed one as a byte string that
//     holds its binary form.

func (tx *Transaction) payloadContentSize() int {
	v, r, s := tx.inner.rawSignatureValues()
	return tx.inner.fieldsSize() + rlp.Uint256Size(v) + rlp.Uint256Size(r) + rlp.Uint256Size(s)
}

func (tx *Transaction) binarySize() int {
	if tx.enc != nil {
		return len(tx.enc)
	}
	n := rlp.ListSize(tx.payloadContentSize())
	if tx.inner.txType() != LegacyTxType {
		n++
	}
	return n
}

func (tx *Transaction) appendBinary(dst []byte) []byte {
	if tx.enc != nil {
		return append(dst, tx.enc...)
	}
	if t := tx.inner.txType(); t != LegacyTxType {
		dst = append(dst, t)
	}
	v, r, s := tx.inner.rawSignatureValues()
	dst = rlp.AppendListHeader(dst, tx.payloadContentSize())
	dst = tx.inner.appendFields(dst)
	dst = rlp.AppendUint256(dst, v)
	dst = rlp.AppendUint256(dst, r)
	return rlp.AppendUint256(dst, s)
}

// MarshalBinary returns the canonical binary encoding.
func (tx *Transaction) MarshalBinary() ([]byte, error) {
	return tx.appendBinary(make([]byte, 0, tx.binarySize())), nil
}

// AppendBinary appends the canonical binary encoding to dst.
func (tx *Transaction) AppendBinary(dst []byte) ([]byte, error) {
	return tx.appendBinary(dst), nil
}

// UnmarshalBinary decodes the canonical binary encoding. The input is
// copied once; the transaction never aliases b.
func (tx *Transaction) UnmarshalBinary(b []byte) error {
	return tx.decodeBinary(bytes.Clone(b), nil)
}

// DecodeTx decodes the binary encoding of a transaction.
func DecodeTx(b []byte) (*Transaction, error) {
	tx := new(Transaction)
	if err := tx.UnmarshalBinary(b); err != nil {
		return nil, err
	}
	return tx, nil
}

// decodeBinary decodes b and keeps sub-slices of it. Payload structs come
// from arena when it is not nil.
func (tx *Transaction) decodeBinary(b []byte, arena *txArena) error {
	if len(b) == 0 {
		return decodeErr("transaction", rlp.ErrEmptyInput)
	}
	if b[0] >= 0xc0 {
		content, err := splitOneList(b)
		if err != nil {
			return decodeErr("legacy transaction", err)
		}
		inner := arena.legacy()
		if err := inner.decodeRLP(content); err != nil {
			return decodeErr("legacy transaction", err)
		}
		tx.setDecoded(inner, b)
		return nil
	}
	if b[0] > 0x7f {
		return decodeErr("transaction", ErrLegacyTyped)
	}
	if len(b) < 2 {
		return decodeErr("transaction", ErrTxTooShort)
	}
	inner := arena.typed(b[0])
	if inner == nil {
		return decodeErr("transaction", ErrTxTypeNotSupported)
	}
	content, err := splitOneList(b[1:])
	if err != nil {
		return decodeErr("typed transaction", err)
	}
	if err := inner.decodeRLP(content); err != nil {
		return decodeErr("typed transaction", err)
	}
	tx.setDecoded(inner, b)
	return nil
}

func (tx *Transaction) setDecoded(inner TxData, enc []byte) {
	tx.inner = inner
	tx.enc = enc[:len(enc):len(enc)]
	if tx.hash.Load() != nil || tx.from.Load() != nil { // a reused Transaction
		tx.hash.Store(nil)
		tx.from.Store(nil)
	}
	tx.size.Store(uint64(len(enc)))
}

// RLPSize is the size of the transaction as an item of a block's list.
func (tx *Transaction) RLPSize() int {
	n := tx.binarySize()
	if tx.inner.txType() == LegacyTxType {
		return n
	}
	return rlp.HeaderSize(n) + n
}

// AppendRLP appends the transaction as an item of a block's list.
func (tx *Transaction) AppendRLP(dst []byte) []byte {
	if tx.inner.txType() != LegacyTxType {
		dst = rlp.AppendStringHeader(dst, tx.binarySize())
	}
	return tx.appendBinary(dst)
}

// decodeRLPItem decodes one transaction item of a list (see AppendRLP) at
// the start of b and returns what follows. It aliases b.
func (tx *Transaction) decodeRLPItem(b []byte, arena *txArena) (rest []byte, err error) {
	k, content, rest, err := rlp.Split(b)
	if err != nil {
		return b, err
	}
	switch k {
	case rlp.List:
		return rest, tx.decodeBinary(b[:len(b)-len(rest)], arena)
	case rlp.String:
		// A typed transaction is at least two bytes, so it is never a
		// single-byte item.
		if len(content) > 0 && content[0] >= 0x80 {
			return b, decodeErr("transaction", ErrLegacyTyped)
		}
		return rest, tx.decodeBinary(content, arena)
	default:
		return b, decodeErr("transaction", ErrTxTooShort)
	}
}

// ---- signing payloads ----

// sigHashInput appends the bytes whose keccak256 is the signing hash.
// chainID is used by EIP-155 legacy transactions only (nil: unprotected).
func (tx *Transaction) appendSigningPayload(dst []byte, chainID *uint256.Int) []byte {
	size := tx.inner.fieldsSize()
	if tx.inner.txType() == LegacyTxType {
		if chainID != nil {
			size += rlp.Uint256Size(chainID) + 2
		}
		dst = rlp.AppendListHeader(dst, size)
		dst = tx.inner.appendFields(dst)
		if chainID != nil {
			dst = rlp.AppendUint256(dst, chainID)
			dst = append(dst, 0x80, 0x80)
		}
		return dst
	}
	dst = append(dst, tx.inner.txType())
	dst = rlp.AppendListHeader(dst, size)
	return tx.inner.appendFields(dst)
}

// txArena hands out payload structs from one slice per type, so decoding a
// block's transactions costs a handful of allocations instead of one per
// transaction. A nil arena allocates each struct on its own.
type txArena struct {
	legacies []LegacyTx
	acls     []AccessListTx
	dyns     []DynamicFeeTx
	blobs    []BlobTx
	setcodes []SetCodeTx
}

// newTxArena sizes an arena for the items of a transaction list's content.
// Malformed items are left for the decoder to report.
func newTxArena(c []byte) *txArena {
	var n [5]int
	for len(c) > 0 {
		k, content, rest, err := rlp.Split(c)
		if err != nil {
			break
		}
		if k == rlp.List {
			n[0]++
		} else if len(content) > 0 && content[0] < 5 {
			n[content[0]]++
		}
		c = rest
	}
	return &txArena{
		legacies: make([]LegacyTx, 0, n[0]), acls: make([]AccessListTx, 0, n[1]), dyns: make([]DynamicFeeTx, 0, n[2]),
		blobs: make([]BlobTx, 0, n[3]), setcodes: make([]SetCodeTx, 0, n[4]),
	}
}

// take returns a pointer to a fresh element of *s, allocating alone once
// the arena's capacity is used up.
func take[T any](s *[]T) *T {
	if len(*s) == cap(*s) {
		return new(T)
	}
	*s = (*s)[:len(*s)+1]
	return &(*s)[len(*s)-1]
}

func (a *txArena) legacy() *LegacyTx {
	if a == nil {
		return new(LegacyTx)
	}
	return take(&a.legacies)
}

// typed returns an empty payload of type t, or nil for an unknown type.
func (a *txArena) typed(t byte) TxData {
	if a == nil {
		a = &txArena{}
	}
	switch t {
	case AccessListTxType:
		return take(&a.acls)
	case DynamicFeeTxType:
		return take(&a.dyns)
	case BlobTxType:
		return take(&a.blobs)
	case SetCodeTxType:
		return take(&a.setcodes)
	}
	return nil
}
