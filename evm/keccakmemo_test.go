package evm

import (
	"math/rand"
	"testing"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/holiman/uint256"
)

// TestKeccakMemo hashes a stream of 32- and 64-byte inputs drawn from a
// small pool (so entries hit, collide and get replaced, and a 32-byte
// input is the prefix of a 64-byte one) and other lengths: every answer
// must be keccak256 of the input.
func TestKeccakMemo(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	pool := make([][]byte, 200)
	for i := range pool {
		b := make([]byte, 64)
		r.Read(b[:])
		if i%3 == 0 {
			clear(b[:44]) // a mapping key: a zero-padded address, then a small slot
		}
		pool[i] = b
	}
	e := &EVM{}
	var hits int
	for range 20000 {
		in := pool[r.Intn(len(pool))]
		switch r.Intn(4) {
		case 0:
			in = in[:32]
		case 1:
			in = in[:r.Intn(64)]
		}
		if m := e.memo; m != nil {
			if i := memoPair(memoMix(in)); m.holds(i, in) || m.holds(i+1, in) {
				hits++
			}
		}
		var got uint256.Int
		e.hashToWord(&got, in)
		want := crypto.Keccak256(in)
		if got != *new(uint256.Int).SetBytes32(want[:]) {
			t.Fatalf("keccak256(%x) = %x, want %x", in, got.Bytes32(), want)
		}
	}
	if hits == 0 {
		t.Fatal("the memo never hit")
	}
}

// TestKeccakMemoSkip runs a chain of hashes, each of the last digest (all
// misses), then one hot key over and over: the chain turns the memo off
// for a while, answers stay right throughout, and the hot key hits again
// once the memo is back.
func TestKeccakMemoSkip(t *testing.T) {
	e := &EVM{}
	var w uint256.Int
	in := make([]byte, 32)
	check := func(in []byte) {
		t.Helper()
		var got uint256.Int
		e.hashToWord(&got, in)
		want := crypto.Keccak256(in)
		if got != *new(uint256.Int).SetBytes32(want[:]) {
			t.Fatalf("keccak256(%x) = %x, want %x", in, got.Bytes32(), want)
		}
		w = got
	}
	for range memoMissRun {
		check(in)
		w.PutUint256(in)
	}
	if e.memo.skip != memoSkipRun {
		t.Fatalf("after %d misses in a row skip = %d, want %d", memoMissRun, e.memo.skip, memoSkipRun)
	}
	hot := make([]byte, 64)
	hot[63] = 7
	for range memoSkipRun + 2 {
		check(hot)
	}
	if e.memo.skip != 0 || e.memo.misses != 0 {
		t.Fatalf("the hot key does not hit once the memo is back: skip %d, misses %d", e.memo.skip, e.memo.misses)
	}
}
