package types

import (
	"errors"
	"testing"

	"github.com/chaind/chaind/internal/forks"
	"github.com/holiman/uint256"
)

func TestImpersonatedSignature(t *testing.T) {
	who := Address{0xde, 0xad, 0xbe, 0xef, 19: 0x01}
	to := Address{0x02}
	for _, inner := range []TxData{
		&LegacyTx{Nonce: 3, GasPrice: *uint256.NewInt(7), Gas: 21000, To: &to},
		&AccessListTx{ChainID: *uint256.NewInt(1337), Nonce: 3, GasPrice: *uint256.NewInt(7), Gas: 21000, To: &to},
		&DynamicFeeTx{ChainID: *uint256.NewInt(1337), Nonce: 3, GasTipCap: *uint256.NewInt(1), GasFeeCap: *uint256.NewInt(9), Gas: 21000, To: &to},
	} {
		plain := NewSigner(1337, forks.Prague)
		dev := plain.WithImpersonation()
		tx, err := NewTx(inner).WithSignature(dev, ImpersonatedSignature(who))
		if err != nil {
			t.Fatal(err)
		}
		// Decoded afresh, as a stored block's transaction is: no cache.
		raw, _ := tx.MarshalBinary()
		fresh := new(Transaction)
		if err := fresh.UnmarshalBinary(raw); err != nil {
			t.Fatal(err)
		}
		if _, err := plain.Sender(fresh); !errors.Is(err, ErrInvalidSig) {
			t.Errorf("type %d: a plain signer accepted the marker (err %v)", tx.Type(), err)
		}
		if got, err := dev.Sender(fresh); err != nil || got != who {
			t.Errorf("type %d: dev signer says %s, %v; want %s", tx.Type(), got, err, who)
		}
		// The sender cached by the dev signer is not handed to a plain one.
		if _, err := plain.Sender(fresh); !errors.Is(err, ErrInvalidSig) {
			t.Errorf("type %d: plain signer used the dev signer's cache (err %v)", tx.Type(), err)
		}
	}
}
