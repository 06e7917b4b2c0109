package precompile

//go:generate go run github.com/chaind/chaind/internal/tools/blake2gen -out blake2f_rounds.go

import "encoding/binary"

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
	out := make([]byte, 64)
	blake2fCompress((*[64]byte)(out), (*[208]byte)(input[4:212]), binary.BigEndian.Uint32(input[:4]), final == 1)
	return out, nil
}

// blake2fCompressGeneric is blake2fCompress in portable Go.
func blake2fCompressGeneric(out *[64]byte, in *[208]byte, rounds uint32, final bool) {
	var h [8]uint64
	var m [16]uint64
	for i := range h {
		h[i] = binary.LittleEndian.Uint64(in[8*i:])
	}
	for i := range m {
		m[i] = binary.LittleEndian.Uint64(in[64+8*i:])
	}
	t0 := binary.LittleEndian.Uint64(in[192:])
	t1 := binary.LittleEndian.Uint64(in[200:])
	blake2bF(&h, &m, t0, t1, final, rounds)
	for i := range h {
		binary.LittleEndian.PutUint64(out[8*i:], h[i])
	}
}

// blake2bIV is BLAKE2b's initialisation vector (that of SHA-512).
var blake2bIV = [8]uint64{
	0x6a09e667f3bcc908, 0xbb67ae8584caa73b, 0x3c6ef372fe94f82b, 0xa54ff53a5f1d36f1,
	0x510e527fade682d1, 0x9b05688c2b3e6c1f, 0x1f83d9abfb41bd6b, 0x5be0cd19137e2179,
}
