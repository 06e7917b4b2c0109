package precompile

import (
	"fmt"
	"math/big"
)

// modExp (0x05, EIP-198) computes base^exp mod m for big-endian operands
// of arbitrary length. The gas rule changed in Berlin (EIP-2565) and Osaka
// (EIP-7883, which also caps each length at 1024 bytes, EIP-7823).
type modExp struct {
	gas        modExpGasRule
	limitInput bool
}

// eip7823MaxLen is the largest base, exponent or modulus length accepted
// from Osaka on.
const eip7823MaxLen = 1024

// maxOperandLen bounds what Run will materialise when it is called without
// the gas check in front of it; real calls of this size can never be paid.
const maxOperandLen = 1 << 26

func (c modExp) RequiredGas(input []byte) uint64 { return modExpGas(c.gas, input) }

func (c modExp) Run(input []byte) ([]byte, error) {
	h := parseModExpHeader(input)
	if c.limitInput && (h.baseLen > eip7823MaxLen || h.expLen > eip7823MaxLen || h.modLen > eip7823MaxLen) {
		return nil, fmt.Errorf("%w: EIP-7823 limits each length to %d bytes", ErrModExpTooLarge, eip7823MaxLen)
	}
	if h.baseLen == 0 && h.modLen == 0 {
		return []byte{}, nil
	}
	if h.baseLen > maxOperandLen || h.modLen > maxOperandLen || h.expLen > 1<<32 {
		return nil, ErrModExpTooLarge
	}
	var data []byte
	if len(input) > 96 {
		data = input[96:]
	}
	base := padded(data, 0, h.baseLen)
	expAvail := avail(data, h.baseLen, h.expLen)
	exp := data[min(uint64(len(data)), h.baseLen):][:expAvail]
	expTail := h.expLen - expAvail // zero bytes past the end of the input
	mod := padded(data, h.baseLen+h.expLen, h.modLen)

	out := make([]byte, h.modLen)
	if modExpMont(out, base, exp, expTail, mod) {
		return out, nil
	}
	if r := modExpCompute(base, exp, expTail, mod); r != nil {
		r.FillBytes(out)
	}
	return out, nil
}

// avail is how many of the n bytes at off are present in data.
func avail(data []byte, off, n uint64) uint64 {
	if off >= uint64(len(data)) {
		return 0
	}
	return min(n, uint64(len(data))-off)
}

// padded returns the n bytes of data at off, zero-filled past its end.
func padded(data []byte, off, n uint64) []byte {
	a := avail(data, off, n)
	if n == 0 {
		return nil
	}
	if a == n {
		return data[off : off+n]
	}
	out := make([]byte, n)
	if a > 0 {
		copy(out, data[off:off+a])
	}
	return out
}

// modExpCompute returns base^(exp * 256^expTail) mod m, or nil when the
// result is zero (including m == 0, which the EIP defines as zero output).
func modExpCompute(base, exp []byte, expTail uint64, mod []byte) *big.Int {
	m := new(big.Int).SetBytes(mod)
	if m.Sign() == 0 || (m.BitLen() == 1) {
		return nil // mod 0 by definition, mod 1 always
	}
	b := new(big.Int).SetBytes(base)
	e := new(big.Int).SetBytes(exp)
	if e.Sign() == 0 {
		// x^0 = 1 even for x = 0 (and trailing zero bytes keep it zero).
		return big.NewInt(1)
	}
	if expTail <= 1<<16 {
		e.Lsh(e, uint(8*expTail))
		return b.Exp(b, e, m)
	}
	// A long zero tail multiplies the exponent by 2^(8*tail): square that
	// many times instead of materialising the exponent.
	r := new(big.Int).Exp(b, e, m)
	for i := uint64(0); i < 8*expTail && r.BitLen() > 1; i++ {
		r.Mul(r, r)
		r.Mod(r, m)
	}
	return r
}
