package precompile

import (
	"encoding/hex"
	"testing"

	"github.com/chaind/chaind/internal/types"
)

// FuzzRun feeds arbitrary input to every precompile of the latest set:
// nothing may panic, and RequiredGas must be deterministic.
func FuzzRun(f *testing.F) {
	for _, k := range []string{
		"",
		"00000000000000000000000000000000000000000000000000000000000000010000000000000000000000000000000000000000000000000000000000000020000000000000000000000000000000000000000000000000000000000000002003",
		"0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000ffff",
		"000000000000000000000000000000000000000000000000000000000000014100000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
	} {
		b, _ := hex.DecodeString(k)
		for a := uint16(1); a <= 0x11; a++ {
			f.Add(a, b)
		}
		f.Add(uint16(0x100), b)
	}
	f.Fuzz(func(t *testing.T, a uint16, input []byte) {
		var addr types.Address
		addr[18], addr[19] = byte(a>>8), byte(a)
		for _, s := range []*Set{Byzantium, Istanbul, Berlin, Osaka} {
			c, ok := s.Get(addr)
			if !ok {
				continue
			}
			g := c.RequiredGas(input)
			if g != c.RequiredGas(input) {
				t.Fatal("RequiredGas not deterministic")
			}
			// Mirror the EVM: never run what could not be paid for.
			if g > 30_000_000 {
				continue
			}
			c.Run(input)
		}
	})
}

// TestModExpZeroModLenPastInput is a regression test: a zero-length
// modulus placed past the end of the input must not be sliced.
func TestModExpZeroModLenPastInput(t *testing.T) {
	in := make([]byte, 96+4)
	in[31] = 2  // base length 2
	in[63] = 40 // exponent length 40, running past the input
	in[96] = 1
	for _, s := range []*Set{Byzantium, Osaka} {
		c, _ := s.Get(types.Address{19: 5})
		if out, err := c.Run(in); err != nil || len(out) != 0 {
			t.Fatalf("got %x, %v", out, err)
		}
	}
}
