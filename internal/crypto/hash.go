package crypto

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

// Keccak256Slice is Keccak256 returning a freshly allocated slice, for
// callers that need a []byte.
func Keccak256Slice(data ...[]byte) []byte {
	var h [32]byte
	HashInto(&h, data...)
	return h[:]
}
