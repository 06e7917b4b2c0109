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
type keccakMemo struct {
	n   [keccakMemoSize]uint8 // length of the entry's input; 0: empty
	in  [keccakMemoSize][64]byte
	out [keccakMemoSize]uint256.Int
}

const (
	keccakMemoBits = 5
	keccakMemoSize = 1 << keccakMemoBits
)

// memoSlot picks data's pair of entries from a mix of its words.
func memoSlot(data []byte) int {
	var x uint64
	for i := 0; i+8 <= len(data); i += 8 {
		x = (x ^ binary.LittleEndian.Uint64(data[i:])) * 0x9e3779b97f4a7c15
		x ^= x >> 31
	}
	return int(x>>(64-keccakMemoBits)) &^ 1
}

// hashToWord sets z to keccak256(data) (KECCAK256), through the memo
// for 32- and 64-byte inputs. Each input has two entries, the most
// recently used first (two-way, so two hot keys that map to one place do
// not keep evicting each other).
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
	i := memoSlot(data)
	if m.holds(i, data) {
		*z = m.out[i]
		return
	}
	if m.holds(i+1, data) {
		*z = m.out[i+1]
		m.swap(i)
		return
	}
	m.n[i+1], m.in[i+1], m.out[i+1] = m.n[i], m.in[i], m.out[i]
	hashToWord(&m.out[i], data)
	m.n[i] = uint8(len(data))
	copy(m.in[i][:], data)
	*z = m.out[i]
}

func (m *keccakMemo) holds(i int, data []byte) bool {
	return int(m.n[i]) == len(data) && string(m.in[i][:len(data)]) == string(data)
}

// swap exchanges the pair of entries at i and i+1.
func (m *keccakMemo) swap(i int) {
	m.n[i], m.n[i+1] = m.n[i+1], m.n[i]
	m.in[i], m.in[i+1] = m.in[i+1], m.in[i]
	m.out[i], m.out[i+1] = m.out[i+1], m.out[i]
}
