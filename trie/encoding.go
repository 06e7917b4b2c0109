package trie

import (
	"errors"

	"github.com/chaind/chaind/rlp"
)

// Keys travel through the trie as nibbles: one byte per 4-bit half of the
// original key, high half first. Nodes store their path fragments in this
// form and only pack them (hex-prefix encoding) when they are serialised.

// ErrBadCompact is returned for a hex-prefix encoded path that is malformed.
var ErrBadCompact = errors.New("trie: malformed hex-prefix path")

// KeyToNibbles splits key into its nibbles.
func KeyToNibbles(key []byte) []byte {
	return appendNibbles(make([]byte, 0, 2*len(key)), key)
}

func appendNibbles(dst, key []byte) []byte {
	for _, b := range key {
		dst = append(dst, b>>4, b&0x0f)
	}
	return dst
}

// NibblesToKey packs an even number of nibbles back into bytes.
func NibblesToKey(nibbles []byte) []byte {
	key := make([]byte, len(nibbles)/2)
	for i := range key {
		key[i] = nibbles[2*i]<<4 | nibbles[2*i+1]
	}
	return key
}

// EncodeCompact returns the hex-prefix encoding of a nibble path (Yellow
// Paper appendix C). The first nibble carries two flags: bit 1 says the path
// ends in a leaf, bit 0 says the length is odd, in which case the first path
// nibble shares the first byte; otherwise a zero nibble pads it.
func EncodeCompact(nibbles []byte, leaf bool) []byte {
	return appendCompact(make([]byte, 0, compactLen(nibbles)), nibbles, leaf)
}

func compactLen(nibbles []byte) int { return len(nibbles)/2 + 1 }

func appendCompact(dst, nibbles []byte, leaf bool) []byte {
	var flag byte
	if leaf {
		flag = 2
	}
	if len(nibbles)%2 == 1 {
		dst = append(dst, (flag|1)<<4|nibbles[0])
		nibbles = nibbles[1:]
	} else {
		dst = append(dst, flag<<4)
	}
	for i := 0; i < len(nibbles); i += 2 {
		dst = append(dst, nibbles[i]<<4|nibbles[i+1])
	}
	return dst
}

// DecodeCompact reverses EncodeCompact. It rejects unknown flags and a
// non-zero padding nibble, which no encoder produces.
func DecodeCompact(b []byte) (nibbles []byte, leaf bool, err error) {
	if len(b) == 0 {
		return nil, false, ErrBadCompact
	}
	flag := b[0] >> 4
	if flag > 3 {
		return nil, false, ErrBadCompact
	}
	leaf = flag&2 != 0
	n := make([]byte, 0, 2*len(b)-1)
	if flag&1 != 0 {
		n = append(n, b[0]&0x0f)
	} else if b[0]&0x0f != 0 {
		return nil, false, ErrBadCompact
	}
	return appendNibbles(n, b[1:]), leaf, nil
}

// prefixLen is the length of the common prefix of a and b.
func prefixLen(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// compactStringSize is the size of the RLP string item holding the compact
// form of nibbles.
func compactStringSize(nibbles []byte) int {
	n := compactLen(nibbles)
	if n == 1 {
		// One byte: flag nibble ≤ 3, so the byte is below 0x80 and
		// encodes as itself.
		return 1
	}
	return rlp.HeaderSize(n) + n
}

// appendCompactString appends the RLP string item of the compact path.
func appendCompactString(dst, nibbles []byte, leaf bool) []byte {
	n := compactLen(nibbles)
	if n > 1 {
		dst = rlp.AppendStringHeader(dst, n)
	}
	return appendCompact(dst, nibbles, leaf)
}
