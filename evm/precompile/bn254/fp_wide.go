package bn254

import "math/bits"

// Wide (512-bit) products and Montgomery reduction, so that Fp2
// multiplication can combine three products with only two reductions.

// wide is an unreduced 512-bit product, little-endian limbs.
type wide [8]uint64

// mulWideGeneric sets t = x·y (no reduction) by product scanning: each output
// limb sums the partial products of its column in a three-word
// accumulator, which keeps register pressure low.
func mulWideGeneric(t *wide, x, y *fe) {
	x0, x1, x2, x3 := x[0], x[1], x[2], x[3]
	y0, y1, y2, y3 := y[0], y[1], y[2], y[3]
	var r0, r1, r2, hi, lo, c uint64
	hi, lo = bits.Mul64(x0, y0)
	r0, c = bits.Add64(r0, lo, 0)
	r1, c = bits.Add64(r1, hi, c)
	r2 += c
	t[0] = r0
	r0, r1, r2 = r1, r2, 0
	hi, lo = bits.Mul64(x0, y1)
	r0, c = bits.Add64(r0, lo, 0)
	r1, c = bits.Add64(r1, hi, c)
	r2 += c
	hi, lo = bits.Mul64(x1, y0)
	r0, c = bits.Add64(r0, lo, 0)
	r1, c = bits.Add64(r1, hi, c)
	r2 += c
	t[1] = r0
	r0, r1, r2 = r1, r2, 0
	hi, lo = bits.Mul64(x0, y2)
	r0, c = bits.Add64(r0, lo, 0)
	r1, c = bits.Add64(r1, hi, c)
	r2 += c
	hi, lo = bits.Mul64(x1, y1)
	r0, c = bits.Add64(r0, lo, 0)
	r1, c = bits.Add64(r1, hi, c)
	r2 += c
	hi, lo = bits.Mul64(x2, y0)
	r0, c = bits.Add64(r0, lo, 0)
	r1, c = bits.Add64(r1, hi, c)
	r2 += c
	t[2] = r0
	r0, r1, r2 = r1, r2, 0
	hi, lo = bits.Mul64(x0, y3)
	r0, c = bits.Add64(r0, lo, 0)
	r1, c = bits.Add64(r1, hi, c)
	r2 += c
	hi, lo = bits.Mul64(x1, y2)
	r0, c = bits.Add64(r0, lo, 0)
	r1, c = bits.Add64(r1, hi, c)
	r2 += c
	hi, lo = bits.Mul64(x2, y1)
	r0, c = bits.Add64(r0, lo, 0)
	r1, c = bits.Add64(r1, hi, c)
	r2 += c
	hi, lo = bits.Mul64(x3, y0)
	r0, c = bits.Add64(r0, lo, 0)
	r1, c = bits.Add64(r1, hi, c)
	r2 += c
	t[3] = r0
	r0, r1, r2 = r1, r2, 0
	hi, lo = bits.Mul64(x1, y3)
	r0, c = bits.Add64(r0, lo, 0)
	r1, c = bits.Add64(r1, hi, c)
	r2 += c
	hi, lo = bits.Mul64(x2, y2)
	r0, c = bits.Add64(r0, lo, 0)
	r1, c = bits.Add64(r1, hi, c)
	r2 += c
	hi, lo = bits.Mul64(x3, y1)
	r0, c = bits.Add64(r0, lo, 0)
	r1, c = bits.Add64(r1, hi, c)
	r2 += c
	t[4] = r0
	r0, r1, r2 = r1, r2, 0
	hi, lo = bits.Mul64(x2, y3)
	r0, c = bits.Add64(r0, lo, 0)
	r1, c = bits.Add64(r1, hi, c)
	r2 += c
	hi, lo = bits.Mul64(x3, y2)
	r0, c = bits.Add64(r0, lo, 0)
	r1, c = bits.Add64(r1, hi, c)
	r2 += c
	t[5] = r0
	r0, r1, r2 = r1, r2, 0
	hi, lo = bits.Mul64(x3, y3)
	r0, c = bits.Add64(r0, lo, 0)
	r1, c = bits.Add64(r1, hi, c)
	r2 += c
	t[6] = r0
	r0, r1, r2 = r1, r2, 0
	t[7] = r0
}

