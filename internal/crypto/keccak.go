package crypto

//go:generate go run gen_keccakf.go

import "encoding/binary"

// keccakRate is the sponge rate of keccak256 in bytes (1600 − 2·256 bits).
const keccakRate = 136

// keccak256Into is a one-shot keccak256 over the concatenated inputs with
// the sponge on the stack: no pool, no interface calls, and the inputs do
// not escape, so hashing a stack buffer costs no allocation.
func keccak256Into(dst *[32]byte, data [][]byte) {
	var s [25]uint64
	var buf [keccakRate]byte
	n := 0
	for _, b := range data {
		if n > 0 {
			k := copy(buf[n:], b)
			n += k
			b = b[k:]
			if n < keccakRate {
				continue
			}
			absorbBlock(&s, buf[:])
			n = 0
		}
		for len(b) >= keccakRate {
			absorbBlock(&s, b[:keccakRate])
			b = b[keccakRate:]
		}
		n = copy(buf[:], b)
	}
	// Keccak padding (the original submission's, not SHA-3's): 0x01 after
	// the message, 0x80 in the last byte of the block.
	clear(buf[n:])
	buf[n] = 0x01
	buf[keccakRate-1] |= 0x80
	xorBlock(&s, buf[:])
	keccakF1600Digest(&s)
	binary.LittleEndian.PutUint64(dst[0:], s[0])
	binary.LittleEndian.PutUint64(dst[8:], s[1])
	binary.LittleEndian.PutUint64(dst[16:], s[2])
	binary.LittleEndian.PutUint64(dst[24:], s[3])
}

// keccak256Short is keccak256Into for one input shorter than the rate
// (the KECCAK256 opcode's 32- and 64-byte mapping keys, trie nodes'
// hashes of short nodes): the one block is absorbed straight from data,
// without copying it into a padded buffer first.
func keccak256Short(dst *[32]byte, data []byte) {
	var s [25]uint64
	absorbShort(&s, data)
	binary.LittleEndian.PutUint64(dst[0:], s[0])
	binary.LittleEndian.PutUint64(dst[8:], s[1])
	binary.LittleEndian.PutUint64(dst[16:], s[2])
	binary.LittleEndian.PutUint64(dst[24:], s[3])
}

// absorbShort absorbs data, shorter than the rate, and its padding into
// the zero state s as its only block: afterwards s[0:4] is the digest.
func absorbShort(s *[25]uint64, data []byte) {
	i := 0
	for ; i+8 <= len(data); i += 8 {
		s[i/8] = binary.LittleEndian.Uint64(data[i:])
	}
	// The last partial word and the padding's first byte, 0x01 (built
	// byte by byte: a copy into a buffer calls memmove even for the
	// usual none); the padding's last bit ends the block.
	tail := uint64(1) << (8 * (len(data) - i))
	for j := i; j < len(data); j++ {
		tail |= uint64(data[j]) << (8 * (j - i))
	}
	s[i/8] ^= tail
	s[keccakRate/8-1] ^= 0x80 << 56
	keccakF1600Digest(s)
}

// absorbBlock absorbs a block that is not the last.
func absorbBlock(s *[25]uint64, b []byte) {
	xorBlock(s, b)
	keccakF1600(s)
}

func xorBlock(s *[25]uint64, b []byte) {
	_ = b[keccakRate-1]
	for i := 0; i < keccakRate/8; i++ {
		s[i] ^= binary.LittleEndian.Uint64(b[8*i:])
	}
}
