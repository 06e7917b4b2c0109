//go:build amd64 && !purego

package crypto

import (
	"math/rand/v2"
	"testing"
)

// checkKeccakAVX512 applies the Go permutation and both assembly ones
// to copies of s and fails t if they disagree: the full one on the whole
// state, the digest one on the four lanes it computes (and it must leave
// the others as they were).
func checkKeccakAVX512(t *testing.T, s [25]uint64) {
	t.Helper()
	want, got, dig := s, s, s
	keccakF1600Generic(&want)
	keccakF1600AVX512(&got)
	if got != want {
		t.Fatalf("state %x:\nAVX-512 %x\nGo      %x", s, got, want)
	}
	keccakF1600DigestAVX512(&dig)
	if [4]uint64(dig[:4]) != [4]uint64(want[:4]) || [21]uint64(dig[4:]) != [21]uint64(s[4:]) {
		t.Fatalf("state %x:\ndigest  %x\nGo      %x", s, dig, want)
	}
}

func TestKeccakF1600AVX512MatchesGo(t *testing.T) {
	if !useKeccakAVX512 {
		t.Skip("SKIPPED: this CPU has no AVX-512 F+VL; the Go permutation runs")
	}
	rng := rand.New(rand.NewPCG(11, 12))
	var s [25]uint64
	checkKeccakAVX512(t, s)
	for i := 0; i < 2000; i++ {
		for j := range s {
			s[j] = rng.Uint64()
		}
		checkKeccakAVX512(t, s)
	}
	// A chain of permutations, each from the last one's output, as a
	// keccak256 of many blocks runs them.
	a, g := s, s
	for i := 0; i < 1000; i++ {
		keccakF1600Generic(&g)
		keccakF1600AVX512(&a)
		if a != g {
			t.Fatalf("chain step %d:\nAVX-512 %x\nGo      %x", i, a, g)
		}
	}
	// Single bits, so every lane's rotation and position is seen alone.
	for lane := 0; lane < 25; lane++ {
		for bit := 0; bit < 64; bit += 7 {
			s = [25]uint64{}
			s[lane] = 1 << bit
			checkKeccakAVX512(t, s)
		}
	}
}

func FuzzKeccakF1600AVX512(f *testing.F) {
	f.Add(make([]byte, 200))
	f.Add([]byte("\x01\x02\x03"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if !useKeccakAVX512 {
			t.Skip("no AVX-512 F+VL")
		}
		var s [25]uint64
		for i, c := range b {
			if i >= 200 {
				break
			}
			s[i/8] |= uint64(c) << (8 * (i % 8))
		}
		checkKeccakAVX512(t, s)
	})
}

func BenchmarkKeccakF1600(b *testing.B) {
	var s [25]uint64
	b.Run("go", func(b *testing.B) {
		for b.Loop() {
			keccakF1600Generic(&s)
		}
	})
	if useKeccakAVX512 {
		b.Run("avx512", func(b *testing.B) {
			for b.Loop() {
				keccakF1600AVX512(&s)
			}
		})
		b.Run("avx512digest", func(b *testing.B) {
			for b.Loop() {
				keccakF1600DigestAVX512(&s)
			}
		})
	}
}

// TestKeccak256WordAVX512 checks the whole-hash assembly for 32- and
// 64-byte inputs against the Go sponge: random inputs, single bits, and
// a chain where each input is the last digest (KECCAK256 in a loop).
func TestKeccak256WordAVX512(t *testing.T) {
	if !useKeccakAVX512 {
		t.Skip("SKIPPED: this CPU has no AVX-512 F+VL; the Go sponge runs")
	}
	rng := rand.New(rand.NewPCG(13, 14))
	check := func(in []byte) {
		t.Helper()
		var got [4]uint64
		if !hashWordFast(&got, in) {
			t.Fatalf("no assembly hash for %d bytes", len(in))
		}
		var h [32]byte
		keccak256Into(&h, [][]byte{in})
		want := [4]uint64{}
		for i := range 4 {
			want[3-i] = uint64(h[8*i])<<56 | uint64(h[8*i+1])<<48 | uint64(h[8*i+2])<<40 | uint64(h[8*i+3])<<32 |
				uint64(h[8*i+4])<<24 | uint64(h[8*i+5])<<16 | uint64(h[8*i+6])<<8 | uint64(h[8*i+7])
		}
		if got != want {
			t.Fatalf("keccak256(%x):\nassembly %x\nsponge   %x", in, got, want)
		}
	}
	for _, n := range []int{32, 64} {
		in := make([]byte, n)
		check(in)
		for i := 0; i < 500; i++ {
			for j := range in {
				in[j] = byte(rng.Uint32())
			}
			check(in)
		}
		for bit := 0; bit < 8*n; bit += 5 {
			clear(in)
			in[bit/8] = 1 << (bit % 8)
			check(in)
		}
	}
	var z [4]uint64
	in := make([]byte, 32)
	for i := 0; i < 100; i++ {
		check(in)
		HashWordInto(&z, in)
		for k := range 4 {
			for b := range 8 {
				in[8*k+b] = byte(z[3-k] >> (56 - 8*b))
			}
		}
	}
}
