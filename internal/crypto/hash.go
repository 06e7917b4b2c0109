package crypto

import (
	"encoding/binary"
	"math/bits"
)

// HashInto writes keccak256 of the concatenated inputs into dst without
// allocating (neither dst nor the inputs escape). Hot callers (trie
// hashing, the KECCAK256 opcode, sender recovery) should prefer it over
// Keccak256.
func HashInto(dst *[32]byte, data ...[]byte) {
	if len(data) == 1 && len(data[0]) < keccakRate {
		keccak256Short(dst, data[0])
		return
	}
	keccak256Into(dst, data)
}

// HashWord returns keccak256(data) as a 256-bit big-endian number, least
// significant 64-bit word first (uint256.Int's layout), for the KECCAK256
// opcode: the digest goes from the permutation's lanes to the word in
// registers, never through a byte array (which would cost a store and a
// reload on the chain of a loop hashing its own output).
func HashWord(data []byte) (w0, w1, w2, w3 uint64) {
	var s [25]uint64
	if len(data) < keccakRate {
		absorbShort(&s, data)
	} else {
		var h [32]byte
		keccak256Into(&h, [][]byte{data})
		for i := range 4 {
			s[i] = binary.LittleEndian.Uint64(h[8*i:])
		}
	}
	return bits.ReverseBytes64(s[3]), bits.ReverseBytes64(s[2]), bits.ReverseBytes64(s[1]), bits.ReverseBytes64(s[0])
}

// HashWordInto sets z to HashWord(data), z's words least significant
// first (uint256.Int's layout). For the 32- and 64-byte inputs of
// mapping and array keys it runs the whole hash in registers where the
// CPU allows (see keccak256Word32AVX512).
func HashWordInto(z *[4]uint64, data []byte) {
	if hashWordFast(z, data) {
		return
	}
	z[0], z[1], z[2], z[3] = HashWord(data)
}

// Keccak256Slice is Keccak256 returning a freshly allocated slice, for
// callers that need a []byte.
func Keccak256Slice(data ...[]byte) []byte {
	var h [32]byte
	HashInto(&h, data...)
	return h[:]
}
