package types

import (
	"bytes"
	"sync/atomic"

	"github.com/chaind/chaind/rlp"
	"github.com/holiman/uint256"
)

// Withdrawal is an EIP-4895 withdrawal from the beacon chain (on chaind, a
// credit made by the protocol). Amount is in gwei.
type Withdrawal struct {
	Index     uint64
	Validator uint64
	Address   Address
	Amount    uint64
}

// Withdrawals is the withdrawal list of one block.
type Withdrawals []*Withdrawal

func (w *Withdrawal) contentSize() int {
	return rlp.Uint64Size(w.Index) + rlp.Uint64Size(w.Validator) + addressSize + rlp.Uint64Size(w.Amount)
}

// EncodedSize is the size of the withdrawal's RLP encoding.
func (w *Withdrawal) EncodedSize() int { return rlp.ListSize(w.contentSize()) }

// AppendRLP appends rlp([index, validator, address, amount]).
func (w *Withdrawal) AppendRLP(dst []byte) []byte {
	dst = rlp.AppendListHeader(dst, w.contentSize())
	dst = rlp.AppendUint64(dst, w.Index)
	dst = rlp.AppendUint64(dst, w.Validator)
	dst = appendAddress(dst, &w.Address)
	return rlp.AppendUint64(dst, w.Amount)
}

// DecodeRLP decodes one withdrawal item.
func (w *Withdrawal) DecodeRLP(b []byte) error {
	c, err := splitOneList(b)
	if err != nil {
		return decodeErr("withdrawal", err)
	}
	return w.decodeContent(c)
}

func (w *Withdrawal) decodeContent(c []byte) error {
	d := decoder{b: c}
	w.Index = d.uint64()
	w.Validator = d.uint64()
	d.address(&w.Address)
	w.Amount = d.uint64()
	d.end()
	return decodeErr("withdrawal", d.err)
}

// Body is the part of a block besides the header.
type Body struct {
	Transactions []*Transaction
	Uncles       []*Header
	Withdrawals  []*Withdrawal // nil before Shanghai: absent from the encoding
}

// Block is an immutable block: a header and a body. Its hash and size are
// computed once.
type Block struct {
	header       *Header
	transactions Transactions
	uncles       []*Header
	withdrawals  Withdrawals

	hash atomic.Pointer[Hash]
	size atomic.Uint64
}

// NewBlock assembles a block from a header and a body as given; it does not
// recompute any root in the header (types cannot build tries: see
// DeriveRoot). Header and body slices are copied.
func NewBlock(header *Header, body *Body) *Block {
	b := &Block{header: header.Copy()}
	if body != nil {
		b.transactions = append(Transactions(nil), body.Transactions...)
		b.uncles = make([]*Header, len(body.Uncles))
		for i, u := range body.Uncles {
			b.uncles[i] = u.Copy()
		}
		if body.Withdrawals != nil {
			b.withdrawals = make(Withdrawals, len(body.Withdrawals))
			for i, w := range body.Withdrawals {
				c := *w
				b.withdrawals[i] = &c
			}
		}
	}
	return b
}

// NewBlockWithHeader returns a block with an empty body.
func NewBlockWithHeader(header *Header) *Block { return &Block{header: header.Copy()} }

// WithBody returns a copy of b with a different body.
func (b *Block) WithBody(body Body) *Block { return NewBlock(b.header, &body) }

// Header returns a copy of the header.
func (b *Block) Header() *Header { return b.header.Copy() }

// HeaderRef returns the header without copying; callers must not modify it.
func (b *Block) HeaderRef() *Header { return b.header }

// Body returns the body; its slices must not be modified.
func (b *Block) Body() *Body {
	return &Body{Transactions: b.transactions, Uncles: b.uncles, Withdrawals: b.withdrawals}
}

// Transactions returns the block's transactions; do not modify the slice.
func (b *Block) Transactions() Transactions { return b.transactions }

// Transaction returns the transaction with the given hash, or nil.
func (b *Block) Transaction(hash Hash) *Transaction {
	for _, tx := range b.transactions {
		if tx.Hash() == hash {
			return tx
		}
	}
	return nil
}

// Uncles returns the ommer headers (always empty after the merge).
func (b *Block) Uncles() []*Header { return b.uncles }

// Withdrawals returns the withdrawals, nil before Shanghai.
func (b *Block) Withdrawals() Withdrawals { return b.withdrawals }

// Number returns the block number.
func (b *Block) Number() uint64 { return b.header.Number }

// Time returns the block timestamp in seconds.
func (b *Block) Time() uint64 { return b.header.Time }

