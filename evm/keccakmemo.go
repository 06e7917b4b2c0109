package evm

import (
	"encoding/binary"

	"github.com/holiman/uint256"
)

// keccakMemo remembers the hashes of recent 32- and 64-byte KECCAK256
// inputs, the keys of array and mapping slots. Contracts hash the same
// keys over and over: Solidity hashes a mapping's key at every access, so
// an ERC-20 transfer that reads, checks and writes a balance hashes its
// key two or three times, and the transfers of a block keep hitting the
// same hot balances. A hit costs a 64-byte compare instead of a
// Keccak-f[1600] permutation. It is two-way set-associative, one per EVM
// (so per block or call, never shared between goroutines), allocated on
// first use.
//
// A miss must stay cheap too (a loop hashing its own output misses every
// time): each entry keeps the 64-bit mix its set was chosen by, so a miss
// is told by two integer compares rather than two byte compares, and a
// pair's least recently used entry is replaced where it is, found by a
// bit, instead of moving the other entry over it. When even that does not
// pay, a long run of misses with no hit between them, the next
// memoSkipRun hashes go past the memo, then it is tried again: a loop
// hashing its own output (keccak_loop: every lookup misses) then pays
// for the mix, the compares and the entry's update on one hash in
// seventeen rather than on all.
type keccakMemo struct {
	misses uint32 // lookups since the last hit
	skip   uint32 // hashes still to run past the memo

	tag [keccakMemoSize]uint64 // memoMix of the entry's input
	n   [keccakMemoSize]uint8  // length of the entry's input; 0: empty
	mru [keccakMemoSize / 2]uint8
	in  [keccakMemoSize][64]byte
	out [keccakMemoSize]uint256.Int
}

const (
	// memoMissRun misses in a row turn the memo off for memoSkipRun
	// hashes.
	memoMissRun = 128
	memoSkipRun = 2048

	keccakMemoBits = 5
	keccakMemoSize = 1 << keccakMemoBits
)

// memoMix mixes a 32- or 64-byte input and its length into 64 bits: the
// words folded into two lanes, then one multiply each (independent, so
// the mix is a few cycles, not a chain of multiplies).
func memoMix(data []byte) uint64 {
	a, b := uint64(len(data)), uint64(0)
	for i := 0; i+16 <= len(data); i += 16 {
		a ^= binary.LittleEndian.Uint64(data[i:])
		b ^= binary.LittleEndian.Uint64(data[i+8:])
	}
	x := a*0x9e3779b97f4a7c15 ^ b*0xc2b2ae3d27d4eb4f
	return x ^ x>>29
}

// memoPair is the first of the pair of entries a mix selects.
func memoPair(mix uint64) int { return int(mix>>(64-keccakMemoBits)) &^ 1 }

// hashToWord sets z to keccak256(data) (KECCAK256), through the memo
// for 32- and 64-byte inputs. Each input has two entries (two-way, so
// two hot keys that map to one place do not keep evicting each other).
func (evm *EVM) hashToWord(z *uint256.Int, data []byte) {
	if n := len(data); n != 32 && n != 64 {
		hashToWord(z, data)
		return
	}
	m := evm.memo
	if m == nil {
		m = new(keccakMemo)
		evm.memo = m
	}
	if m.skip > 0 {
		m.skip--
		hashToWord(z, data)
		return
	}
	mix := memoMix(data)
	p := memoPair(mix)
	for i := p; i < p+2; i++ {
		if m.tag[i] == mix && m.holds(i, data) {
			m.mru[p/2] = uint8(i - p)
			m.misses = 0
			*z = m.out[i]
			return
		}
	}
	if m.misses++; m.misses == memoMissRun {
		m.misses, m.skip = 0, memoSkipRun
	}
	i := p + 1 - int(m.mru[p/2])
	// Into z first, the entry after: the next instruction waits for z,
	// not for a copy of it through the entry.
	hashToWord(z, data)
	m.out[i] = *z
	m.tag[i], m.n[i], m.mru[p/2] = mix, uint8(len(data)), uint8(i-p)
	if len(data) == 64 {
		m.in[i] = [64]byte(data)
	} else {
		*(*[32]byte)(m.in[i][:]) = [32]byte(data)
	}
}

func (m *keccakMemo) holds(i int, data []byte) bool {
	return int(m.n[i]) == len(data) && string(m.in[i][:len(data)]) == string(data)
}
