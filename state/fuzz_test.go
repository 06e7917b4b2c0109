package state

import (
	"bytes"
	"testing"

	"github.com/chaind/chaind/internal/types"
)

// FuzzDecodeAccount feeds hostile account leaves to the decoder: it must
// return an error or an account that encodes back to the same bytes.
func FuzzDecodeAccount(f *testing.F) {
	a := newAccount()
	f.Add(a.AppendRLP(nil))
	a.Nonce, a.Root = 1<<40, types.Hash{1}
	a.Balance.SetAllOne()
	f.Add(a.AppendRLP(nil))
	f.Add([]byte{0xc0})
	f.Add([]byte{0xc4, 0x80, 0x80, 0x80, 0x80})
	f.Add([]byte{0xf8, 0x44, 0x00})
	f.Fuzz(func(t *testing.T, b []byte) {
		acct, err := DecodeAccount(b)
		if err != nil {
			return
		}
		if enc := acct.AppendRLP(nil); !bytes.Equal(enc, b) {
			t.Fatalf("decoded %x, re-encoded %x", b, enc)
		}
	})
}

// FuzzStorageValue checks the slot value codec the same way.
func FuzzStorageValue(f *testing.F) {
	f.Add([]byte{0x01})
	f.Add([]byte{0x80})
	f.Add([]byte{0x81, 0x00})
	f.Add(append([]byte{0xa0}, bytes.Repeat([]byte{0xff}, 32)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := decodeStorageValue(b)
		if err != nil {
			return
		}
		if enc := appendStorageValue(nil, &v); !bytes.Equal(enc, b) {
			t.Fatalf("decoded %x as %x, re-encoded %x", b, v, enc)
		}
	})
}
