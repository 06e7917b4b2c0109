package types

import (
	"bytes"

	"github.com/chaind/chaind/rlp"
)

// Encodings of lists that the store and the p2p layer exchange on their
// own: a block body without its header, and a block's receipts.

func (b *Body) contentSizes() (txs, uncles, wds int) {
	for _, tx := range b.Transactions {
		txs += tx.RLPSize()
	}
	for _, u := range b.Uncles {
		uncles += u.EncodedSize()
	}
	for _, w := range b.Withdrawals {
		wds += w.EncodedSize()
	}
	return
}

// AppendRLP appends rlp([txs, uncles(, withdrawals)]), the body as the eth
// protocol's BlockBodies message carries it. Withdrawals are present when
// non-nil.
func (b *Body) AppendRLP(dst []byte) []byte {
	txs, uncles, wds := b.contentSizes()
	content := rlp.ListSize(txs) + rlp.ListSize(uncles)
	if b.Withdrawals != nil {
		content += rlp.ListSize(wds)
	}
	dst = growBy(dst, rlp.ListSize(content))
	dst = rlp.AppendListHeader(dst, content)
	dst = rlp.AppendListHeader(dst, txs)
	for _, tx := range b.Transactions {
		dst = tx.AppendRLP(dst)
	}
	dst = rlp.AppendListHeader(dst, uncles)
	for _, u := range b.Uncles {
		dst = u.AppendRLP(dst)
	}
	if b.Withdrawals != nil {
		dst = rlp.AppendListHeader(dst, wds)
		for _, w := range b.Withdrawals {
			dst = w.AppendRLP(dst)
		}
	}
	return dst
}

// EncodeRLP returns the body's encoding.
func (b *Body) EncodeRLP() []byte { return b.AppendRLP(nil) }

// DecodeBody decodes what Body.AppendRLP wrote. The input is copied once.
func DecodeBody(enc []byte) (*Body, error) {
	enc = bytes.Clone(enc)
	content, err := splitOneList(enc)
	if err != nil {
		return nil, decodeErr("body", err)
	}
	d := decoder{b: content}
	body, err := decodeBodyItems(&d)
	if err != nil {
		return nil, err
	}
	d.end()
	if d.err != nil {
		return nil, decodeErr("body", d.err)
	}
	return body, nil
}

// decodeBodyItems reads the transactions, uncles and optional withdrawals
// lists that follow the header in a block (or make up a body). Byte fields
// alias the decoder's input.
func decodeBodyItems(d *decoder) (*Body, error) {
	body := new(Body)
	txs := d.list()
	if d.err != nil {
		return nil, decodeErr("transactions", d.err)
	}
	var err error
	if body.Transactions, err = decodeTxList(txs); err != nil {
		return nil, err
	}
	uc := d.list()
	if d.err != nil {
		return nil, decodeErr("uncles", d.err)
	}
	for len(uc) > 0 {
		c, rest, err := rlp.SplitList(uc)
		if err != nil {
			return nil, decodeErr("uncle", err)
		}
		u := new(Header)
		if err := u.decodeContent(c); err != nil {
			return nil, err
		}
		body.Uncles = append(body.Uncles, u)
		uc = rest
	}
	if d.more() {
		wc := d.list()
		if d.err != nil {
			return nil, decodeErr("withdrawals", d.err)
		}
		body.Withdrawals = []*Withdrawal{}
		for len(wc) > 0 {
			c, rest, err := rlp.SplitList(wc)
			if err != nil {
				return nil, decodeErr("withdrawal", err)
			}
			w := new(Withdrawal)
			if err := w.decodeContent(c); err != nil {
				return nil, err
			}
			body.Withdrawals = append(body.Withdrawals, w)
			wc = rest
		}
	}
	return body, nil
}

// decodeTxList decodes the content of a transaction list with one
// allocation for all Transaction structs.
func decodeTxList(c []byte) ([]*Transaction, error) {
	n, err := rlp.CountValues(c)
	if err != nil {
		return nil, decodeErr("transactions", err)
	}
	if n == 0 {
		return nil, nil
	}
	store := make([]Transaction, n)
	txs := make([]*Transaction, n)
	arena := newTxArena(c)
	for i := range store {
		tx := &store[i]
		rest, err := tx.decodeRLPItem(c, arena)
		if err != nil {
			return nil, err
		}
		txs[i] = tx
		c = rest
	}
	return txs, nil
}

// AppendReceiptsRLP appends a block's receipts as one list whose items are
// the consensus encodings: legacy receipts as lists, typed ones as byte
// strings holding type || rlp (the eth protocol's Receipts message form).
func AppendReceiptsRLP(dst []byte, receipts []*Receipt) []byte {
	var items [][]byte
	size := 0
	for _, r := range receipts {
		enc := r.AppendBinary(nil)
		items = append(items, enc)
		if r.Type == LegacyTxType {
			size += len(enc)
		} else {
			size += rlp.HeaderSize(len(enc)) + len(enc)
		}
	}
	dst = rlp.AppendListHeader(dst, size)
	for i, r := range receipts {
		if r.Type == LegacyTxType {
			dst = append(dst, items[i]...)
		} else {
			dst = rlp.AppendString(dst, items[i])
		}
	}
	return dst
}

// DecodeReceiptsRLP decodes AppendReceiptsRLP's form (consensus fields only).
func DecodeReceiptsRLP(enc []byte) ([]*Receipt, error) {
	content, err := splitOneList(enc)
	if err != nil {
		return nil, decodeErr("receipts", err)
	}
	out := []*Receipt{}
	for len(content) > 0 {
		k, c, rest, err := rlp.Split(content)
		if err != nil {
			return nil, decodeErr("receipts", err)
		}
		item := c
		if k == rlp.List {
			item = content[:len(content)-len(rest)]
		} else if len(c) == 0 || c[0] >= 0x80 {
			return nil, decodeErr("receipts", ErrLegacyTyped)
		}
		r := new(Receipt)
		if err := r.UnmarshalBinary(item); err != nil {
			return nil, err
		}
		out = append(out, r)
		content = rest
	}
	return out, nil
}