// GasLimit returns the block gas limit.
func (b *Block) GasLimit() uint64 { return b.header.GasLimit }

// GasUsed returns the gas used by all transactions.
func (b *Block) GasUsed() uint64 { return b.header.GasUsed }

// ParentHash returns the hash of the parent block.
func (b *Block) ParentHash() Hash { return b.header.ParentHash }

// Coinbase returns the fee recipient.
func (b *Block) Coinbase() Address { return b.header.Coinbase }

// Root returns the state root.
func (b *Block) Root() Hash { return b.header.Root }

// BaseFee returns a copy of the base fee, nil before London.
func (b *Block) BaseFee() *uint256.Int {
	if b.header.BaseFee == nil {
		return nil
	}
	return new(uint256.Int).Set(b.header.BaseFee)
}

// Hash returns the block hash (the header hash).
func (b *Block) Hash() Hash {
	if h := b.hash.Load(); h != nil {
		return *h
	}
	h := b.header.Hash()
	b.hash.Store(&h)
	return h
}

// Size returns the size of the block's RLP encoding in bytes.
func (b *Block) Size() uint64 {
	if s := b.size.Load(); s != 0 {
		return s
	}
	s := uint64(b.EncodedSize())
	b.size.Store(s)
	return s
}

func (b *Block) txsContentSize() int {
	n := 0
	for _, tx := range b.transactions {
		n += tx.RLPSize()
	}
	return n
}

func (b *Block) unclesContentSize() int {
	n := 0
	for _, u := range b.uncles {
		n += u.EncodedSize()
	}
	return n
}

func (b *Block) withdrawalsContentSize() int {
	n := 0
	for _, w := range b.withdrawals {
		n += w.EncodedSize()
	}
	return n
}

func (b *Block) contentSize(txs, uncles, wds int) int {
	n := b.header.EncodedSize() + rlp.ListSize(txs) + rlp.ListSize(uncles)
	if b.withdrawals != nil {
		n += rlp.ListSize(wds)
	}
	return n
}

// EncodedSize is the size of the block's RLP encoding.
func (b *Block) EncodedSize() int {
	return rlp.ListSize(b.contentSize(b.txsContentSize(), b.unclesContentSize(), b.withdrawalsContentSize()))
}

// AppendRLP appends rlp([header, txs, uncles(, withdrawals)]) to dst. Typed
// transactions are byte strings inside the list.
func (b *Block) AppendRLP(dst []byte) []byte {
	txs, uncles, wds := b.txsContentSize(), b.unclesContentSize(), b.withdrawalsContentSize()
	content := b.contentSize(txs, uncles, wds)
	dst = growBy(dst, rlp.ListSize(content))
	dst = rlp.AppendListHeader(dst, content)
	dst = b.header.AppendRLP(dst)
	dst = rlp.AppendListHeader(dst, txs)
	for _, tx := range b.transactions {
		dst = tx.AppendRLP(dst)
	}
	dst = rlp.AppendListHeader(dst, uncles)
	for _, u := range b.uncles {
		dst = u.AppendRLP(dst)
	}
	if b.withdrawals != nil {
		dst = rlp.AppendListHeader(dst, wds)
		for _, w := range b.withdrawals {
			dst = w.AppendRLP(dst)
		}
	}
	return dst
}

// EncodeRLP returns the block's RLP encoding.
func (b *Block) EncodeRLP() []byte { return b.AppendRLP(nil) }

// DecodeBlock decodes the RLP encoding of a block. The input is copied once
// and the block's byte fields point into that copy.
func DecodeBlock(enc []byte) (*Block, error) {
	b := new(Block)
	if err := b.DecodeRLP(enc); err != nil {
		return nil, err
	}
	return b, nil
}

// DecodeRLP decodes a block from exactly one RLP item (see DecodeBlock).
func (b *Block) DecodeRLP(enc []byte) error {
	size := len(enc)
	enc = bytes.Clone(enc)
	content, err := splitOneList(enc)
	if err != nil {
		return decodeErr("block", err)
	}
	d := decoder{b: content}
	hc := d.list()
	if d.err != nil {
		return decodeErr("block header", d.err)
	}
	*b = Block{header: new(Header)}
	if err := b.header.decodeContent(hc); err != nil {
		return err
	}
	body, err := decodeBodyItems(&d)
	if err != nil {
		return err
	}
	b.transactions, b.uncles, b.withdrawals = body.Transactions, body.Uncles, body.Withdrawals
	d.end()
	if d.err != nil {
		return decodeErr("block", d.err)
	}
	b.size.Store(uint64(size))
	return nil
}
