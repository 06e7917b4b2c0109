// Package bls12381 implements the BLS12-381 pairing-friendly curve: the
// field tower, the groups G1 and G2, the optimal ate pairing, multi-scalar
// multiplication and the maps from field elements to the curve. On top of
// that it provides the EIP-2537 precompiles (BLS12_G1ADD … BLS12_MAP_FP2_TO_G2)
// and the compressed point encoding the EIP-4844 point evaluation precompile
// needs.
//
// Everything is written against fixed-size 6×64-bit Montgomery limbs; big
// integers appear only when constants are set up at package init. The
// main speed-ups over textbook code: a MULX/ADX assembly Montgomery
// multiplication on amd64 (pure Go elsewhere and with -tags purego),
// Bernstein–Yang divsteps inversion, affine addition for G1ADD/G2ADD, the
// φ/ψ endomorphisms for subgroup checks and split scalar multiplication,
// prepared Miller-loop lines (fixed G2 points cost no curve arithmetic),
// Granger–Scott squaring in the final exponentiation, and per-point input
// validation spread over the available CPUs for MSM and pairing calls.
//
// Inputs are public, so nothing here tries to be constant-time.
package bls12381

//go:generate go run gen_fpmul.go

import (
	"math/big"
	"math/bits"
)

// fe is an element of Fp in Montgomery form (x·R mod p, R = 2^384), least
// significant word first. Values are always fully reduced.
type fe [6]uint64

// The modulus p, word by word.
const (
	q0 = 0xb9feffffffffaaab
	q1 = 0x1eabfffeb153ffff
	q2 = 0x6730d2a0f6b0f624
	q3 = 0x64774b84f38512bf
	q4 = 0x4b1ba7b6434bacd7
	q5 = 0x1a0111ea397fe69a

	// qInvNeg is -p^-1 mod 2^64.
	qInvNeg = 0x89f3fffcfffcfffd
)

var (
	pModulus = fe{q0, q1, q2, q3, q4, q5}
	// feOne is 1 in Montgomery form, i.e. R mod p.
	feOne = fe{0x760900000002fffd, 0xebf4000bc40c0002, 0x5f48985753c758ba, 0x77ce585370525745, 0x5c071a97a256ec6d, 0x15f65ec3fa80e493}
	// feR2 is R^2 mod p; multiplying by it enters Montgomery form.
	feR2 = fe{0xf4df1f341c341746, 0x0a76e6a609d104f1, 0x8de5476c4c95b6d5, 0x67eb88a9939d83c0, 0x9a793e85b519952d, 0x11988fe592cae3aa}
)

// Exponents used by the Fermat inversion fallback and square roots,
// as little-endian words. They are package variables (not init code) so that
// Go orders them before every init function that needs field arithmetic.
var (
	bigP          = feToBigRaw(&pModulus)
	expPMinus2    = bigToWords(new(big.Int).Sub(bigP, big.NewInt(2)))
	expPPlus1Div4 = bigToWords(new(big.Int).Rsh(new(big.Int).Add(bigP, big.NewInt(1)), 2))
	feHalf        = func() fe {
		var two, h fe
		two.setUint(2)
		inverse(&h, &two)
		return h
	}()
)

// bigToWords returns x's 64-bit limbs, least significant first, on any
// platform (a big.Word is 32 bits on 386 and arm).
func bigToWords(x *big.Int) []uint64 {
	out := make([]uint64, (x.BitLen()+63)/64)
	for i, w := range x.Bits() {
		out[i*bits.UintSize/64] |= uint64(w) << (i * bits.UintSize % 64)
	}
	return out
}

// feToBigRaw reads the limbs as a plain integer (no Montgomery conversion).
func feToBigRaw(x *fe) *big.Int {
	var b [48]byte
	for i := 0; i < 6; i++ {
		w := x[5-i]
		for j := 0; j < 8; j++ {
			b[i*8+j] = byte(w >> (56 - 8*j))
		}
	}
	return new(big.Int).SetBytes(b[:])
}

// feFromBig converts a (setup-time) integer into Montgomery form; it reduces
// the integer mod p first.
func feFromBig(x *big.Int) fe {
	v := new(big.Int).Mod(x, bigP)
	var b [48]byte
	v.FillBytes(b[:])
	var z fe
	if !z.setBytes(b[:]) {
		panic("bls12381: constant out of range")
	}
	return z
}

// feFromHex parses a setup-time hexadecimal constant.
func feFromHex(s string) fe {
	v, ok := new(big.Int).SetString(s, 16)
	if !ok {
		panic("bls12381: bad constant " + s)
	}
	return feFromBig(v)
}

// setBytes reads a 48-byte big-endian integer; it reports false when the
// value is not below p.
func (z *fe) setBytes(b []byte) bool {
	var t fe
	for i := 0; i < 6; i++ {
		o := 40 - 8*i
		t[i] = uint64(b[o])<<56 | uint64(b[o+1])<<48 | uint64(b[o+2])<<40 | uint64(b[o+3])<<32 |
			uint64(b[o+4])<<24 | uint64(b[o+5])<<16 | uint64(b[o+6])<<8 | uint64(b[o+7])
	}
	if !t.lessThanP() {
		return false
	}
	mul(z, &t, &feR2)
	return true
}

// lessThanP reports whether the raw limbs are below p.
func (z *fe) lessThanP() bool {
	var b uint64
	_, b = bits.Sub64(z[0], q0, 0)
	_, b = bits.Sub64(z[1], q1, b)
	_, b = bits.Sub64(z[2], q2, b)
	_, b = bits.Sub64(z[3], q3, b)
	_, b = bits.Sub64(z[4], q4, b)
	_, b = bits.Sub64(z[5], q5, b)
	return b != 0
}

