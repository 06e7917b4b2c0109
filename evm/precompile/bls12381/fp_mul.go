// Montgomery multiplication over the BLS12-381 base field, unrolled.
//
// Each of the six rounds (CIOS, one word of y at a time) first forms all
// partial products of a row and then folds them in with a single unbroken
// add-with-carry chain; interleaving products and carries (one helper per
// word) makes the Go compiler save and restore the carry flag around every
// multiply. The running value keeps a seventh word d between the two
// halves of a round; it is always zero after the shift.
//
// Measured alternatives that were not better here (instruction counts under
// callgrind and alternating timings): a dedicated 21-product squaring,
// half-row chains, product scanning (Comba), and a rolled round loop. The
// remaining cost is the compiler hoisting independent products and spilling
// them, which the source cannot prevent without serialising the multiplies.

package bls12381

import "math/bits"

// mulGeneric sets z = x*y*R^-1 mod p. z may alias x or y. Inputs below 2p
// (lazy sums) are fine; the result is fully reduced.
func mulGeneric(z, x, y *fe) {
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

// reduceOnce stores t mod p in z for t < 2p. After a Montgomery product
// the subtraction is rarely needed, so the branch predicts well.
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

// reduceOnceMasked is reduceOnce without a branch, for additions: whether
// a sum exceeds p is a coin flip, and a mispredicted branch costs more
// than the few extra instructions.
func reduceOnceMasked(z *fe, t0, t1, t2, t3, t4, t5 uint64) {
	var b uint64
	var s0, s1, s2, s3, s4, s5 uint64
	s0, b = bits.Sub64(t0, q0, 0)
	s1, b = bits.Sub64(t1, q1, b)
	s2, b = bits.Sub64(t2, q2, b)
	s3, b = bits.Sub64(t3, q3, b)
	s4, b = bits.Sub64(t4, q4, b)
	s5, b = bits.Sub64(t5, q5, b)
	// b = 1 means t < p: keep t.
	m := -b
	z[0] = s0 ^ ((s0 ^ t0) & m)
	z[1] = s1 ^ ((s1 ^ t1) & m)
	z[2] = s2 ^ ((s2 ^ t2) & m)
	z[3] = s3 ^ ((s3 ^ t3) & m)
	z[4] = s4 ^ ((s4 ^ t4) & m)
	z[5] = s5 ^ ((s5 ^ t5) & m)
}

// square sets z = x² R^-1 mod p. A dedicated 21-product squaring measured
// slower than mul here (its 12-word accumulator lives in memory), so this
// is the general product.
func square(z, x *fe) { mul(z, x, x) }
