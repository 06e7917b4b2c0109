//go:build amd64 && !purego

package precompile

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestBlake2fAVX2MatchesGeneric compares the assembly F with the Go one
// over random state, message, counter and flag for every round count up
// to a few full SIGMA cycles, plus some long runs.
func TestBlake2fAVX2MatchesGeneric(t *testing.T) {
	if !blake2fUseAVX2 {
		t.Skip("CPU without AVX2: the assembly is not in use")
	}
	r := rand.New(rand.NewPCG(11, 12))
	var in [208]byte
	rounds := []uint32{1000, 1 << 16, 12345}
	for n := uint32(0); n <= 41; n++ {
		rounds = append(rounds, n)
	}
	for _, n := range rounds {
		for it := 0; it < 20; it++ {
			for i := range in {
				in[i] = byte(r.Uint32())
			}
			if it == 0 {
				clear(in[:])
			}
			final := it%2 == 1
			var got, want [64]byte
			blake2fCompress(&got, &in, n, final)
			blake2fCompressGeneric(&want, &in, n, final)
			if got != want {
				t.Fatalf("rounds %d final %v: got %x want %x", n, final, got, want)
			}
		}
	}
}

func BenchmarkBlake2fAVX2Round(b *testing.B) {
	if !blake2fUseAVX2 {
		b.Skip("no AVX2")
	}
	var in [208]byte
	var out [64]byte
	const chunk = 1 << 20
	for n := b.N; n > 0; n -= chunk {
		blake2fAVX2(&out, &in, uint64(min(n, chunk)), 0)
	}
}

// FuzzBlake2fAVX2 compares the assembly F with the Go one.
func FuzzBlake2fAVX2(f *testing.F) {
	if !blake2fUseAVX2 {
		f.Skip("CPU without AVX2: the assembly is not in use")
	}
	f.Add(make([]byte, 208), uint16(12), true)
	f.Add(bytes.Repeat([]byte{0xff}, 208), uint16(0), false)
	f.Add(bytes.Repeat([]byte{0x5a}, 208), uint16(23), true)
	f.Fuzz(func(t *testing.T, data []byte, rounds uint16, final bool) {
		var in [208]byte
		copy(in[:], data)
		var got, want [64]byte
		blake2fCompress(&got, &in, uint32(rounds%256), final)
		blake2fCompressGeneric(&want, &in, uint32(rounds%256), final)
		if got != want {
			t.Fatalf("rounds %d final %v input %x: got %x want %x", rounds%256, final, in, got, want)
		}
	})
}
