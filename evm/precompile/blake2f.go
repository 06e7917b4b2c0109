package precompile

import (
	"encoding/binary"
	"math/bits"
)

// blake2F (0x09, EIP-152) exposes BLAKE2b's compression function F with a
// caller-chosen number of rounds.
//
// Input (213 bytes): rounds (4, big-endian) || h (8×8, little-endian) ||
// m (16×8, little-endian) || t (2×8, little-endian) || f (1 byte, 0 or 1).
type blake2F struct{}

const blake2FInputLen = 213

func (blake2F) RequiredGas(input []byte) uint64 {
	if len(input) != blake2FInputLen {
		return 0
	}
	return uint64(binary.BigEndian.Uint32(input[:4]))
}

func (blake2F) Run(input []byte) ([]byte, error) {
	if len(input) != blake2FInputLen {
		return nil, ErrInputLength
	}
	final := input[212]
	if final > 1 {
		return nil, ErrBlake2fFlag
	}
	rounds := binary.BigEndian.Uint32(input[:4])
	var h [8]uint64
	var m [16]uint64
	for i := range h {
		h[i] = binary.LittleEndian.Uint64(input[4+8*i:])
	}
	for i := range m {
		m[i] = binary.LittleEndian.Uint64(input[68+8*i:])
	}
	t0 := binary.LittleEndian.Uint64(input[196:])
	t1 := binary.LittleEndian.Uint64(input[204:])
	blake2bF(&h, &m, t0, t1, final == 1, rounds)
	out := make([]byte, 64)
	for i := range h {
		binary.LittleEndian.PutUint64(out[8*i:], h[i])
	}
	return out, nil
}

// blake2bIV is BLAKE2b's initialisation vector (that of SHA-512).
var blake2bIV = [8]uint64{
	0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b, 0xa54ff53a5f1d36f1,
	0x510e527fade682d1, 0x9b05688c2b3e6c1f, 0x1f83d9abfb41bd6b, 0x5be0cd19137e2179,
}

// blake2bSigma is the message schedule; round r uses row r mod 10.
var blake2bSigma = [10][16]uint8{
	{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
	{14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
	{11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
	{7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
	{9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
	{2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
	{12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
	{13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
	{6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
	{10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
}

// blake2bF is the compression function F of RFC 7693 §3.2 with a variable
// number of rounds. The sixteen working words live in locals so the
// compiler keeps them in registers.
func blake2bF(h *[8]uint64, m *[16]uint64, t0, t1 uint64, final bool, rounds uint32) {
	v0, v1, v2, v3, v4, v5, v6, v7 := h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]
	v8, v9, v10, v11 := blake2bIV[0], blake2bIV[1], blake2bIV[2], blake2bIV[3]
	v12, v13, v14, v15 := blake2bIV[4]^t0, blake2bIV[5]^t1, blake2bIV[6], blake2bIV[7]
	if final {
		v14 = ^v14
	}
	for r := uint32(0); r < rounds; r++ {
		s := &blake2bSigma[r%10]

		// Columns.
		v0 += v4 + m[s[0]]
		v12 = bits.RotateLeft64(v12^v0, -32)
		v8 += v12
		v4 = bits.RotateLeft64(v4^v8, -24)
		v0 += v4 + m[s[1]]
		v12 = bits.RotateLeft64(v12^v0, -16)
		v8 += v12
		v4 = bits.RotateLeft64(v4^v8, -63)

		v1 += v5 + m[s[2]]
		v13 = bits.RotateLeft64(v13^v1, -32)
		v9 += v13
		v5 = bits.RotateLeft64(v5^v9, -24)
		v1 += v5 + m[s[3]]
		v13 = bits.RotateLeft64(v13^v1, -16)
		v9 += v13
		v5 = bits.RotateLeft64(v5^v9, -63)

		v2 += v6 + m[s[4]]
		v14 = bits.RotateLeft64(v14^v2, -32)
		v10 += v14
		v6 = bits.RotateLeft64(v6^v10, -24)
		v2 += v6 + m[s[5]]
		v14 = bits.RotateLeft64(v14^v2, -16)
		v10 += v14
		v6 = bits.RotateLeft64(v6^v10, -63)

		v3 += v7 + m[s[6]]
		v15 = bits.RotateLeft64(v15^v3, -32)
		v11 += v15
		v7 = bits.RotateLeft64(v7^v11, -24)
		v3 += v7 + m[s[7]]
		v15 = bits.RotateLeft64(v15^v3, -16)
		v11 += v15
		v7 = bits.RotateLeft64(v7^v11, -63)

		// Diagonals.
		v0 += v5 + m[s[8]]
		v15 = bits.RotateLeft64(v15^v0, -32)
		v10 += v15
		v5 = bits.RotateLeft64(v5^v10, -24)
		v0 += v5 + m[s[9]]
		v15 = bits.RotateLeft64(v15^v0, -16)
		v10 += v15
		v5 = bits.RotateLeft64(v5^v10, -63)

		v1 += v6 + m[s[10]]
		v12 = bits.RotateLeft64(v12^v1, -32)
		v11 += v12
		v6 = bits.RotateLeft64(v6^v11, -24)
		v1 += v6 + m[s[11]]
		v12 = bits.RotateLeft64(v12^v1, -16)
		v11 += v12
		v6 = bits.RotateLeft64(v6^v11, -63)

		v2 += v7 + m[s[12]]
		v13 = bits.RotateLeft64(v13^v2, -32)
		v8 += v13
		v7 = bits.RotateLeft64(v7^v8, -24)
		v2 += v7 + m[s[13]]
		v13 = bits.RotateLeft64(v13^v2, -16)
		v8 += v13
		v7 = bits.RotateLeft64(v7^v8, -63)

		v3 += v4 + m[s[14]]
		v14 = bits.RotateLeft64(v14^v3, -32)
		v9 += v14
		v4 = bits.RotateLeft64(v4^v9, -24)
		v3 += v4 + m[s[15]]
		v14 = bits.RotateLeft64(v14^v3, -16)
		v9 += v14
		v4 = bits.RotateLeft64(v4^v9, -63)
	}
	h[0] ^= v0 ^ v8
	h[1] ^= v1 ^ v9
	h[2] ^= v2 ^ v10
	h[3] ^= v3 ^ v11
	h[4] ^= v4 ^ v12
	h[5] ^= v5 ^ v13
	h[6] ^= v6 ^ v14
	h[7] ^= v7 ^ v15
}
