package bn254

//go:generate go run gen_fpmul.go

import (
	"math/big"
	"math/bits"
)

// fe is an element of Fp in Montgomery form (x·2^256 mod p), four
// little-endian 64-bit limbs, always fully reduced (< p).
type fe [4]uint64

// The base-field modulus p, little-endian limbs.
var pMod = fe{0x3c208c16d87cfd47, 0x97816a916871ca8d, 0xb85045b68181585d, 0x30644e72e131a029}

const (
	p0, p1, p2, p3 = 0x3c208c16d87cfd47, 0x97816a916871ca8d, 0xb85045b68181585d, 0x30644e72e131a029
)

var (
	pInv    uint64 // -p^-1 mod 2^64
	rSq     fe     // 2^512 mod p, converts into Montgomery form
	feOne   fe     // 1 in Montgomery form
	pBig    *big.Int
	pMinus2 [4]uint64
)

func init() {
	// Newton iteration for p^-1 mod 2^64.
	inv := uint64(1)
	for range 6 {
		inv *= 2 - p0*inv
	}
	pInv = -inv

	pBig = new(big.Int).SetBytes(limbsToBytes(pMod))
	r := new(big.Int).Lsh(big.NewInt(1), 256)
	feOne = bigToLimbs(new(big.Int).Mod(r, pBig))
	rSq = bigToLimbs(new(big.Int).Mod(new(big.Int).Mul(r, r), pBig))
	pMinus2 = [4]uint64(bigToLimbs(new(big.Int).Sub(pBig, big.NewInt(2))))
}

func limbsToBytes(x fe) []byte {
	b := make([]byte, 32)
	for i := range 4 {
		v := x[3-i]
		for j := range 8 {
			b[8*i+j] = byte(v >> (56 - 8*j))
		}
	}
	return b
}

func bigToLimbs(v *big.Int) fe {
	var b [32]byte
	v.FillBytes(b[:])
	return limbsFromBytes(b[:])
}

func limbsFromBytes(b []byte) fe {
	var x fe
	for i := range 4 {
		var v uint64
		for j := range 8 {
			v = v<<8 | uint64(b[8*i+j])
		}
		x[3-i] = v
	}
	return x
}

// feFromBytes decodes a 32-byte big-endian integer into Montgomery form,
// reporting false if it is not below p.
func feFromBytes(z *fe, b []byte) bool {
	x := limbsFromBytes(b)
	if !lessThanP(&x) {
		return false
	}
	feMul(z, &x, &rSq)
	return true
}

// feToBytes writes the canonical 32-byte big-endian encoding of x.
func feToBytes(out []byte, x *fe) {
	var y fe
	one := fe{1}
	feMul(&y, x, &one) // leave Montgomery form
	for i := range 4 {
		v := y[3-i]
		for j := range 8 {
			out[8*i+j] = byte(v >> (56 - 8*j))
		}
	}
}

func lessThanP(x *fe) bool {
	_, b := bits.Sub64(x[0], p0, 0)
	_, b = bits.Sub64(x[1], p1, b)
	_, b = bits.Sub64(x[2], p2, b)
	_, b = bits.Sub64(x[3], p3, b)
	return b != 0
}

func (x *fe) isZero() bool { return x[0]|x[1]|x[2]|x[3] == 0 }

func (x *fe) equal(y *fe) bool { return *x == *y }

// reduce subtracts p once if z >= p (z < 2p on entry).
func reduce(z *fe) {
	r0, b := bits.Sub64(z[0], p0, 0)
	r1, b := bits.Sub64(z[1], p1, b)
	r2, b := bits.Sub64(z[2], p2, b)
	r3, b := bits.Sub64(z[3], p3, b)
	mask := -b // all ones when the subtraction borrowed: keep the input
	z[0] = r0 ^ ((z[0] ^ r0) & mask)
	z[1] = r1 ^ ((z[1] ^ r1) & mask)
	z[2] = r2 ^ ((z[2] ^ r2) & mask)
	z[3] = r3 ^ ((z[3] ^ r3) & mask)
}

func feAdd(z, x, y *fe) {
	// p < 2^254, so the sum of two reduced values cannot carry out.
	var c uint64
	z[0], c = bits.Add64(x[0], y[0], 0)
	z[1], c = bits.Add64(x[1], y[1], c)
	z[2], c = bits.Add64(x[2], y[2], c)
	z[3], _ = bits.Add64(x[3], y[3], c)
	reduce(z)
}

func feDouble(z, x *fe) { feAdd(z, x, x) }

func feSub(z, x, y *fe) {
	var b uint64
	z[0], b = bits.Sub64(x[0], y[0], 0)
	z[1], b = bits.Sub64(x[1], y[1], b)
	z[2], b = bits.Sub64(x[2], y[2], b)
	z[3], b = bits.Sub64(x[3], y[3], b)
	// Add p back when the subtraction borrowed, without a branch.
	mask := -b
	var c uint64
	z[0], c = bits.Add64(z[0], p0&mask, 0)
	z[1], c = bits.Add64(z[1], p1&mask, c)
	z[2], c = bits.Add64(z[2], p2&mask, c)
	z[3], _ = bits.Add64(z[3], p3&mask, c)
}

func feNeg(z, x *fe) {
	if x.isZero() {
		*z = fe{}
		return
	}
	var b uint64
	z[0], b = bits.Sub64(p0, x[0], 0)
	z[1], b = bits.Sub64(p1, x[1], b)
	z[2], b = bits.Sub64(p2, x[2], b)
	z[3], _ = bits.Sub64(p3, x[3], b)
}

// feSquare sets z = x².
func feSquare(z, x *fe) { feMul(z, x, x) }

// feExp sets z = x^e for a little-endian 256-bit exponent.
func feExp(z, x *fe, e [4]uint64) {
	r := feOne
	b := *x
	for i := 3; i >= 0; i-- {
		for j := 63; j >= 0; j-- {
			feSquare(&r, &r)
			if e[i]>>uint(j)&1 == 1 {
				feMul(&r, &r, &b)
			}
		}
	}
	*z = r
}

// feInvFermat sets z = x^-1 by Fermat's little theorem (x^(p-2)); tests
// use it as the reference for feInv.
func feInvFermat(z, x *fe) { feExp(z, x, pMinus2) }
