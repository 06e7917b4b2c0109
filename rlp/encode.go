package rlp

import (
	"math/big"
	"math/bits"

	"github.com/holiman/uint256"
)

// EmptyString and EmptyList are the encodings of "" and [].
var (
	EmptyString = []byte{0x80}
	EmptyList   = []byte{0xC0}
)

// AppendString appends the encoding of the byte string s to dst.
func AppendString(dst, s []byte) []byte {
	if len(s) == 1 && s[0] < 0x80 {
		return append(dst, s[0])
	}
	dst = appendHeader(dst, 0x80, uint64(len(s)))
	return append(dst, s...)
}

// AppendUint64 appends the encoding of x as a minimal big-endian integer.
func AppendUint64(dst []byte, x uint64) []byte {
	switch {
	case x == 0:
		return append(dst, 0x80)
	case x < 0x80:
		return append(dst, byte(x))
	}
	n := (bits.Len64(x) + 7) / 8
	dst = append(dst, 0x80+byte(n))
	for i := n - 1; i >= 0; i-- {
		dst = append(dst, byte(x>>(8*uint(i))))
	}
	return dst
}

// AppendUint256 appends the encoding of x as a minimal big-endian integer.
func AppendUint256(dst []byte, x *uint256.Int) []byte {
	if x.IsUint64() {
		return AppendUint64(dst, x.Uint64())
	}
	n := (x.BitLen() + 7) / 8
	dst = append(dst, 0x80+byte(n))
	var buf [32]byte
	x.WriteToArray32(&buf)
	return append(dst, buf[32-n:]...)
}

// AppendBigInt appends the encoding of a non-negative x. It panics on a
// negative number, which no Ethereum structure can hold.
func AppendBigInt(dst []byte, x *big.Int) []byte {
	if x.Sign() < 0 {
		panic("rlp: negative big.Int")
	}
	if x.IsUint64() {
		return AppendUint64(dst, x.Uint64())
	}
	n := (x.BitLen() + 7) / 8
	dst = appendHeader(dst, 0x80, uint64(n))
	start := len(dst)
	dst = append(dst, make([]byte, n)...)
	x.FillBytes(dst[start:])
	return dst
}

// AppendBool appends 0x01 for true and 0x80 for false.
func AppendBool(dst []byte, v bool) []byte {
	if v {
		return append(dst, 0x01)
	}
	return append(dst, 0x80)
}

// AppendListHeader appends the header of a list whose content is size bytes.
func AppendListHeader(dst []byte, size int) []byte {
	return appendHeader(dst, 0xC0, uint64(size))
}

// AppendStringHeader appends the header of a string of size bytes. Callers
// must handle the single-byte case themselves (see AppendString).
func AppendStringHeader(dst []byte, size int) []byte {
	return appendHeader(dst, 0x80, uint64(size))
}

func appendHeader(dst []byte, base byte, size uint64) []byte {
	if size < 56 {
		return append(dst, base+byte(size))
	}
	n := (bits.Len64(size) + 7) / 8
	dst = append(dst, base+55+byte(n))
	for i := n - 1; i >= 0; i-- {
		dst = append(dst, byte(size>>(8*uint(i))))
	}
	return dst
}

// HeaderSize is the size of a string or list header for content of size bytes.
func HeaderSize(size int) int {
	if size < 56 {
		return 1
	}
	return 1 + (bits.Len64(uint64(size))+7)/8
}

// ListSize is the encoded size of a list with content of size bytes.
func ListSize(size int) int { return HeaderSize(size) + size }

// StringSize is the encoded size of the byte string s.
func StringSize(s []byte) int {
	if len(s) == 1 && s[0] < 0x80 {
		return 1
	}
	return HeaderSize(len(s)) + len(s)
}

// Uint64Size is the encoded size of x.
func Uint64Size(x uint64) int {
	if x < 0x80 {
		return 1
	}
	return 1 + (bits.Len64(x)+7)/8
}

// Uint256Size is the encoded size of x.
func Uint256Size(x *uint256.Int) int {
	if x.IsUint64() {
		return Uint64Size(x.Uint64())
	}
	return 1 + (x.BitLen()+7)/8
}

