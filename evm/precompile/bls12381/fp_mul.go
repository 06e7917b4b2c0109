// Montgomery multiplication over the BLS12-381 base field, unrolled.
//
// Each of the six rounds (CIOS, one word of y at a time) first forms all
// partial products of a row and then folds them in with a single unbroken
// add-with-carry chain; interleaving products and carries (one helper per
// word) makes the Go compiler break the chains and spill. Because p's top
// word is far below 2^63 the accumulator never needs a seventh word.

package bls12381

import "math/bits"

// mul sets z = x*y*R^-1 mod p. z may alias x or y.
func mul(z, x, y *fe) {
	var t0, t1, t2, t3, t4, t5 uint64
	var h0, h1, h2, h3, h4, h5 uint64
	var l0, l1, l2, l3, l4, l5 uint64
	var c, d, m, v uint64

	// round 0
	v = y[0]
	h0, l0 = bits.Mul64(x[0], v)
	h1, l1 = bits.Mul64(x[1], v)
	h2, l2 = bits.Mul64(x[2], v)
	h3, l3 = bits.Mul64(x[3], v)
	h4, l4 = bits.Mul64(x[4], v)
	h5, l5 = bits.Mul64(x[5], v)
	t0 = l0
	t1, c = bits.Add64(l1, h0, 0)
	t2, c = bits.Add64(l2, h1, c)
	t3, c = bits.Add64(l3, h2, c)
	t4, c = bits.Add64(l4, h3, c)
	t5, c = bits.Add64(l5, h4, c)
	d = h5 + c
	m = t0 * qInvNeg
	h0, l0 = bits.Mul64(m, q0)
	h1, l1 = bits.Mul64(m, q1)
	h2, l2 = bits.Mul64(m, q2)
	h3, l3 = bits.Mul64(m, q3)
	h4, l4 = bits.Mul64(m, q4)
	h5, l5 = bits.Mul64(m, q5)
	l1, c = bits.Add64(l1, h0, 0)
	l2, c = bits.Add64(l2, h1, c)
	l3, c = bits.Add64(l3, h2, c)
	l4, c = bits.Add64(l4, h3, c)
	l5, c = bits.Add64(l5, h4, c)
	h5 += c
	_, c = bits.Add64(t0, l0, 0)
	t0, c = bits.Add64(t1, l1, c)
	t1, c = bits.Add64(t2, l2, c)
	t2, c = bits.Add64(t3, l3, c)
	t3, c = bits.Add64(t4, l4, c)
	t4, c = bits.Add64(t5, l5, c)
	t5, _ = bits.Add64(d, h5, c)
	d = 0

	// round 1
	v = y[1]
	h0, l0 = bits.Mul64(x[0], v)
	h1, l1 = bits.Mul64(x[1], v)
	h2, l2 = bits.Mul64(x[2], v)
	h3, l3 = bits.Mul64(x[3], v)
	h4, l4 = bits.Mul64(x[4], v)
	h5, l5 = bits.Mul64(x[5], v)
	l1, c = bits.Add64(l1, h0, 0)
	l2, c = bits.Add64(l2, h1, c)
	l3, c = bits.Add64(l3, h2, c)
	l4, c = bits.Add64(l4, h3, c)
	l5, c = bits.Add64(l5, h4, c)
	h5 += c
	t0, c = bits.Add64(t0, l0, 0)
	t1, c = bits.Add64(t1, l1, c)
	t2, c = bits.Add64(t2, l2, c)
	t3, c = bits.Add64(t3, l3, c)
	t4, c = bits.Add64(t4, l4, c)
	t5, c = bits.Add64(t5, l5, c)
	d += h5 + c
	m = t0 * qInvNeg
	h0, l0 = bits.Mul64(m, q0)
	h1, l1 = bits.Mul64(m, q1)
	h2, l2 = bits.Mul64(m, q2)
	h3, l3 = bits.Mul64(m, q3)
	h4, l4 = bits.Mul64(m, q4)
	h5, l5 = bits.Mul64(m, q5)
	l1, c = bits.Add64(l1, h0, 0)
	l2, c = bits.Add64(l2, h1, c)
	l3, c = bits.Add64(l3, h2, c)
	l4, c = bits.Add64(l4, h3, c)
	l5, c = bits.Add64(l5, h4, c)
	h5 += c
	_, c = bits.Add64(t0, l0, 0)
	t0, c = bits.Add64(t1, l1, c)
	t1, c = bits.Add64(t2, l2, c)
	t2, c = bits.Add64(t3, l3, c)
	t3, c = bits.Add64(t4, l4, c)
	t4, c = bits.Add64(t5, l5, c)
	t5, _ = bits.Add64(d, h5, c)
	d = 0

	// round 2
	v = y[2]
	h0, l0 = bits.Mul64(x[0], v)
	h1, l1 = bits.Mul64(x[1], v)
	h2, l2 = bits.Mul64(x[2], v)
	h3, l3 = bits.Mul64(x[3], v)
	h4, l4 = bits.Mul64(x[4], v)
	h5, l5 = bits.Mul64(x[5], v)
	l1, c = bits.Add64(l1, h0, 0)
	l2, c = bits.Add64(l2, h1, c)
	l3, c = bits.Add64(l3, h2, c)
	l4, c = bits.Add64(l4, h3, c)
	l5, c = bits.Add64(l5, h4, c)
	h5 += c
	t0, c = bits.Add64(t0, l0, 0)
	t1, c = bits.Add64(t1, l1, c)
	t2, c = bits.Add64(t2, l2, c)
	t3, c = bits.Add64(t3, l3, c)
	t4, c = bits.Add64(t4, l4, c)
	t5, c = bits.Add64(t5, l5, c)
	d += h5 + c
	m = t0 * qInvNeg
	h0, l0 = bits.Mul64(m, q0)
	h1, l1 = bits.Mul64(m, q1)
	h2, l2 = bits.Mul64(m, q2)
	h3, l3 = bits.Mul64(m, q3)
	h4, l4 = bits.Mul64(m, q4)
	h5, l5 = bits.Mul64(m, q5)
	l1, c = bits.Add64(l1, h0, 0)
	l2, c = bits.Add64(l2, h1, c)
	l3, c = bits.Add64(l3, h2, c)
	l4, c = bits.Add64(l4, h3, c)
	l5, c = bits.Add64(l5, h4, c)
	h5 += c
	_, c = bits.Add64(t0, l0, 0)
	t0, c = bits.Add64(t1, l1, c)
	t1, c = bits.Add64(t2, l2, c)
	t2, c = bits.Add64(t3, l3, c)
	t3, c = bits.Add64(t4, l4, c)
	t4, c = bits.Add64(t5, l5, c)
	t5, _ = bits.Add64(d, h5, c)
	d = 0

	// round 3
	v = y[3]
	h0, l0 = bits.Mul64(x[0], v)
	h1, l1 = bits.Mul64(x[1], v)
	h2, l2 = bits.Mul64(x[2], v)
	h3, l3 = bits.Mul64(x[3], v)
	h4, l4 = bits.Mul64(x[4], v)
	h5, l5 = bits.Mul64(x[5], v)
	l1, c = bits.Add64(l1, h0, 0)
	l2, c = bits.Add64(l2, h1, c)
	l3, c = bits.Add64(l3, h2, c)
	l4, c = bits.Add64(l4, h3, c)
	l5, c = bits.Add64(l5, h4, c)
	h5 += c
	t0, c = bits.Add64(t0, l0, 0)
	t1, c = bits.Add64(t1, l1, c)
	t2, c = bits.Add64(t2, l2, c)
	t3, c = bits.Add64(t3, l3, c)
	t4, c = bits.Add64(t4, l4, c)
	t5, c = bits.Add64(t5, l5, c)
	d += h5 + c
	m = t0 * qInvNeg
	h0, l0 = bits.Mul64(m, q0)
	h1, l1 = bits.Mul64(m, q1)
	h2, l2 = bits.Mul64(m, q2)
	h3, l3 = bits.Mul64(m, q3)
	h4, l4 = bits.Mul64(m, q4)
	h5, l5 = bits.Mul64(m, q5)
	l1, c = bits.Add64(l1, h0, 0)
	l2, c = bits.Add64(l2, h1, c)
	l3, c = bits.Add64(l3, h2, c)
	l4, c = bits.Add64(l4, h3, c)
	l5, c = bits.Add64(l5, h4, c)
	h5 += c
	_, c = bits.Add64(t0, l0, 0)
	t0, c = bits.Add64(t1, l1, c)
	t1, c = bits.Add64(t2, l2, c)
	t2, c = bits.Add64(t3, l3, c)
	t3, c = bits.Add64(t4, l4, c)
	t4, c = bits.Add64(t5, l5, c)
	t5, _ = bits.Add64(d, h5, c)
	d = 0

	// round 4
	v = y[4]
	h0, l0 = bits.Mul64(x[0], v)
	h1, l1 = bits.Mul64(x[1], v)
	h2, l2 = bits.Mul64(x[2], v)
	h3, l3 = bits.Mul64(x[3], v)
	h4, l4 = bits.Mul64(x[4], v)
	h5, l5 = bits.Mul64(x[5], v)
	l1, c = bits.Add64(l1, h0, 0)
	l2, c = bits.Add64(l2, h1, c)
	l3, c = bits.Add64(l3, h2, c)
	l4, c = bits.Add64(l4, h3, c)
	l5, c = bits.Add64(l5, h4, c)
	h5 += c
	t0, c = bits.Add64(t0, l0, 0)
	t1, c = bits.Add64(t1, l1, c)
	t2, c = bits.Add64(t2, l2, c)
	t3, c = bits.Add64(t3, l3, c)
	t4, c = bits.Add64(t4, l4, c)
	t5, c = bits.Add64(t5, l5, c)
	d += h5 + c
	m = t0 * qInvNeg
	h0, l0 = bits.Mul64(m, q0)
	h1, l1 = bits.Mul64(m, q1)
	h2, l2 = bits.Mul64(m, q2)
	h3, l3 = bits.Mul64(m, q3)
	h4, l4 = bits.Mul64(m, q4)
	h5, l5 = bits.Mul64(m, q5)
	l1, c = bits.Add64(l1, h0, 0)
	l2, c = bits.Add64(l2, h1, c)
	l3, c = bits.Add64(l3, h2, c)
	l4, c = bits.Add64(l4, h3, c)
	l5, c = bits.Add64(l5, h4, c)
	h5 += c
	_, c = bits.Add64(t0, l0, 0)
	t0, c = bits.Add64(t1, l1, c)
	t1, c = bits.Add64(t2, l2, c)
	t2, c = bits.Add64(t3, l3, c)
	t3, c = bits.Add64(t4, l4, c)
	t4, c = bits.Add64(t5, l5, c)
	t5, _ = bits.Add64(d, h5, c)
	d = 0

	// round 5
	v = y[5]
	h0, l0 = bits.Mul64(x[0], v)
	h1, l1 = bits.Mul64(x[1], v)
	h2, l2 = bits.Mul64(x[2], v)
	h3, l3 = bits.Mul64(x[3], v)
	h4, l4 = bits.Mul64(x[4], v)
	h5, l5 = bits.Mul64(x[5], v)
	l1, c = bits.Add64(l1, h0, 0)
	l2, c = bits.Add64(l2, h1, c)
	l3, c = bits.Add64(l3, h2, c)
	l4, c = bits.Add64(l4, h3, c)
	l5, c = bits.Add64(l5, h4, c)
	h5 += c
	t0, c = bits.Add64(t0, l0, 0)
	t1, c = bits.Add64(t1, l1, c)
	t2, c = bits.Add64(t2, l2, c)
	t3, c = bits.Add64(t3, l3, c)
	t4, c = bits.Add64(t4, l4, c)
	t5, c = bits.Add64(t5, l5, c)
	d += h5 + c
	m = t0 * qInvNeg
	h0, l0 = bits.Mul64(m, q0)
	h1, l1 = bits.Mul64(m, q1)
	h2, l2 = bits.Mul64(m, q2)
	h3, l3 = bits.Mul64(m, q3)
	h4, l4 = bits.Mul64(m, q4)
	h5, l5 = bits.Mul64(m, q5)
	l1, c = bits.Add64(l1, h0, 0)
	l2, c = bits.Add64(l2, h1, c)
	l3, c = bits.Add64(l3, h2, c)
	l4, c = bits.Add64(l4, h3, c)
	l5, c = bits.Add64(l5, h4, c)
	h5 += c
	_, c = bits.Add64(t0, l0, 0)
	t0, c = bits.Add64(t1, l1, c)
	t1, c = bits.Add64(t2, l2, c)
	t2, c = bits.Add64(t3, l3, c)
	t3, c = bits.Add64(t4, l4, c)
	t4, c = bits.Add64(t5, l5, c)
	t5, _ = bits.Add64(d, h5, c)
	d = 0
	reduceOnce(z, t0, t1, t2, t3, t4, t5)
}

