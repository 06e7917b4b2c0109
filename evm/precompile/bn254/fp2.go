package bn254

import "math/bits"

// fe2 is an element c0 + c1·i of Fp2 = Fp[i]/(i² + 1).
type fe2 struct{ c0, c1 fe }

func (x *fe2) isZero() bool { return x.c0.isZero() && x.c1.isZero() }

func (x *fe2) isOne() bool { return x.c0 == feOne && x.c1.isZero() }

// The additive Fp2 operations work on the limbs directly, one call per
// Fp2 element instead of one per coefficient: they are as frequent as
// multiplications in the tower and call overhead showed in profiles.

func fe2AddGeneric(z, x, y *fe2) {
	var c uint64
	var r0, r1, r2, r3 uint64
	r0, c = bits.Add64(x.c0[0], y.c0[0], 0)
	r1, c = bits.Add64(x.c0[1], y.c0[1], c)
	r2, c = bits.Add64(x.c0[2], y.c0[2], c)
	r3, _ = bits.Add64(x.c0[3], y.c0[3], c)
	var s0, s1, s2, s3 uint64
	s0, c = bits.Add64(x.c1[0], y.c1[0], 0)
	s1, c = bits.Add64(x.c1[1], y.c1[1], c)
	s2, c = bits.Add64(x.c1[2], y.c1[2], c)
	s3, _ = bits.Add64(x.c1[3], y.c1[3], c)
	z.c0 = fe{r0, r1, r2, r3}
	z.c1 = fe{s0, s1, s2, s3}
	reduce(&z.c0)
	reduce(&z.c1)
}

func fe2SubGeneric(z, x, y *fe2) {
	var b uint64
	var r0, r1, r2, r3 uint64
	r0, b = bits.Sub64(x.c0[0], y.c0[0], 0)
	r1, b = bits.Sub64(x.c0[1], y.c0[1], b)
	r2, b = bits.Sub64(x.c0[2], y.c0[2], b)
	r3, b = bits.Sub64(x.c0[3], y.c0[3], b)
	mr := -b
	r0, b = bits.Add64(r0, p0&mr, 0)
	r1, b = bits.Add64(r1, p1&mr, b)
	r2, b = bits.Add64(r2, p2&mr, b)
	r3, _ = bits.Add64(r3, p3&mr, b)
	var s0, s1, s2, s3 uint64
	s0, b = bits.Sub64(x.c1[0], y.c1[0], 0)
	s1, b = bits.Sub64(x.c1[1], y.c1[1], b)
	s2, b = bits.Sub64(x.c1[2], y.c1[2], b)
	s3, b = bits.Sub64(x.c1[3], y.c1[3], b)
	ms := -b
	s0, b = bits.Add64(s0, p0&ms, 0)
	s1, b = bits.Add64(s1, p1&ms, b)
	s2, b = bits.Add64(s2, p2&ms, b)
	s3, _ = bits.Add64(s3, p3&ms, b)
	z.c0 = fe{r0, r1, r2, r3}
	z.c1 = fe{s0, s1, s2, s3}
}

func fe2DoubleGeneric(z, x *fe2) { fe2AddGeneric(z, x, x) }

func fe2Neg(z, x *fe2) {
	feNeg(&z.c0, &x.c0)
	feNeg(&z.c1, &x.c1)
}

// fe2Conj sets z to the conjugate c0 - c1·i, which is also x^p.
func fe2Conj(z, x *fe2) {
	z.c0 = x.c0
	feNeg(&z.c1, &x.c1)
}

// fe2MulGeneric uses Karatsuba with lazy reduction: three 512-bit products and
// two Montgomery reductions. (x0+x1)(y0+y1) - x0y0 - x1y1 = x0y1 + x1y0 <
// 2p² and x0y0 - x1y1 (+p·2^256 when negative) stay below p·2^256, the
// bound montReduce needs.
func fe2MulGeneric(z, x, y *fe2) {
	var a, b, s wide
	var sx, sy fe
	mulWide(&a, &x.c0, &y.c0)
	mulWide(&b, &x.c1, &y.c1)
	addNoReduce(&sx, &x.c0, &x.c1)
	addNoReduce(&sy, &y.c0, &y.c1)
	mulWide(&s, &sx, &sy)
	wideSubNoBorrow(&s, &s, &a)
	wideSubNoBorrow(&s, &s, &b)
	montReduce(&z.c1, &s)
	wideSub(&a, &a, &b)
	montReduce(&z.c0, &a)
}

