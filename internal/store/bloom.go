package store

import "encoding/binary"

// A bloom filter per table lets a read skip every table that cannot hold
// its key without touching the table's blocks: ten bits per key keep the
// false-positive rate near 1%.

const bloomBitsPerKey = 10

// keyHash is a 64-bit hash of a key, stable across processes (the filter
// is stored), mixing eight bytes at a time.
func keyHash(key []byte) uint64 {
	const m = 0x9fb21c651e98df25
	h := uint64(len(key)) * m
	for len(key) >= 8 {
		h ^= binary.LittleEndian.Uint64(key)
		h = (h ^ h>>32) * m
		key = key[8:]
	}
	var tail uint64
	for i, c := range key {
		tail |= uint64(c) << (8 * i)
	}
	h ^= tail
	h = (h ^ h>>29) * m
	return h ^ h>>32
}

// buildBloom builds the filter of a set of key hashes: the bit array then
// one byte of probe count.
func buildBloom(hashes []uint64) []byte {
	bits := max(len(hashes)*bloomBitsPerKey, 64)
	nbytes := (bits + 7) / 8
	bits = nbytes * 8
	const k = 7 // ≈ bitsPerKey × ln 2
	f := make([]byte, nbytes+1)
	f[nbytes] = k
	for _, h := range hashes {
		delta := h>>33 | h<<31
		for range k {
			pos := h % uint64(bits)
			f[pos/8] |= 1 << (pos % 8)
			h += delta
		}
	}
	return f
}

// bloomMayContain reports whether the filter may hold the key of hash h.
// A malformed filter says yes: it can only cost a block read.
func bloomMayContain(f []byte, h uint64) bool {
	if len(f) < 2 {
		return true
	}
	k := f[len(f)-1]
	if k > 30 {
		return true
	}
	bits := uint64(len(f)-1) * 8
	delta := h>>33 | h<<31
	for range k {
		pos := h % bits
		if f[pos/8]&(1<<(pos%8)) == 0 {
			return false
		}
		h += delta
	}
	return true
}
