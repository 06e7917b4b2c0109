package bls12381

import (
	"math/big"
	"math/bits"
	"sync/atomic"
)

// Field inversion by Bernstein–Yang divsteps, variable time (the inputs are
// public precompile arguments). Each batch decides 62 divsteps from the low
// 64 bits of f and g alone, as a 2×2 matrix of int64 entries, and only then
// applies it to the full numbers: a dozen or so batches of word-by-limb
// products for a 381-bit input. The optimized binary GCD this replaced
// (Pornin's, 30 steps per round) needed about twice as many rounds, and each
// round's four linear combinations cost as much as a batch here; turning an
// addition result into affine coordinates is one inversion, so it dominated
// the G1ADD and G2ADD precompiles.
//
// State: f, g start as (p, a) and d, e as (0, 1), with f ≡ d·a and
// g ≡ e·a (mod p) throughout. f stays odd. When g reaches 0, f = ±gcd(p, a)
// = ±1, so a^-1 = ±d.

// maxDivstepBatches caps the loop well above the worst case: Bernstein and
// Yang bound a 381-bit input by ⌊(49·381 + 57)/17⌋ = 1101 divsteps, i.e. 18
// batches of 62.
const maxDivstepBatches = 24

// invRCube is R³ mod p (R = 2^384) as plain limbs: the divsteps invert the
// Montgomery representative x·R as an integer, giving x^-1·R^-1, and one
// Montgomery multiplication by R³ turns that into x^-1·R.
var invRCube = func() (t fe) {
	v := new(big.Int).Lsh(big.NewInt(1), 3*384)
	v.Mod(v, bigP)
	copy(t[:], bigToWords(v))
	return t
}()

// inverse sets z = 1/x (and 0 for x = 0, the inv0 of RFC 9380).
func inverse(z, x *fe) {
	if x.isZero() {
		*z = fe{}
		return
	}
	var d fe
	if !invertDivsteps(&d, x) {
		// Unreachable for a prime modulus and a nonzero x < p; kept so a
		// broken bound degrades to slow instead of wrong.
		invFallbacks.Add(1)
		exp(z, x, expPMinus2)
		return
	}
	mul(z, &d, &invRCube)
}

// invFallbacks counts uses of the Fermat fallback; tests require zero.
var invFallbacks atomic.Int64

// s384 is a signed integer in 384-bit two's complement, least significant
// word first. |f|, |g| <= p < 2^381 and d, e in [0, p) all fit.
type s384 [6]uint64

func (x *s384) isNeg() bool { return int64(x[5]) < 0 }

func (x *s384) isZero() bool { return x[0]|x[1]|x[2]|x[3]|x[4]|x[5] == 0 }

// invertDivsteps sets z = a^-1 mod p for the integer a (0 < a < p), in
// [0, p), and reports false only if the batch cap is hit.
func invertDivsteps(z, a *fe) bool {
	f := s384(pModulus)
	g := s384(*a)
	var d, e s384
	e[0] = 1
	delta := int64(1)
	for range maxDivstepBatches {
		var m divMatrix
		delta = divsteps62(&m, delta, f[0], g[0])
		var f2, g2 s384
		applyMatrix(&f2, &f, &g, m.u, m.v)
		applyMatrix(&g2, &f, &g, m.q, m.r)
		f, g = f2, g2
		var d2, e2 s384
		applyMatrixModP(&d2, &d, &e, m.u, m.v)
		applyMatrixModP(&e2, &d, &e, m.q, m.r)
		d, e = d2, e2
		if g.isZero() {
			r := fe(d)
			if f.isNeg() {
				neg(&r, &r)
			}
			*z = r
			return true
		}
	}
	return false
}

// divMatrix is the transition of one batch: 2^62·(f', g') =
// (u·f + v·g, q·f + r·g). |u| + |v| <= 2^62 and |q| + |r| <= 2^62.
type divMatrix struct{ u, v, q, r int64 }

// divsteps62 runs 62 divsteps on the low 64 bits of f (odd) and g, which
// decide them exactly, fills m and returns the new delta. One divstep:
//
//	delta > 0 and g odd: (1 - delta, g, (g - f)/2)
//	g odd:               (1 + delta, f, (g + f)/2)
//	g even:              (1 + delta, f, g/2)
//
// Variable-time shortcuts take several divsteps per iteration, about a
// third as many iterations: a run of even g is one shift, and for an odd g
// (after the swap, if due) b = min(1 - delta, 6, steps left) steps
// cannot swap, because delta stays <= 0 throughout, so together they add
// the one multiple w·f (0 <= w < 2^b) that makes g divisible by 2^b and
// divide by 2^b: exactly the same steps, computed at once. Halving g is
// done as doubling f's row of the matrix, so after k steps both rows have
// |·| + |·| <= 2^k: adding w < 2^b times one row to the other is followed
// by at least b doublings.
func divsteps62(m *divMatrix, delta int64, f, g uint64) int64 {
	u, v, q, r := int64(1), int64(0), int64(0), int64(1)
	eta := -delta
	left := 62
	for {
		// The mask stops the shift at the steps left (g may be 0).
		n := bits.TrailingZeros64(g | ^uint64(0)<<uint(left))
		g >>= uint(n)
		u <<= uint(n)
		v <<= uint(n)
		eta -= int64(n)
		left -= n
		if left == 0 {
			break
		}
		if eta < 0 {
			// delta > 0 and g odd: f takes g's place and g becomes -f,
			// to which the multiple of the new f is added below.
			eta = -eta
			f, g = g, -f
			u, v, q, r = q, r, -u, -v
		}
		b := int(eta) + 1
		if b > left {
			b = left
		}
		if b > 6 {
			b = 6
		}
		// w = -g/f mod 2^b: for odd f, f·(2 - f²) inverts f mod 64.
		w := f * g * (f*f - 2) & (1<<uint(b) - 1)
		g += f * w
		q += u * int64(w)
		r += v * int64(w)
	}
	m.u, m.v, m.q, m.r = u, v, q, r
	return -eta
}

