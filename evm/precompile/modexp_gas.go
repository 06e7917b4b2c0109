package precompile

import (
	"math"
	"math/bits"
)

// modExpHeader is the decoded 96-byte modexp header. Each length is a
// 256-bit big-endian word; a length that does not fit in 64 bits is kept
// as math.MaxUint64 with huge set, because no such call can ever be paid
// for and nothing may be allocated for it.
type modExpHeader struct {
	baseLen, expLen, modLen uint64
	huge                    bool
	// expHead is the first min(32, expLen) bytes of the exponent as a
	// big-endian number (zero-padded past the end of the input).
	expHead [32]byte
}

func readLength(word []byte) (uint64, bool) {
	for _, b := range word[:24] {
		if b != 0 {
			return math.MaxUint64, true
		}
	}
	var v uint64
	for _, b := range word[24:32] {
		v = v<<8 | uint64(b)
	}
	return v, false
}

func parseModExpHeader(input []byte) modExpHeader {
	var hdr [96]byte
	copy(hdr[:], input)
	var h modExpHeader
	var hb, he, hm bool
	h.baseLen, hb = readLength(hdr[0:32])
	h.expLen, he = readLength(hdr[32:64])
	h.modLen, hm = readLength(hdr[64:96])
	h.huge = hb || he || hm
	// The exponent starts at 96+baseLen; the head is right-aligned in a
	// 32-byte word so it reads as the number formed by its bytes.
	headLen := min(h.expLen, 32)
	if !hb && uint64(len(input)) > 96 && h.baseLen < uint64(len(input))-96 {
		start := 96 + h.baseLen
		avail := uint64(len(input)) - start
		src := input[start : start+min(avail, headLen)]
		// Bytes missing at the end of the input are zeros of the head, so
		// the head is src followed by (headLen-len(src)) zero bytes.
		off := 32 - headLen
		copy(h.expHead[off:], src)
	}
	return h
}

// headBitLen returns the bit length of the exponent head.
func (h *modExpHeader) headBitLen() uint64 {
	for i, b := range h.expHead {
		if b != 0 {
			return uint64(8*(31-i) + bits.Len8(b))
		}
	}
	return 0
}

// iterationCount is EIP-198's adjusted exponent length (EIP-2565's
// iteration count) with bitsPerByte = 8, or EIP-7883's with 16; it returns
// ok=false if the value does not fit in 64 bits.
func (h *modExpHeader) iterationCount(bitsPerByte uint64) (uint64, bool) {
	bl := h.headBitLen()
	var top uint64
	if bl > 0 {
		top = bl - 1
	}
	if h.expLen <= 32 {
		return top, true
	}
	hi, lo := bits.Mul64(h.expLen-32, bitsPerByte)
	sum, carry := bits.Add64(lo, top, 0)
	if hi != 0 || carry != 0 {
		return 0, false
	}
	return sum, true
}

type modExpGasRule int

const (
	modExpGasEIP198 modExpGasRule = iota
	modExpGasEIP2565
	modExpGasEIP7883
)

// Gas arithmetic saturates: as soon as an intermediate value of a formula
// exceeds 2^64-1 the cost is math.MaxUint64. Such a call can never be paid
// for, so the precise value beyond that point is irrelevant, and
// saturating at the first overflow is what go-ethereum does too, which
// keeps the two implementations reporting identical costs.

func mulSat(a, b uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	if hi != 0 {
		return math.MaxUint64
	}
	return lo
}

// multComplexity is the per-rule cost of one multiplication of
// x-byte operands.
func multComplexity(rule modExpGasRule, x uint64) uint64 {
	switch rule {
	case modExpGasEIP198:
		switch {
		case x <= 64:
			return x * x
		case x <= 1024:
			return x*x/4 + 96*x - 3072
		}
		sq := mulSat(x, x)
		if sq == math.MaxUint64 {
			return sq
		}
		// x < 2^32 here, so 480x cannot overflow and exceeds 199680.
		sum, c := bits.Add64(sq/16, 480*x-199680, 0)
		if c != 0 {
			return math.MaxUint64
		}
		return sum
	case modExpGasEIP2565:
		if x > math.MaxUint64-7 {
			return math.MaxUint64
		}
		w := (x + 7) / 8
		return mulSat(w, w)
	default:
		if x <= 32 {
			return 16
		}
		if x > math.MaxUint64-7 {
			return math.MaxUint64
		}
		w := (x + 7) / 8
		return mulSat(mulSat(w, w), 2)
	}
}

func modExpGas(rule modExpGasRule, input []byte) uint64 {
	h := parseModExpHeader(input)
	var div, floor, bitsPerByte uint64
	switch rule {
	case modExpGasEIP198:
		div, floor, bitsPerByte = 20, 0, 8
	case modExpGasEIP2565:
		div, floor, bitsPerByte = 3, 200, 8
	default:
		div, floor, bitsPerByte = 1, 500, 16
	}
	mc := multComplexity(rule, max(h.baseLen, h.modLen))
	if mc == math.MaxUint64 {
		return mc
	}
	iter, ok := h.iterationCount(bitsPerByte)
	if !ok {
		iter = math.MaxUint64
	}
	iter = max(iter, 1)
	hi, lo := bits.Mul64(mc, iter)
	if hi != 0 {
		return math.MaxUint64
	}
	return max(lo/div, floor)
}
