package bn254

import (
	"bytes"
	"testing"
)

// FuzzDecode feeds hostile bytes to the three precompile entry points:
// they must return an error or a well-formed result, never panic, and a
// successful Add/ScalarMul output must decode again as a curve point.
func FuzzDecode(f *testing.F) {
	f.Add(uint8(0), append(append([]byte{}, g1Gen...), g1Gen...))
	f.Add(uint8(1), append(append([]byte{}, g1Gen...), bytes.Repeat([]byte{0xff}, 32)...))
	f.Add(uint8(2), pairInput(g1Gen, g2Gen, negG1(g1Gen), g2Gen))
	f.Add(uint8(2), pairInput(g1Gen, bytes.Repeat([]byte{0x11}, 128)))
	f.Add(uint8(0), []byte{})
	f.Fuzz(func(t *testing.T, op uint8, in []byte) {
		switch op % 3 {
		case 0, 1:
			var out []byte
			var err error
			if op%3 == 0 {
				out, err = Add(in)
			} else {
				out, err = ScalarMul(in)
			}
			if err != nil {
				return
			}
			var p g1Aff
			if len(out) != 64 || decodeG1(&p, out) != nil {
				t.Fatalf("bad output %x", out)
			}
		case 2:
			if len(in) > 4*pairLen {
				in = in[:4*pairLen]
			}
			out, err := PairingCheck(in)
			if err == nil && (len(out) != 32 || out[31] > 1) {
				t.Fatalf("bad output %x", out)
			}
		}
	})
}