// fe2SquareGeneric: (c0+c1 i)² = (c0+c1)(c0-c1) + 2c0c1 i.
func fe2SquareGeneric(z, x *fe2) {
	var s, d, m fe
	feAdd(&s, &x.c0, &x.c1)
	feSub(&d, &x.c0, &x.c1)
	feMul(&m, &x.c0, &x.c1)
	feMul(&z.c0, &s, &d)
	feDouble(&z.c1, &m)
}

// fe2MulFp multiplies by a base-field element.
func fe2MulFp(z, x *fe2, y *fe) {
	feMul(&z.c0, &x.c0, y)
	feMul(&z.c1, &x.c1, y)
}

// fe2MulXiGeneric multiplies by the non-residue ξ = 9 + i:
// (a + b i)(9 + i) = (9a - b) + (a + 9b) i.
func fe2MulXiGeneric(z, x *fe2) {
	var a9, b9, t fe
	mul9(&a9, &x.c0)
	mul9(&b9, &x.c1)
	feSub(&t, &a9, &x.c1)
	feAdd(&z.c1, &x.c0, &b9)
	z.c0 = t
}

// mul9 sets z = 9x: the five-limb product is brought below p by
// subtracting 8p, 4p, 2p and p where they fit.
func mul9(z, x *fe) {
	var t [5]uint64
	var hi, lo, c, carry uint64
	carry, t[0] = bits.Mul64(x[0], 9)
	hi, lo = bits.Mul64(x[1], 9)
	t[1], c = bits.Add64(lo, carry, 0)
	carry = hi + c
	hi, lo = bits.Mul64(x[2], 9)
	t[2], c = bits.Add64(lo, carry, 0)
	carry = hi + c
	hi, lo = bits.Mul64(x[3], 9)
	t[3], c = bits.Add64(lo, carry, 0)
	t[4] = hi + c
	for i := range pMultiples {
		subIfGE(&t, &pMultiples[i])
	}
	z[0], z[1], z[2], z[3] = t[0], t[1], t[2], t[3]
}

// pMultiples holds 8p, 4p, 2p, p as five-limb integers.
var pMultiples [4][5]uint64

func init() {
	for i, k := range []uint{3, 2, 1, 0} {
		m := [5]uint64{p0, p1, p2, p3, 0}
		for range k {
			m[4] = m[4]<<1 | m[3]>>63
			m[3] = m[3]<<1 | m[2]>>63
			m[2] = m[2]<<1 | m[1]>>63
			m[1] = m[1]<<1 | m[0]>>63
			m[0] <<= 1
		}
		pMultiples[i] = m
	}
}

// subIfGE sets t = t - m when t >= m.
func subIfGE(t, m *[5]uint64) {
	r0, b := bits.Sub64(t[0], m[0], 0)
	r1, b := bits.Sub64(t[1], m[1], b)
	r2, b := bits.Sub64(t[2], m[2], b)
	r3, b := bits.Sub64(t[3], m[3], b)
	r4, b := bits.Sub64(t[4], m[4], b)
	if b == 0 {
		*t = [5]uint64{r0, r1, r2, r3, r4}
	}
}

// fe2Inv sets z = x^-1 via the norm: 1/(a+bi) = (a-bi)/(a²+b²).
func fe2Inv(z, x *fe2) {
	var n, t fe
	feSquare(&n, &x.c0)
	feSquare(&t, &x.c1)
	feAdd(&n, &n, &t)
	feInv(&n, &n)
	feMul(&z.c0, &x.c0, &n)
	feMul(&t, &x.c1, &n)
	feNeg(&z.c1, &t)
}

// fe2Exp sets z = x^e for a little-endian multi-limb exponent (init only).
func fe2Exp(z, x *fe2, e []uint64) {
	r := fe2{c0: feOne}
	b := *x
	for i := len(e) - 1; i >= 0; i-- {
		for j := 63; j >= 0; j-- {
			fe2Square(&r, &r)
			if e[i]>>uint(j)&1 == 1 {
				fe2Mul(&r, &r, &b)
			}
		}
	}
	*z = r
}
