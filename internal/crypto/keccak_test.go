package crypto

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"golang.org/x/crypto/sha3"
)

func TestKeccakMatchesXCrypto(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for n := 0; n < 700; n++ {
		data := make([]byte, n)
		fillRand(rng, data)
		ref := sha3.NewLegacyKeccak256()
		ref.Write(data)
		want := ref.Sum(nil)
		var got [32]byte
		HashInto(&got, data)
		if !bytes.Equal(got[:], want) {
			t.Fatalf("len %d: %x, want %x", n, got, want)
		}
		// Split at every kind of boundary, including empty pieces.
		cut1 := rng.IntN(n + 1)
		cut2 := cut1 + rng.IntN(n-cut1+1)
		HashInto(&got, data[:cut1], nil, data[cut1:cut2], data[cut2:])
		if !bytes.Equal(got[:], want) {
			t.Fatalf("len %d split %d/%d: %x, want %x", n, cut1, cut2, got, want)
		}
	}
}

func TestHashIntoStackInputDoesNotAllocate(t *testing.T) {
	var out [32]byte
	if n := testing.AllocsPerRun(100, func() {
		var word [64]byte
		word[3] = 1
		HashInto(&out, word[:32], word[32:])
	}); n != 0 {
		t.Errorf("HashInto of a stack buffer allocates %.0f times", n)
	}
}

func FuzzKeccak(f *testing.F) {
	f.Add([]byte(""), 0)
	f.Add(bytes.Repeat([]byte{0xaa}, 300), 135)
	f.Fuzz(func(t *testing.T, data []byte, cut int) {
		ref := sha3.NewLegacyKeccak256()
		ref.Write(data)
		want := ref.Sum(nil)
		if cut < 0 || cut > len(data) {
			cut = len(data) / 2
		}
		var got [32]byte
		HashInto(&got, data[:cut], data[cut:])
		if !bytes.Equal(got[:], want) {
			t.Fatalf("%x", data)
		}
	})
}

// BenchmarkKeccak64 is the KECCAK256 opcode's usual input (a mapping
// slot's key and position): the one-shot HashInto against the streaming
// x/crypto state the opcode used before.
func BenchmarkKeccak64(b *testing.B) {
	var in [64]byte
	var out [32]byte
	b.Run("HashInto", func(b *testing.B) {
		for b.Loop() {
			HashInto(&out, in[:])
		}
	})
	b.Run("xcrypto", func(b *testing.B) {
		h := NewKeccak()
		for b.Loop() {
			h.Reset()
			h.Write(in[:])
			h.Read(out[:])
		}
	})
}

// TestHashWordMatchesHashInto checks the opcode's word form against the
// byte form on both of its paths (one block, and longer inputs).
func TestHashWordMatchesHashInto(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for n := 0; n < 300; n++ {
		data := make([]byte, n)
		fillRand(rng, data)
		var h [32]byte
		HashInto(&h, data)
		w0, w1, w2, w3 := HashWord(data)
		for i, w := range [4]uint64{w3, w2, w1, w0} {
			if got := binary.BigEndian.Uint64(h[8*i:]); got != w {
				t.Fatalf("len %d word %d: %x, want %x", n, 3-i, w, got)
			}
		}
	}
}
