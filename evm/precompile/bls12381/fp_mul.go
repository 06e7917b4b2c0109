// Montgomery multiplication over the BLS12-381 base field, unrolled.
//
// The loop is the CIOS method written out word by word: the compiler does
// not unroll loops, and the bounds checks and index arithmetic of a looped
// version cost about a third of the time. Because the top word of p is far
// below 2^63, the running value never needs a seventh word (the
// "no-carry" variant), which removes one add chain per round.

package bls12381

import "math/bits"

// mul sets z = x*y*R^-1 mod p.
func mul(z, x, y *fe) {
	var t0, t1, t2, t3, t4, t5 uint64
	var A, C, m, v uint64
	// round 0
	v = y[0]
	A, t0 = bits.Mul64(x[0], v)
	m = t0 * qInvNeg
	C = madd0(m, q0, t0)
	A, t1 = madd1(x[1], v, A)
	C, t0 = madd2(m, q1, t1, C)
	A, t2 = madd1(x[2], v, A)
	C, t1 = madd2(m, q2, t2, C)
	A, t3 = madd1(x[3], v, A)
	C, t2 = madd2(m, q3, t3, C)
	A, t4 = madd1(x[4], v, A)
	C, t3 = madd2(m, q4, t4, C)
	A, t5 = madd1(x[5], v, A)
	C, t4 = madd2(m, q5, t5, C)
	t5 = C + A
	// round 1
	v = y[1]
	A, t0 = madd1(x[0], v, t0)
	m = t0 * qInvNeg
	C = madd0(m, q0, t0)
	A, t1 = madd2(x[1], v, t1, A)
	C, t0 = madd2(m, q1, t1, C)
	A, t2 = madd2(x[2], v, t2, A)
	C, t1 = madd2(m, q2, t2, C)
	A, t3 = madd2(x[3], v, t3, A)
	C, t2 = madd2(m, q3, t3, C)
	A, t4 = madd2(x[4], v, t4, A)
	C, t3 = madd2(m, q4, t4, C)
	A, t5 = madd2(x[5], v, t5, A)
	C, t4 = madd2(m, q5, t5, C)
	t5 = C + A
	// round 2
	v = y[2]
	A, t0 = madd1(x[0], v, t0)
	m = t0 * qInvNeg
	C = madd0(m, q0, t0)
	A, t1 = madd2(x[1], v, t1, A)
	C, t0 = madd2(m, q1, t1, C)
	A, t2 = madd2(x[2], v, t2, A)
	C, t1 = madd2(m, q2, t2, C)
	A, t3 = madd2(x[3], v, t3, A)
	C, t2 = madd2(m, q3, t3, C)
	A, t4 = madd2(x[4], v, t4, A)
	C, t3 = madd2(m, q4, t4, C)
	A, t5 = madd2(x[5], v, t5, A)
	C, t4 = madd2(m, q5, t5, C)
	t5 = C + A
	// round 3
	v = y[3]
	A, t0 = madd1(x[0], v, t0)
	m = t0 * qInvNeg
	C = madd0(m, q0, t0)
	A, t1 = madd2(x[1], v, t1, A)
	C, t0 = madd2(m, q1, t1, C)
	A, t2 = madd2(x[2], v, t2, A)
	C, t1 = madd2(m, q2, t2, C)
	A, t3 = madd2(x[3], v, t3, A)
	C, t2 = madd2(m, q3, t3, C)
	A, t4 = madd2(x[4], v, t4, A)
	C, t3 = madd2(m, q4, t4, C)
	A, t5 = madd2(x[5], v, t5, A)
	C, t4 = madd2(m, q5, t5, C)
	t5 = C + A
	// round 4
	v = y[4]
	A, t0 = madd1(x[0], v, t0)
	m = t0 * qInvNeg
	C = madd0(m, q0, t0)
	A, t1 = madd2(x[1], v, t1, A)
	C, t0 = madd2(m, q1, t1, C)
	A, t2 = madd2(x[2], v, t2, A)
	C, t1 = madd2(m, q2, t2, C)
	A, t3 = madd2(x[3], v, t3, A)
	C, t2 = madd2(m, q3, t3, C)
	A, t4 = madd2(x[4], v, t4, A)
	C, t3 = madd2(m, q4, t4, C)
	A, t5 = madd2(x[5], v, t5, A)
	C, t4 = madd2(m, q5, t5, C)
	t5 = C + A
	// round 5
	v = y[5]
	A, t0 = madd1(x[0], v, t0)
	m = t0 * qInvNeg
	C = madd0(m, q0, t0)
	A, t1 = madd2(x[1], v, t1, A)
	C, t0 = madd2(m, q1, t1, C)
	A, t2 = madd2(x[2], v, t2, A)
	C, t1 = madd2(m, q2, t2, C)
	A, t3 = madd2(x[3], v, t3, A)
	C, t2 = madd2(m, q3, t3, C)
	A, t4 = madd2(x[4], v, t4, A)
	C, t3 = madd2(m, q4, t4, C)
	A, t5 = madd2(x[5], v, t5, A)
	C, t4 = madd2(m, q5, t5, C)
	t5 = C + A
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

// madd0 returns the high word of a*b + c.
func madd0(a, b, c uint64) uint64 {
	hi, lo := bits.Mul64(a, b)
	_, carry := bits.Add64(lo, c, 0)
	return hi + carry
}

// madd1 returns a*b + c as (hi, lo).
func madd1(a, b, c uint64) (uint64, uint64) {
	hi, lo := bits.Mul64(a, b)
	lo, carry := bits.Add64(lo, c, 0)
	return hi + carry, lo
}

// madd2 returns a*b + c + d as (hi, lo); it cannot overflow 128 bits.
func madd2(a, b, c, d uint64) (uint64, uint64) {
	hi, lo := bits.Mul64(a, b)
	c, carry := bits.Add64(c, d, 0)
	hi += carry
	lo, carry = bits.Add64(lo, c, 0)
	return hi + carry, lo
}
