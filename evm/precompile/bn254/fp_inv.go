package bn254

import "math/bits"

// Inversion by Bernstein–Yang divsteps, variable time: the precompiles
// handle public data only. The binary extended Euclid it replaces needed
// some 500 dependent four-limb steps; here each batch decides 62 divsteps
// from the low 64 bits of f and g alone and then applies them to the full
// numbers with a few word-by-limb products. A G1 addition is one field
// inversion plus a few dozen multiplications, so this is most of its cost.
//
// State: f, g start as (p, a) and d, e as (0, 1); the invariants are
// f ≡ d·a and g ≡ e·a (mod p). When g reaches 0, f = ±gcd(p, a) = ±1, so
// a^-1 = ±d.

var rCube fe // 2^768 mod p: turns (xR)^-1 into x^-1·R

func init() { feMul(&rCube, &rSq, &rSq) }

// maxDivstepBatches bounds the loop far above the 12 batches that 254-bit
// inputs need (Bernstein–Yang: at most (49·254 + 57)/17 divsteps).
const maxDivstepBatches = 24

// feInv sets z = x^-1 (0 for x = 0).
func feInv(z, x *fe) {
	if x.isZero() {
		*z = fe{}
		return
	}
	// Invert the Montgomery representative a = xR as a plain integer,
	// giving x^-1·R^-1, then multiply by R³ in Montgomery form.
	var inv fe
	if !invertDivsteps(&inv, x) {
		feInvFermat(z, x) // unreachable for p prime; kept as a safe fallback
		return
	}
	feMul(z, &inv, &rCube)
}

// s320 is a signed 320-bit integer, two's complement, little-endian limbs.
type s320 [5]uint64

func (x *s320) isNeg() bool { return int64(x[4]) < 0 }

func (x *s320) isZero() bool { return x[0]|x[1]|x[2]|x[3]|x[4] == 0 }

func (x *s320) neg() {
	var b uint64
	x[0], b = bits.Sub64(0, x[0], 0)
	x[1], b = bits.Sub64(0, x[1], b)
	x[2], b = bits.Sub64(0, x[2], b)
	x[3], b = bits.Sub64(0, x[3], b)
	x[4], _ = bits.Sub64(0, x[4], b)
}

// invertDivsteps sets z = a^-1 mod p for the integer a (0 < a < p),
// reporting false only if the loop bound is hit.
func invertDivsteps(z, a *fe) bool {
	f := s320{p0, p1, p2, p3, 0}
	g := s320{a[0], a[1], a[2], a[3], 0}
	var d, e s320
	e[0] = 1
	delta := int64(1)
	for range maxDivstepBatches {
		var u, v, q, r int64
		delta, u, v, q, r = divsteps62(delta, f[0], g[0])
		var f2, g2, d2, e2 s320
		applyMatrix(&f2, &f, &g, u, v)
		applyMatrix(&g2, &f, &g, q, r)
		applyMatrixModP(&d2, &d, &e, u, v)
		applyMatrixModP(&e2, &d, &e, q, r)
		f, g, d, e = f2, g2, d2, e2
		if g.isZero() {
			// f = ±1 and d·a ≡ f, with d in [0, p).
			r := fe{d[0], d[1], d[2], d[3]}
			if f.isNeg() {
				feNeg(&r, &r)
			}
			*z = r
			return true
		}
	}
	return false
}

// divsteps62 runs 62 divsteps on the low 64 bits of f (odd) and g and
// returns the new delta and the matrix [u v; q r] with
// 2^62·(f', g') = (u·f + v·g, q·f + r·g). A divstep is
//
//	delta > 0 and g odd: (1 - delta, g, (g - f)/2)
//	g odd:               (1 + delta, f, (g + f)/2)
//	g even:              (1 + delta, f, g/2)
//
// and runs of even g are taken in one shift.
func divsteps62(delta int64, f, g uint64) (int64, int64, int64, int64, int64) {
	u, v, q, r := int64(1), int64(0), int64(0), int64(1)
	for i := 0; i < 62; {
		if g&1 == 0 {
			n := bits.TrailingZeros64(g) // 64 when g == 0
			if n > 62-i {
				n = 62 - i
			}
			g >>= uint(n)
			u <<= uint(n)
			v <<= uint(n)
			delta += int64(n)
			i += n
			continue
		}
		if delta > 0 {
			// (f, g) = (g, g - f), then the halving below.
			f, g = g, g-f
			u, v, q, r = q, r, q-u, r-v
			delta = -delta
		} else {
			g += f
			q += u
			r += v
		}
		// g is now even: halve it (doubling f's row keeps the scale).
		g >>= 1
		u <<= 1
		v <<= 1
		delta++
		i++
	}
	return delta, u, v, q, r
}