// reduceOnce stores t mod p in z for t < 2p.
func reduceOnce(z *fe, t0, t1, t2, t3, t4, t5 uint64) {
	var b uint64
	var s0, s1, s2, s3, s4, s5 uint64
	s0, b = bits.Sub64(t0, q0, 0)
	s1, b = bits.Sub64(t1, q1, b)
	s2, b = bits.Sub64(t2, q2, b)
	s3, b = bits.Sub64(t3, q3, b)
	s4, b = bits.Sub64(t4, q4, b)
	s5, b = bits.Sub64(t5, q5, b)
	if b == 0 {
		z[0], z[1], z[2], z[3], z[4], z[5] = s0, s1, s2, s3, s4, s5
		return
	}
	z[0], z[1], z[2], z[3], z[4], z[5] = t0, t1, t2, t3, t4, t5
}

// square sets z = x² R^-1 mod p. The 12-word square needs only 21 word
// products (each cross product once, then doubled) before six rounds of
// Montgomery reduction, against 36 for a general product.
func square(z, x *fe) {
	var t [12]uint64
	var h, l, c, m uint64
	var h1, h2, h3, h4, h5, l1, l2, l3, l4, l5 uint64
	var r0h, r1h, r2h, r3h, r4h, r5h, r0l, r1l, r2l, r3l, r4l, r5l uint64
	// cross products of word 0
	h1, l1 = bits.Mul64(x[0], x[1])
	h2, l2 = bits.Mul64(x[0], x[2])
	h3, l3 = bits.Mul64(x[0], x[3])
	h4, l4 = bits.Mul64(x[0], x[4])
	h5, l5 = bits.Mul64(x[0], x[5])
	t[1], c = bits.Add64(t[1], l1, 0)
	l2, h = bits.Add64(l2, h1, 0)
	h2 += h
	t[2], c = bits.Add64(t[2], l2, c)
	l3, h = bits.Add64(l3, h2, 0)
	h3 += h
	t[3], c = bits.Add64(t[3], l3, c)
	l4, h = bits.Add64(l4, h3, 0)
	h4 += h
	t[4], c = bits.Add64(t[4], l4, c)
	l5, h = bits.Add64(l5, h4, 0)
	h5 += h
	t[5], c = bits.Add64(t[5], l5, c)
	t[6], _ = bits.Add64(t[6], h5, c)
	// cross products of word 1
	h2, l2 = bits.Mul64(x[1], x[2])
	h3, l3 = bits.Mul64(x[1], x[3])
	h4, l4 = bits.Mul64(x[1], x[4])
	h5, l5 = bits.Mul64(x[1], x[5])
	t[3], c = bits.Add64(t[3], l2, 0)
	l3, h = bits.Add64(l3, h2, 0)
	h3 += h
	t[4], c = bits.Add64(t[4], l3, c)
	l4, h = bits.Add64(l4, h3, 0)
	h4 += h
	t[5], c = bits.Add64(t[5], l4, c)
	l5, h = bits.Add64(l5, h4, 0)
	h5 += h
	t[6], c = bits.Add64(t[6], l5, c)
	t[7], _ = bits.Add64(t[7], h5, c)
	// cross products of word 2
	h3, l3 = bits.Mul64(x[2], x[3])
	h4, l4 = bits.Mul64(x[2], x[4])
	h5, l5 = bits.Mul64(x[2], x[5])
	t[5], c = bits.Add64(t[5], l3, 0)
	l4, h = bits.Add64(l4, h3, 0)
	h4 += h
	t[6], c = bits.Add64(t[6], l4, c)
	l5, h = bits.Add64(l5, h4, 0)
	h5 += h
	t[7], c = bits.Add64(t[7], l5, c)
	t[8], _ = bits.Add64(t[8], h5, c)
	// cross products of word 3
	h4, l4 = bits.Mul64(x[3], x[4])
	h5, l5 = bits.Mul64(x[3], x[5])
	t[7], c = bits.Add64(t[7], l4, 0)
	l5, h = bits.Add64(l5, h4, 0)
	h5 += h
	t[8], c = bits.Add64(t[8], l5, c)
	t[9], _ = bits.Add64(t[9], h5, c)
	// cross products of word 4
	h5, l5 = bits.Mul64(x[4], x[5])
	t[9], c = bits.Add64(t[9], l5, 0)
	t[10], _ = bits.Add64(t[10], h5, c)
	// double the cross products
	t[11] = t[10] >> 63
	t[10] = t[10]<<1 | t[9]>>63
	t[9] = t[9]<<1 | t[8]>>63
	t[8] = t[8]<<1 | t[7]>>63
	t[7] = t[7]<<1 | t[6]>>63
	t[6] = t[6]<<1 | t[5]>>63
	t[5] = t[5]<<1 | t[4]>>63
	t[4] = t[4]<<1 | t[3]>>63
	t[3] = t[3]<<1 | t[2]>>63
	t[2] = t[2]<<1 | t[1]>>63
	t[1] = t[1]<<1 | t[0]>>63
	t[0] <<= 1
	// add the squares of the words
	h, l = bits.Mul64(x[0], x[0])
	t[0], c = bits.Add64(t[0], l, 0)
	t[1], c = bits.Add64(t[1], h, c)
	h, l = bits.Mul64(x[1], x[1])
	t[2], c = bits.Add64(t[2], l, c)
	t[3], c = bits.Add64(t[3], h, c)
	h, l = bits.Mul64(x[2], x[2])
	t[4], c = bits.Add64(t[4], l, c)
	t[5], c = bits.Add64(t[5], h, c)
	h, l = bits.Mul64(x[3], x[3])
	t[6], c = bits.Add64(t[6], l, c)
	t[7], c = bits.Add64(t[7], h, c)
	h, l = bits.Mul64(x[4], x[4])
	t[8], c = bits.Add64(t[8], l, c)
	t[9], c = bits.Add64(t[9], h, c)
	h, l = bits.Mul64(x[5], x[5])
	t[10], c = bits.Add64(t[10], l, c)
	t[11], c = bits.Add64(t[11], h, c)
	// Montgomery reduction, carrying each round's overflow into the next
	var top uint64
	m = t[0] * qInvNeg
	r0h, r0l = bits.Mul64(m, q0)
	r1h, r1l = bits.Mul64(m, q1)
	r2h, r2l = bits.Mul64(m, q2)
	r3h, r3l = bits.Mul64(m, q3)
	r4h, r4l = bits.Mul64(m, q4)
	r5h, r5l = bits.Mul64(m, q5)
	_, c = bits.Add64(t[0], r0l, 0)
	r1l, h = bits.Add64(r1l, r0h, 0)
	r1h += h
	t[1], c = bits.Add64(t[1], r1l, c)
	r2l, h = bits.Add64(r2l, r1h, 0)
	r2h += h
	t[2], c = bits.Add64(t[2], r2l, c)
	r3l, h = bits.Add64(r3l, r2h, 0)
	r3h += h
	t[3], c = bits.Add64(t[3], r3l, c)
	r4l, h = bits.Add64(r4l, r3h, 0)
	r4h += h
	t[4], c = bits.Add64(t[4], r4l, c)
	r5l, h = bits.Add64(r5l, r4h, 0)
	r5h += h
	t[5], c = bits.Add64(t[5], r5l, c)
	r5h, h = bits.Add64(r5h, top, c)
	t[6], c = bits.Add64(t[6], r5h, 0)
	top = h + c
	m = t[1] * qInvNeg
	r0h, r0l = bits.Mul64(m, q0)
	r1h, r1l = bits.Mul64(m, q1)
	r2h, r2l = bits.Mul64(m, q2)
	r3h, r3l = bits.Mul64(m, q3)
	r4h, r4l = bits.Mul64(m, q4)
	r5h, r5l = bits.Mul64(m, q5)
	_, c = bits.Add64(t[1], r0l, 0)
	r1l, h = bits.Add64(r1l, r0h, 0)
	r1h += h
	t[2], c = bits.Add64(t[2], r1l, c)
	r2l, h = bits.Add64(r2l, r1h, 0)
	r2h += h
	t[3], c = bits.Add64(t[3], r2l, c)
	r3l, h = bits.Add64(r3l, r2h, 0)
	r3h += h
	t[4], c = bits.Add64(t[4], r3l, c)
	r4l, h = bits.Add64(r4l, r3h, 0)
	r4h += h
	t[5], c = bits.Add64(t[5], r4l, c)
	r5l, h = bits.Add64(r5l, r4h, 0)
	r5h += h
	t[6], c = bits.Add64(t[6], r5l, c)
	r5h, h = bits.Add64(r5h, top, c)
	t[7], c = bits.Add64(t[7], r5h, 0)
	top = h + c
	m = t[2] * qInvNeg
	r0h, r0l = bits.Mul64(m, q0)
	r1h, r1l = bits.Mul64(m, q1)
	r2h, r2l = bits.Mul64(m, q2)
	r3h, r3l = bits.Mul64(m, q3)
	r4h, r4l = bits.Mul64(m, q4)
	r5h, r5l = bits.Mul64(m, q5)
	_, c = bits.Add64(t[2], r0l, 0)
	r1l, h = bits.Add64(r1l, r0h, 0)
	r1h += h
	t[3], c = bits.Add64(t[3], r1l, c)
	r2l, h = bits.Add64(r2l, r1h, 0)
	r2h += h
	t[4], c = bits.Add64(t[4], r2l, c)
	r3l, h = bits.Add64(r3l, r2h, 0)
	r3h += h
	t[5], c = bits.Add64(t[5], r3l, c)
	r4l, h = bits.Add64(r4l, r3h, 0)
	r4h += h
	t[6], c = bits.Add64(t[6], r4l, c)
	r5l, h = bits.Add64(r5l, r4h, 0)
	r5h += h
	t[7], c = bits.Add64(t[7], r5l, c)
	r5h, h = bits.Add64(r5h, top, c)
	t[8], c = bits.Add64(t[8], r5h, 0)
	top = h + c
	m = t[3] * qInvNeg
	r0h, r0l = bits.Mul64(m, q0)
	r1h, r1l = bits.Mul64(m, q1)
	r2h, r2l = bits.Mul64(m, q2)
	r3h, r3l = bits.Mul64(m, q3)
	r4h, r4l = bits.Mul64(m, q4)
	r5h, r5l = bits.Mul64(m, q5)
	_, c = bits.Add64(t[3], r0l, 0)
	r1l, h = bits.Add64(r1l, r0h, 0)
	r1h += h
	t[4], c = bits.Add64(t[4], r1l, c)
	r2l, h = bits.Add64(r2l, r1h, 0)
	r2h += h
	t[5], c = bits.Add64(t[5], r2l, c)
	r3l, h = bits.Add64(r3l, r2h, 0)
	r3h += h
	t[6], c = bits.Add64(t[6], r3l, c)
	r4l, h = bits.Add64(r4l, r3h, 0)
	r4h += h
	t[7], c = bits.Add64(t[7], r4l, c)
	r5l, h = bits.Add64(r5l, r4h, 0)
	r5h += h
	t[8], c = bits.Add64(t[8], r5l, c)
	r5h, h = bits.Add64(r5h, top, c)
	t[9], c = bits.Add64(t[9], r5h, 0)
	top = h + c
	m = t[4] * qInvNeg
	r0h, r0l = bits.Mul64(m, q0)
	r1h, r1l = bits.Mul64(m, q1)
	r2h, r2l = bits.Mul64(m, q2)
	r3h, r3l = bits.Mul64(m, q3)
	r4h, r4l = bits.Mul64(m, q4)
	r5h, r5l = bits.Mul64(m, q5)
	_, c = bits.Add64(t[4], r0l, 0)
	r1l, h = bits.Add64(r1l, r0h, 0)
	r1h += h
	t[5], c = bits.Add64(t[5], r1l, c)
	r2l, h = bits.Add64(r2l, r1h, 0)
	r2h += h
	t[6], c = bits.Add64(t[6], r2l, c)
	r3l, h = bits.Add64(r3l, r2h, 0)
	r3h += h
	t[7], c = bits.Add64(t[7], r3l, c)
	r4l, h = bits.Add64(r4l, r3h, 0)
	r4h += h
	t[8], c = bits.Add64(t[8], r4l, c)
	r5l, h = bits.Add64(r5l, r4h, 0)
	r5h += h
	t[9], c = bits.Add64(t[9], r5l, c)
	r5h, h = bits.Add64(r5h, top, c)
	t[10], c = bits.Add64(t[10], r5h, 0)
	top = h + c
	m = t[5] * qInvNeg
	r0h, r0l = bits.Mul64(m, q0)
	r1h, r1l = bits.Mul64(m, q1)
	r2h, r2l = bits.Mul64(m, q2)
	r3h, r3l = bits.Mul64(m, q3)
	r4h, r4l = bits.Mul64(m, q4)
	r5h, r5l = bits.Mul64(m, q5)
	_, c = bits.Add64(t[5], r0l, 0)
	r1l, h = bits.Add64(r1l, r0h, 0)
	r1h += h
	t[6], c = bits.Add64(t[6], r1l, c)
	r2l, h = bits.Add64(r2l, r1h, 0)
	r2h += h
	t[7], c = bits.Add64(t[7], r2l, c)
	r3l, h = bits.Add64(r3l, r2h, 0)
	r3h += h
	t[8], c = bits.Add64(t[8], r3l, c)
	r4l, h = bits.Add64(r4l, r3h, 0)
	r4h += h
	t[9], c = bits.Add64(t[9], r4l, c)
	r5l, h = bits.Add64(r5l, r4h, 0)
	r5h += h
	t[10], c = bits.Add64(t[10], r5l, c)
	r5h, h = bits.Add64(r5h, top, c)
	t[11], c = bits.Add64(t[11], r5h, 0)
	top = h + c
	reduceOnce(z, t[6], t[7], t[8], t[9], t[10], t[11])
}
