package types

import (
	"testing"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/holiman/uint256"
)

func TestShareSender(t *testing.T) {
	key, _ := crypto.GenerateKey()
	s := LatestSigner(1)
	to := Address{1}
	mk := func(nonce uint64) *Transaction {
		tx, err := SignTx(NewTx(&DynamicFeeTx{ChainID: *uint256.NewInt(1), Nonce: nonce, To: &to, Gas: 21000, GasFeeCap: *uint256.NewInt(1), GasTipCap: *uint256.NewInt(1)}), s, key)
		if err != nil {
			t.Fatal(err)
		}
		return tx
	}
	pooled := mk(0)
	want, err := s.Sender(pooled)
	if err != nil {
		t.Fatal(err)
	}
	enc, _ := pooled.MarshalBinary()
	fresh := new(Transaction)
	if err := fresh.UnmarshalBinary(enc); err != nil {
		t.Fatal(err)
	}
	if fresh.from.Load() != nil {
		t.Fatal("a decoded transaction has a sender before anyone recovered it")
	}
	other := mk(1)
	if _, err := s.Sender(other); err != nil {
		t.Fatal(err)
	}
	if fresh.ShareSender(other) {
		t.Fatal("took the sender of another transaction")
	}
	if !fresh.ShareSender(pooled) {
		t.Fatal("did not take the sender of the same transaction")
	}
	if got := fresh.from.Load(); got == nil || got.from != want {
		t.Fatalf("shared sender %v, want %x", got, want)
	}
}
