package types

import (
	"bytes"
	"testing"
)

// FuzzTransactionDecode: decoding hostile bytes never panics, and whatever
// decodes re-encodes to exactly the input (the decoder is canonical).
func FuzzTransactionDecode(f *testing.F) {
	for _, tx := range sampleTxs(f, 1) {
		b, _ := tx.MarshalBinary()
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		tx, err := DecodeTx(b)
		if err != nil {
			return
		}
		// Re-encode from the decoded fields, not the cached input bytes.
		enc, _ := NewTx(tx.Inner()).MarshalBinary()
		if !bytes.Equal(enc, b) {
			t.Fatalf("re-encoding differs:\n in %x\nout %x", b, enc)
		}
		if tx.Size() != uint64(len(b)) {
			t.Fatalf("size %d for %d bytes", tx.Size(), len(b))
		}
		// Signature checks must fail cleanly, never panic.
		_, _ = LatestSigner(1).Sender(tx)
		_, _ = tx.EffectiveGasTip(nil)
		_, _ = tx.Cost()
		var back Transaction
		if err := back.UnmarshalJSON(TxJSON(tx, Address{}, nil)); err != nil || back.Hash() != tx.Hash() {
			t.Fatalf("JSON round trip: %v", err)
		}
	})
}

// FuzzTransactionJSON: reading a transaction object from a user never
// panics, and what reads back renders and reads again to the same hash.
func FuzzTransactionJSON(f *testing.F) {
	for _, tx := range sampleTxs(f, 1) {
		f.Add([]byte(TxJSON(tx, Address{}, nil)))
	}
	f.Add([]byte(`{"type":"0x1"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var tx Transaction
		if tx.UnmarshalJSON(b) != nil {
			return
		}
		var again Transaction
		if err := again.UnmarshalJSON(TxJSON(&tx, Address{}, nil)); err != nil || again.Hash() != tx.Hash() {
			t.Fatalf("second round trip: %v", err)
		}
	})
}

// FuzzHeaderDecode: as FuzzTransactionDecode, for headers.
func FuzzHeaderDecode(f *testing.F) {
	h := &Header{Number: 1, GasLimit: 30_000_000, Extra: []byte("x")}
	f.Add(h.EncodeRLP())
	h.BaseFee = new(Header).Difficulty.SetUint64(7)
	h.WithdrawalsHash = hashp(EmptyRootHash)
	h.BlobGasUsed, h.ExcessBlobGas = u64p(1), u64p(2)
	h.ParentBeaconRoot, h.RequestsHash = hashp(Hash{1}), hashp(EmptyRequestsHash)
	f.Add(h.EncodeRLP())
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := DecodeHeader(b)
		if err != nil {
			return
		}
		if enc := h.EncodeRLP(); !bytes.Equal(enc, b) {
			t.Fatalf("re-encoding differs:\n in %x\nout %x", b, enc)
		}
		_ = h.Hash()
		_ = HeaderJSON(h)
	})
}

// FuzzBlockDecode: as above, for whole blocks.
func FuzzBlockDecode(f *testing.F) {
	b := NewBlock(&Header{Number: 5, WithdrawalsHash: hashp(EmptyRootHash)}, &Body{Transactions: sampleTxs(f, 1), Withdrawals: []*Withdrawal{{Index: 1}}})
	f.Add(b.EncodeRLP())
	f.Fuzz(func(t *testing.T, enc []byte) {
		b, err := DecodeBlock(enc)
		if err != nil {
			return
		}
		if out := rebuilt(b).EncodeRLP(); !bytes.Equal(out, enc) {
			t.Fatalf("re-encoding differs:\n in %x\nout %x", enc, out)
		}
	})
}

// FuzzReceiptDecode: consensus receipts decode canonically.
func FuzzReceiptDecode(f *testing.F) {
	r := &Receipt{Type: 2, Status: 1, CumulativeGasUsed: 5, Logs: []*Log{{Topics: []Hash{{1}}, Data: []byte{1}}}}
	enc, _ := r.MarshalBinary()
	f.Add(enc)
	f.Fuzz(func(t *testing.T, b []byte) {
		var r Receipt
		if r.UnmarshalBinary(b) != nil {
			return
		}
		if out, _ := r.MarshalBinary(); !bytes.Equal(out, b) {
			t.Fatalf("re-encoding differs:\n in %x\nout %x", b, out)
		}
	})
}

// rebuilt returns b with every transaction rebuilt from its fields, so that
// encoding cannot just copy cached input bytes.
func rebuilt(b *Block) *Block {
	body := b.Body()
	txs := make([]*Transaction, len(body.Transactions))
	for i, tx := range body.Transactions {
		txs[i] = NewTx(tx.Inner())
	}
	body.Transactions = txs
	return NewBlock(b.Header(), body)
}
