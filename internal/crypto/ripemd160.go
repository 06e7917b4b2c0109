package crypto

import "encoding/binary"

//go:generate go run gen_ripemd160.go

// Ripemd160 returns the RIPEMD-160 digest of data. It allocates nothing:
// the EVM's precompile 0x03 calls it once per CALL, and the streaming
// hash.Hash of golang.org/x/crypto/ripemd160 costs an allocation or a
// kept state plus a table-driven block function (see gen_ripemd160.go).
func Ripemd160(data []byte) [20]byte {
	h := [5]uint32{0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0}
	n := len(data) &^ 63
	ripemd160Blocks(&h, data[:n])
	// The tail, the 0x80 marker and the 64-bit little-endian bit length
	// fill one block, or two when fewer than 9 bytes are left in the first.
	var last [128]byte
	rest := copy(last[:], data[n:])
	last[rest] = 0x80
	end := 64
	if rest >= 56 {
		end = 128
	}
	binary.LittleEndian.PutUint64(last[end-8:], uint64(len(data))<<3)
	ripemd160Blocks(&h, last[:end])
	var out [20]byte
	for i, w := range h {
		binary.LittleEndian.PutUint32(out[4*i:], w)
	}
	return out
}