// montReduceGeneric sets z = t·2^-256 mod p for t < p·2^256, fully reduced.
func montReduceGeneric(z *fe, t *wide) {
	t0, t1, t2, t3, t4, t5, t6, t7 := t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7]
	var hi, lo, c, carry, top, m uint64
	m = t0 * pInv
	hi, lo = bits.Mul64(m, p0)
	lo, c = bits.Add64(lo, t0, 0)
	hi += c
	carry = hi
	hi, lo = bits.Mul64(m, p1)
	lo, c = bits.Add64(lo, t1, 0)
	hi += c
	t1, c = bits.Add64(lo, carry, 0)
	carry = hi + c
	hi, lo = bits.Mul64(m, p2)
	lo, c = bits.Add64(lo, t2, 0)
	hi += c
	t2, c = bits.Add64(lo, carry, 0)
	carry = hi + c
	hi, lo = bits.Mul64(m, p3)
	lo, c = bits.Add64(lo, t3, 0)
	hi += c
	t3, c = bits.Add64(lo, carry, 0)
	carry = hi + c
	t4, top = bits.Add64(t4, carry, 0)
	m = t1 * pInv
	hi, lo = bits.Mul64(m, p0)
	lo, c = bits.Add64(lo, t1, 0)
	hi += c
	carry = hi
	hi, lo = bits.Mul64(m, p1)
	lo, c = bits.Add64(lo, t2, 0)
	hi += c
	t2, c = bits.Add64(lo, carry, 0)
	carry = hi + c
	hi, lo = bits.Mul64(m, p2)
	lo, c = bits.Add64(lo, t3, 0)
	hi += c
	t3, c = bits.Add64(lo, carry, 0)
	carry = hi + c
	hi, lo = bits.Mul64(m, p3)
	lo, c = bits.Add64(lo, t4, 0)
	hi += c
	t4, c = bits.Add64(lo, carry, 0)
	carry = hi + c
	t5, top = bits.Add64(t5, carry, top)
	m = t2 * pInv
	hi, lo = bits.Mul64(m, p0)
	lo, c = bits.Add64(lo, t2, 0)
	hi += c
	carry = hi
	hi, lo = bits.Mul64(m, p1)
	lo, c = bits.Add64(lo, t3, 0)
	hi += c
	t3, c = bits.Add64(lo, carry, 0)
	carry = hi + c
	hi, lo = bits.Mul64(m, p2)
	lo, c = bits.Add64(lo, t4, 0)
	hi += c
	t4, c = bits.Add64(lo, carry, 0)
	carry = hi + c
	hi, lo = bits.Mul64(m, p3)
	lo, c = bits.Add64(lo, t5, 0)
	hi += c
	t5, c = bits.Add64(lo, carry, 0)
	carry = hi + c
	t6, top = bits.Add64(t6, carry, top)
	m = t3 * pInv
	hi, lo = bits.Mul64(m, p0)
	lo, c = bits.Add64(lo, t3, 0)
	hi += c
	carry = hi
	hi, lo = bits.Mul64(m, p1)
	lo, c = bits.Add64(lo, t4, 0)
	hi += c
	t4, c = bits.Add64(lo, carry, 0)
	carry = hi + c
	hi, lo = bits.Mul64(m, p2)
	lo, c = bits.Add64(lo, t5, 0)
	hi += c
	t5, c = bits.Add64(lo, carry, 0)
	carry = hi + c
	hi, lo = bits.Mul64(m, p3)
	lo, c = bits.Add64(lo, t6, 0)
	hi += c
	t6, c = bits.Add64(lo, carry, 0)
	carry = hi + c
	t7, top = bits.Add64(t7, carry, top)
	_ = top
	r0, b := bits.Sub64(t4, p0, 0)
	r1, b := bits.Sub64(t5, p1, b)
	r2, b := bits.Sub64(t6, p2, b)
	r3, b := bits.Sub64(t7, p3, b)
	mask := -b // all ones when the subtraction borrowed: keep the input
	z[0] = r0 ^ ((t4 ^ r0) & mask)
	z[1] = r1 ^ ((t5 ^ r1) & mask)
	z[2] = r2 ^ ((t6 ^ r2) & mask)
	z[3] = r3 ^ ((t7 ^ r3) & mask)
}

// wideSub sets t = a - b, adding p·2^256 if the difference is negative
// (inputs below p², so the result stays below p·2^256).
func wideSub(t, a, b *wide) {
	var c uint64
	t[0], c = bits.Sub64(a[0], b[0], 0)
	t[1], c = bits.Sub64(a[1], b[1], c)
	t[2], c = bits.Sub64(a[2], b[2], c)
	t[3], c = bits.Sub64(a[3], b[3], c)
	t[4], c = bits.Sub64(a[4], b[4], c)
	t[5], c = bits.Sub64(a[5], b[5], c)
	t[6], c = bits.Sub64(a[6], b[6], c)
	t[7], c = bits.Sub64(a[7], b[7], c)
	if c != 0 {
		t[4], c = bits.Add64(t[4], p0, 0)
		t[5], c = bits.Add64(t[5], p1, c)
		t[6], c = bits.Add64(t[6], p2, c)
		t[7], _ = bits.Add64(t[7], p3, c)
	}
}

// wideSubNoBorrow sets t = a - b where a >= b is known.
func wideSubNoBorrow(t, a, b *wide) {
	var c uint64
	t[0], c = bits.Sub64(a[0], b[0], 0)
	t[1], c = bits.Sub64(a[1], b[1], c)
	t[2], c = bits.Sub64(a[2], b[2], c)
	t[3], c = bits.Sub64(a[3], b[3], c)
	t[4], c = bits.Sub64(a[4], b[4], c)
	t[5], c = bits.Sub64(a[5], b[5], c)
	t[6], c = bits.Sub64(a[6], b[6], c)
	t[7], _ = bits.Sub64(a[7], b[7], c)
}

// addNoReduce sets z = x + y without reduction (x, y < p, so z < 2^255).
func addNoReduce(z, x, y *fe) {
	var c uint64
	z[0], c = bits.Add64(x[0], y[0], 0)
	z[1], c = bits.Add64(x[1], y[1], c)
	z[2], c = bits.Add64(x[2], y[2], c)
	z[3], _ = bits.Add64(x[3], y[3], c)
}