// EncodeString returns the encoding of one string.
func EncodeString(s []byte) []byte { return AppendString(make([]byte, 0, StringSize(s)), s) }

// Buffer builds an encoding when list sizes are not known up front. List
// headers are recorded as they close and spliced in by AppendTo, so nested
// lists cost no copying.
type Buffer struct {
	str    []byte     // content, without list headers
	lheads []listHead // every list opened so far, in order
	lhsize int        // total size of closed list headers
}

type listHead struct {
	offset int // position in str where the list's content starts
	size   int // content size including nested headers (valid once closed)
}

// Reset empties the buffer, keeping its memory.
func (b *Buffer) Reset() {
	b.str = b.str[:0]
	b.lheads = b.lheads[:0]
	b.lhsize = 0
}

// List opens a list and returns its handle for ListEnd.
func (b *Buffer) List() int {
	b.lheads = append(b.lheads, listHead{offset: len(b.str), size: b.lhsize})
	return len(b.lheads) - 1
}

// ListEnd closes the list opened by List.
func (b *Buffer) ListEnd(i int) {
	lh := &b.lheads[i]
	lh.size = len(b.str) + b.lhsize - lh.offset - lh.size
	b.lhsize += HeaderSize(lh.size)
}

// WriteBytes writes a byte string.
func (b *Buffer) WriteBytes(s []byte) { b.str = AppendString(b.str, s) }

// WriteUint64 writes an integer.
func (b *Buffer) WriteUint64(x uint64) { b.str = AppendUint64(b.str, x) }

// WriteUint256 writes a 256-bit integer.
func (b *Buffer) WriteUint256(x *uint256.Int) { b.str = AppendUint256(b.str, x) }

// WriteBigInt writes a non-negative big integer.
func (b *Buffer) WriteBigInt(x *big.Int) { b.str = AppendBigInt(b.str, x) }

// WriteBool writes a boolean.
func (b *Buffer) WriteBool(v bool) { b.str = AppendBool(b.str, v) }

// WriteRaw writes bytes that already are a complete encoding.
func (b *Buffer) WriteRaw(enc []byte) { b.str = append(b.str, enc...) }

// Size is the size of the final encoding. All lists must be closed.
func (b *Buffer) Size() int { return len(b.str) + b.lhsize }

// AppendTo appends the final encoding to dst. All lists must be closed.
func (b *Buffer) AppendTo(dst []byte) []byte {
	strpos := 0
	for _, lh := range b.lheads {
		dst = append(dst, b.str[strpos:lh.offset]...)
		dst = AppendListHeader(dst, lh.size)
		strpos = lh.offset
	}
	return append(dst, b.str[strpos:]...)
}

// Bytes returns the final encoding in a new slice.
func (b *Buffer) Bytes() []byte { return b.AppendTo(make([]byte, 0, b.Size())) }

// BigIntSize is the encoded size of a non-negative x.
func BigIntSize(x *big.Int) int {
	if x.IsUint64() {
		return Uint64Size(x.Uint64())
	}
	n := (x.BitLen() + 7) / 8
	return HeaderSize(n) + n
}

// AppendRaw appends enc, which must already be a complete encoding (for
// instance a cached child or a value taken from a decoded structure).
func AppendRaw(dst, enc []byte) []byte { return append(dst, enc...) }

// AppendList appends a list whose items are the given complete encodings.
func AppendList(dst []byte, items ...[]byte) []byte {
	size := 0
	for _, it := range items {
		size += len(it)
	}
	dst = AppendListHeader(dst, size)
	for _, it := range items {
		dst = append(dst, it...)
	}
	return dst
}

// EncodeList returns a list of the given complete encodings.
func EncodeList(items ...[]byte) []byte {
	size := 0
	for _, it := range items {
		size += len(it)
	}
	return AppendList(make([]byte, 0, ListSize(size)), items...)
}

// EncodeUint64 returns the encoding of x.
func EncodeUint64(x uint64) []byte { return AppendUint64(make([]byte, 0, 9), x) }
