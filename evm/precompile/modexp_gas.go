package precompile

import (
	"math"
	"math/big"
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

// fastLenLimit bounds the operand lengths for which every intermediate of
// the gas formula fits in the uint64/128-bit arithmetic below.
const fastLenLimit = 1 << 24

func modExpGas(rule modExpGasRule, input []byte) uint64 {
	h := parseModExpHeader(input)
	maxLen := max(h.baseLen, h.modLen)
	if h.huge || maxLen > fastLenLimit || h.expLen > 1<<40 {
		return modExpGasBig(rule, input, &h)
	}
	var (
		mc, div, floor, bitsPerByte uint64
	)
	switch rule {
	case modExpGasEIP198:
		x := maxLen
		switch {
		case x <= 64:
			mc = x * x
		case x <= 1024:
			mc = x*x/4 + 96*x - 3072
		default:
			mc = x*x/16 + 480*x - 199680
		}
		div, floor, bitsPerByte = 20, 0, 8
	case modExpGasEIP2565:
		w := (maxLen + 7) / 8
		mc = w * w
		div, floor, bitsPerByte = 3, 200, 8
	default:
		w := (maxLen + 7) / 8
		mc = 16
		if maxLen > 32 {
			mc = 2 * w * w
		}
		div, floor, bitsPerByte = 1, 500, 16
	}
	iter, _ := h.iterationCount(bitsPerByte) // cannot overflow: expLen <= 2^40
	iter = max(iter, 1)
	hi, lo := bits.Mul64(mc, iter)
	if hi >= div {
		return math.MaxUint64
	}
	gas, _ := bits.Div64(hi, lo, div)
	return max(gas, floor)
}

// modExpGasBig evaluates the same formulas exactly with math/big for
// lengths too large for the fast path (up to 2^256). Such calls are never
// affordable; this only keeps the reported cost exact, capped at MaxUint64.
func modExpGasBig(rule modExpGasRule, input []byte, h *modExpHeader) uint64 {
	var hdr [96]byte
	copy(hdr[:], input)
	baseLen := new(big.Int).SetBytes(hdr[0:32])
	expLen := new(big.Int).SetBytes(hdr[32:64])
	modLen := new(big.Int).SetBytes(hdr[64:96])
	x := baseLen
	if modLen.Cmp(x) > 0 {
		x = modLen
	}
	var mc *big.Int
	var div, floor, bitsPerByte int64
	switch rule {
	case modExpGasEIP198:
		sq := new(big.Int).Mul(x, x)
		switch {
		case x.Cmp(big.NewInt(64)) <= 0:
			mc = sq
		case x.Cmp(big.NewInt(1024)) <= 0:
			mc = sq.Rsh(sq, 2)
			mc.Add(mc, new(big.Int).Mul(x, big.NewInt(96)))
			mc.Sub(mc, big.NewInt(3072))
		default:
			mc = sq.Rsh(sq, 4)
			mc.Add(mc, new(big.Int).Mul(x, big.NewInt(480)))
			mc.Sub(mc, big.NewInt(199680))
		}
		div, floor, bitsPerByte = 20, 0, 8
	case modExpGasEIP2565:
		w := new(big.Int).Add(x, big.NewInt(7))
		w.Rsh(w, 3)
		mc = w.Mul(w, w)
		div, floor, bitsPerByte = 3, 200, 8
	default:
		if x.Cmp(big.NewInt(32)) <= 0 {
			mc = big.NewInt(16)
		} else {
			w := new(big.Int).Add(x, big.NewInt(7))
			w.Rsh(w, 3)
			mc = w.Mul(w, w)
			mc.Lsh(mc, 1)
		}
		div, floor, bitsPerByte = 1, 500, 16
	}
	var top int64
	if bl := h.headBitLen(); bl > 0 {
		top = int64(bl) - 1
	}
	iter := big.NewInt(top)
	if expLen.Cmp(big.NewInt(32)) > 0 {
		t := new(big.Int).Sub(expLen, big.NewInt(32))
		t.Mul(t, big.NewInt(bitsPerByte))
		iter.Add(iter, t)
	}
	if iter.Sign() == 0 {
		iter.SetInt64(1)
	}
	gas := mc.Mul(mc, iter)
	gas.Quo(gas, big.NewInt(div))
	if !gas.IsUint64() {
		return math.MaxUint64
	}
	return max(gas.Uint64(), uint64(floor))
}