// mulAdd sets t += x·k modulo 2^384 for a signed x and k. It adds the
// unsigned product of the two's complement patterns and corrects it: with
// x = xu - sx·2^320 and k = ku - sk·2^64, modulo 2^384
// x·k = xu·ku - sk·(xu << 64) - sx·(ku << 320).
func mulAdd(t *[6]uint64, x *s320, k int64) {
	ku := uint64(k)
	h0, l0 := bits.Mul64(x[0], ku)
	h1, l1 := bits.Mul64(x[1], ku)
	h2, l2 := bits.Mul64(x[2], ku)
	h3, l3 := bits.Mul64(x[3], ku)
	h4, l4 := bits.Mul64(x[4], ku)
	var c uint64
	l1, c = bits.Add64(l1, h0, 0)
	l2, c = bits.Add64(l2, h1, c)
	l3, c = bits.Add64(l3, h2, c)
	l4, c = bits.Add64(l4, h3, c)
	l5 := h4 + c
	if k < 0 {
		var b uint64
		l1, b = bits.Sub64(l1, x[0], 0)
		l2, b = bits.Sub64(l2, x[1], b)
		l3, b = bits.Sub64(l3, x[2], b)
		l4, b = bits.Sub64(l4, x[3], b)
		l5, _ = bits.Sub64(l5, x[4], b)
	}
	if x.isNeg() {
		l5 -= ku
	}
	t[0], c = bits.Add64(t[0], l0, 0)
	t[1], c = bits.Add64(t[1], l1, c)
	t[2], c = bits.Add64(t[2], l2, c)
	t[3], c = bits.Add64(t[3], l3, c)
	t[4], c = bits.Add64(t[4], l4, c)
	t[5], _ = bits.Add64(t[5], l5, c)
}

// shr62 sets out to the arithmetic right shift by 62 of t, known to fit
// in 320 bits afterwards.
func shr62(out *s320, t *[6]uint64) {
	out[0] = t[0]>>62 | t[1]<<2
	out[1] = t[1]>>62 | t[2]<<2
	out[2] = t[2]>>62 | t[3]<<2
	out[3] = t[3]>>62 | t[4]<<2
	out[4] = t[4]>>62 | t[5]<<2
}

// applyMatrix sets out = (u·f + v·g)/2^62, an exact division by the
// choice of the matrix.
func applyMatrix(out, f, g *s320, u, v int64) {
	var t [6]uint64
	mulAdd(&t, f, u)
	mulAdd(&t, g, v)
	shr62(out, &t)
}

var pS320 = s320{p0, p1, p2, p3, 0}

// applyMatrixModP sets out = (u·d + v·e)/2^62 mod p in [0, p) for d, e in
// [0, p): adding k·p with k ≡ -(u·d + v·e)·p^-1 (mod 2^62) makes the
// division exact, and since |u| + |v| <= 2^62 the quotient is below 2p in
// absolute value.
func applyMatrixModP(out, d, e *s320, u, v int64) {
	var t [6]uint64
	mulAdd(&t, d, u)
	mulAdd(&t, e, v)
	k := (t[0] * pInv) & (1<<62 - 1)
	mulAdd(&t, &pS320, int64(k))
	shr62(out, &t)
	for out.isNeg() {
		add320(out, &pS320)
	}
	for !less320(out, &pS320) {
		sub320(out, &pS320)
	}
}

func add320(a, b *s320) {
	var c uint64
	a[0], c = bits.Add64(a[0], b[0], 0)
	a[1], c = bits.Add64(a[1], b[1], c)
	a[2], c = bits.Add64(a[2], b[2], c)
	a[3], c = bits.Add64(a[3], b[3], c)
	a[4], _ = bits.Add64(a[4], b[4], c)
}

func sub320(a, b *s320) {
	var c uint64
	a[0], c = bits.Sub64(a[0], b[0], 0)
	a[1], c = bits.Sub64(a[1], b[1], c)
	a[2], c = bits.Sub64(a[2], b[2], c)
	a[3], c = bits.Sub64(a[3], b[3], c)
	a[4], _ = bits.Sub64(a[4], b[4], c)
}

// less320 reports a < b for non-negative a, b.
func less320(a, b *s320) bool {
	_, c := bits.Sub64(a[0], b[0], 0)
	_, c = bits.Sub64(a[1], b[1], c)
	_, c = bits.Sub64(a[2], b[2], c)
	_, c = bits.Sub64(a[3], b[3], c)
	_, c = bits.Sub64(a[4], b[4], c)
	return c != 0
}