// putBytes writes the canonical 48-byte big-endian value of z.
func (z *fe) putBytes(b []byte) {
	var t fe
	fromMont(&t, z)
	for i := 0; i < 6; i++ {
		o := 40 - 8*i
		w := t[i]
		b[o], b[o+1], b[o+2], b[o+3] = byte(w>>56), byte(w>>48), byte(w>>40), byte(w>>32)
		b[o+4], b[o+5], b[o+6], b[o+7] = byte(w>>24), byte(w>>16), byte(w>>8), byte(w)
	}
}

func fromMont(z, x *fe) {
	one := fe{1}
	mul(z, x, &one)
}

func (z *fe) isZero() bool {
	return z[0]|z[1]|z[2]|z[3]|z[4]|z[5] == 0
}

func (z *fe) isOne() bool { return *z == feOne }

func (z *fe) setOne() *fe {
	*z = feOne
	return z
}

func (z *fe) setUint(v uint64) *fe {
	t := fe{v}
	mul(z, &t, &feR2)
	return z
}

func add(z, x, y *fe) {
	var c uint64
	var t0, t1, t2, t3, t4, t5 uint64
	t0, c = bits.Add64(x[0], y[0], 0)
	t1, c = bits.Add64(x[1], y[1], c)
	t2, c = bits.Add64(x[2], y[2], c)
	t3, c = bits.Add64(x[3], y[3], c)
	t4, c = bits.Add64(x[4], y[4], c)
	t5, _ = bits.Add64(x[5], y[5], c)
	reduceOnceMasked(z, t0, t1, t2, t3, t4, t5)
}

func double(z, x *fe) { add(z, x, x) }

// addLazy sets z = x + y without reducing, so z < 2p (it fits: 2p < 2^382).
// Only mul may consume such a value: Montgomery multiplication of inputs
// below 2p still ends below 2p (p/2^384 < 1/8) and reduces fully.
func addLazy(z, x, y *fe) {
	var c uint64
	z[0], c = bits.Add64(x[0], y[0], 0)
	z[1], c = bits.Add64(x[1], y[1], c)
	z[2], c = bits.Add64(x[2], y[2], c)
	z[3], c = bits.Add64(x[3], y[3], c)
	z[4], c = bits.Add64(x[4], y[4], c)
	z[5], _ = bits.Add64(x[5], y[5], c)
}

func sub(z, x, y *fe) {
	var b uint64
	var t0, t1, t2, t3, t4, t5 uint64
	t0, b = bits.Sub64(x[0], y[0], 0)
	t1, b = bits.Sub64(x[1], y[1], b)
	t2, b = bits.Sub64(x[2], y[2], b)
	t3, b = bits.Sub64(x[3], y[3], b)
	t4, b = bits.Sub64(x[4], y[4], b)
	t5, b = bits.Sub64(x[5], y[5], b)
	// On borrow add p back, selected by a mask (see reduceOnceMasked).
	m := -b
	var c uint64
	z[0], c = bits.Add64(t0, q0&m, 0)
	z[1], c = bits.Add64(t1, q1&m, c)
	z[2], c = bits.Add64(t2, q2&m, c)
	z[3], c = bits.Add64(t3, q3&m, c)
	z[4], c = bits.Add64(t4, q4&m, c)
	z[5], _ = bits.Add64(t5, q5&m, c)
}

func neg(z, x *fe) {
	if x.isZero() {
		*z = fe{}
		return
	}
	var b uint64
	z[0], b = bits.Sub64(q0, x[0], 0)
	z[1], b = bits.Sub64(q1, x[1], b)
	z[2], b = bits.Sub64(q2, x[2], b)
	z[3], b = bits.Sub64(q3, x[3], b)
	z[4], b = bits.Sub64(q4, x[4], b)
	z[5], _ = bits.Sub64(q5, x[5], b)
}

// exp sets z = x^e for a little-endian word exponent, with a fixed 4-bit
// window (16 precomputed powers, one multiplication per nibble).
func exp(z, x *fe, e []uint64) {
	var table [16]fe
	table[0].setOne()
	table[1] = *x
	for i := 2; i < 16; i++ {
		mul(&table[i], &table[i-1], x)
	}
	var r fe
	r.setOne()
	started := false
	for i := len(e) - 1; i >= 0; i-- {
		for s := 60; s >= 0; s -= 4 {
			if started {
				square(&r, &r)
				square(&r, &r)
				square(&r, &r)
				square(&r, &r)
			}
			if d := (e[i] >> uint(s)) & 15; d != 0 {
				mul(&r, &r, &table[d])
				started = true
			}
		}
	}
	*z = r
}

// sqrt sets z to a square root of x and reports whether one exists. Since
// p ≡ 3 mod 4, x^((p+1)/4) is a root whenever x is a square.
func sqrt(z, x *fe) bool {
	var r, c fe
	exp(&r, x, expPPlus1Div4)
	square(&c, &r)
	if c != *x {
		return false
	}
	*z = r
	return true
}

// sgn0 is the parity of the canonical value, as RFC 9380 defines it.
func sgn0(x *fe) uint64 {
	var t fe
	fromMont(&t, x)
	return t[0] & 1
}

// isLexLarger reports whether x > (p-1)/2, the "larger of the two roots"
// rule of the compressed point encoding.
func isLexLarger(x *fe) bool {
	var t, n fe
	fromMont(&t, x)
	neg(&n, x)
	fromMont(&n, &n)
	// x > p-x  ⇔  x > (p-1)/2 for x ≠ 0.
	for i := 5; i >= 0; i-- {
		if t[i] != n[i] {
			return t[i] > n[i]
		}
	}
	return false
}
