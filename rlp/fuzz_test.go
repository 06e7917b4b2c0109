package rlp

import (
	"bytes"
	"encoding/hex"
	"testing"
)

// FuzzDecode checks that the decoder never panics and that every input it
// accepts is canonical: decoding then encoding gives the input back.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{"80", "00", "7f", "8180", "c0", "c7c0c1c0c3c0c1c0", "f84180" + "00"} {
		b, _ := unhexOK(s)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		verr := Validate(b)
		it, err := DecodeItem(b)
		if err != nil {
			if verr == nil && err != ErrTooDeep {
				t.Fatalf("Validate accepted what DecodeItem rejected: %v", err)
			}
			return
		}
		if verr != nil {
			t.Fatalf("DecodeItem accepted what Validate rejected: %v", verr)
		}
		if enc := it.Encode(); !bytes.Equal(enc, b) {
			t.Fatalf("round trip: in %x out %x", b, enc)
		}
		// The typed helpers must agree with the generic decoder.
		if !it.List {
			if s, rest, err := SplitString(b); err != nil || len(rest) != 0 || !bytes.Equal(s, it.Bytes) {
				t.Fatalf("SplitString disagrees: %v", err)
			}
			if x, _, err := SplitUint64(b); err == nil && !bytes.Equal(EncodeUint64(x), b) {
				t.Fatalf("uint64 round trip: %x", b)
			}
		}
	})
}

func unhexOK(s string) ([]byte, error) { return hex.DecodeString(s) }
