package types

import (
	"bytes"
	"testing"

	"github.com/holiman/uint256"
)

// benchBlock is a block of 200 transactions cycling through every type,
// like the peerbench one (internal/peerbench/rlp.go).
func benchBlock(b *testing.B) (*Block, []byte) {
	base := sampleTxs(b, 1)
	key := testKey(b, 1)
	s := LatestSigner(1)
	txs := make([]*Transaction, 200)
	for i := range txs {
		inner := base[i%len(base)].Inner()
		switch x := inner.(type) {
		case *LegacyTx:
			x.Nonce, x.Data = uint64(i), bytes.Repeat([]byte{byte(i), 0}, i%70)
		case *DynamicFeeTx:
			x.Nonce, x.Data = uint64(i), bytes.Repeat([]byte{byte(i), 0}, i%70)
		}
		tx, err := SignTx(NewTx(inner), s, key)
		if err != nil {
			b.Fatal(err)
		}
		txs[i] = tx
	}
	blk := NewBlock(&Header{Number: 1, BaseFee: uint256.NewInt(7), WithdrawalsHash: hashp(EmptyRootHash)}, &Body{Transactions: txs, Withdrawals: []*Withdrawal{}})
	return blk, blk.EncodeRLP()
}

func BenchmarkBlockEncode(b *testing.B) {
	blk, enc := benchBlock(b)
	buf := make([]byte, 0, len(enc))
	b.SetBytes(int64(len(enc)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		buf = blk.AppendRLP(buf[:0])
	}
}

func BenchmarkBlockDecode(b *testing.B) {
	_, enc := benchBlock(b)
	b.SetBytes(int64(len(enc)))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := DecodeBlock(enc); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTxHash(b *testing.B) {
	blk, _ := benchBlock(b)
	inner := blk.Transactions()[2].Inner()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		NewTx(inner).Hash()
	}
}

func BenchmarkSender(b *testing.B) {
	blk, _ := benchBlock(b)
	bin, _ := blk.Transactions()[2].MarshalBinary()
	s := LatestSigner(1)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tx, _ := DecodeTx(bin)
		if _, err := s.Sender(tx); err != nil {
			b.Fatal(err)
		}
	}
}