// mulAdd sets t += x·k modulo 2^448 for signed x and k. It adds the product
// of the unsigned patterns and corrects it: with x = xu - sx·2^384 and
// k = ku - sk·2^64, modulo 2^448 x·k = xu·ku - sk·(xu << 64) - sx·(ku << 384).
func mulAdd(t *[7]uint64, x *s384, k int64) {
	ku := uint64(k)
	h0, l0 := bits.Mul64(x[0], ku)
	h1, l1 := bits.Mul64(x[1], ku)
	h2, l2 := bits.Mul64(x[2], ku)
	h3, l3 := bits.Mul64(x[3], ku)
	h4, l4 := bits.Mul64(x[4], ku)
	h5, l5 := bits.Mul64(x[5], ku)
	var c uint64
	l1, c = bits.Add64(l1, h0, 0)
	l2, c = bits.Add64(l2, h1, c)
	l3, c = bits.Add64(l3, h2, c)
	l4, c = bits.Add64(l4, h3, c)
	l5, c = bits.Add64(l5, h4, c)
	l6 := h5 + c
	if k < 0 {
		var b uint64
		l1, b = bits.Sub64(l1, x[0], 0)
		l2, b = bits.Sub64(l2, x[1], b)
		l3, b = bits.Sub64(l3, x[2], b)
		l4, b = bits.Sub64(l4, x[3], b)
		l5, b = bits.Sub64(l5, x[4], b)
		l6, _ = bits.Sub64(l6, x[5], b)
	}
	if x.isNeg() {
		l6 -= ku
	}
	t[0], c = bits.Add64(t[0], l0, 0)
	t[1], c = bits.Add64(t[1], l1, c)
	t[2], c = bits.Add64(t[2], l2, c)
	t[3], c = bits.Add64(t[3], l3, c)
	t[4], c = bits.Add64(t[4], l4, c)
	t[5], c = bits.Add64(t[5], l5, c)
	t[6], _ = bits.Add64(t[6], l6, c)
}

// shr62 sets out to t >> 62 (arithmetic), which the callers know fits in
// 384 bits.
func shr62(out *s384, t *[7]uint64) {
	out[0] = t[0]>>62 | t[1]<<2
	out[1] = t[1]>>62 | t[2]<<2
	out[2] = t[2]>>62 | t[3]<<2
	out[3] = t[3]>>62 | t[4]<<2
	out[4] = t[4]>>62 | t[5]<<2
	out[5] = t[5]>>62 | t[6]<<2
}

// applyMatrix sets out = (u·f + v·g)/2^62; the matrix makes the division
// exact, and |out| <= max(|f|, |g|).
func applyMatrix(out, f, g *s384, u, v int64) {
	var t [7]uint64
	mulAdd(&t, f, u)
	mulAdd(&t, g, v)
	shr62(out, &t)
}

// applyMatrixModP sets out = (u·d + v·e)/2^62 mod p, in [0, p), for d, e in
// [0, p). Adding k·p with k ≡ -(u·d + v·e)·p^-1 (mod 2^62) makes the
// division exact; as |u| + |v| <= 2^62 and k < 2^62, the quotient lies in
// (-p, 2p), so one correction suffices.
func applyMatrixModP(out, d, e *s384, u, v int64) {
	var t [7]uint64
	mulAdd(&t, d, u)
	mulAdd(&t, e, v)
	k := (t[0] * qInvNeg) & (1<<62 - 1)
	mulAdd(&t, (*s384)(&pModulus), int64(k))
	shr62(out, &t)
	r := (*fe)(out)
	if out.isNeg() {
		var c uint64
		r[0], c = bits.Add64(r[0], q0, 0)
		r[1], c = bits.Add64(r[1], q1, c)
		r[2], c = bits.Add64(r[2], q2, c)
		r[3], c = bits.Add64(r[3], q3, c)
		r[4], c = bits.Add64(r[4], q4, c)
		r[5], _ = bits.Add64(r[5], q5, c)
	} else if !r.lessThanP() {
		var b uint64
		r[0], b = bits.Sub64(r[0], q0, 0)
		r[1], b = bits.Sub64(r[1], q1, b)
		r[2], b = bits.Sub64(r[2], q2, b)
		r[3], b = bits.Sub64(r[3], q3, b)
		r[4], b = bits.Sub64(r[4], q4, b)
		r[5], _ = bits.Sub64(r[5], q5, b)
	}
}
