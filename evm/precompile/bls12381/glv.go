package bls12381

import "math/bits"

// Endomorphism-split scalar multiplication for subgroup points.
//
// A scalar k < r < |x|⁴ has four base-|x| digits d0..d3 below 2^64. On G2,
// ψ acts as multiplication by x = -|x|, so
//
//	kQ = d0·Q - d1·ψ(Q) + d2·ψ²(Q) - d3·ψ³(Q),
//
// four 64-bit multiplications sharing one chain of 64 doublings. On G1, φ
// acts as -x², so with A = d0 + d1|x| and B = d2 + d3|x| (both < 2^128)
//
//	kP = A·P + B·(-φ(P)),
//
// two 128-bit multiplications sharing 128 doublings. Both are only valid for
// points of the prime-order subgroup.

// rWords is the group order r, little-endian.
var rWords = [4]uint64{0xffffffff00000001, 0x53bda402fffe5bfe, 0x3339d80809a1d805, 0x73eda753299d7d48}

// reduceScalar returns k mod r for any 256-bit k.
func reduceScalar(k [4]uint64) [4]uint64 {
	for !lessThanR(&k) {
		var b uint64
		k[0], b = bits.Sub64(k[0], rWords[0], 0)
		k[1], b = bits.Sub64(k[1], rWords[1], b)
		k[2], b = bits.Sub64(k[2], rWords[2], b)
		k[3], _ = bits.Sub64(k[3], rWords[3], b)
	}
	return k
}

func lessThanR(k *[4]uint64) bool {
	for i := 3; i >= 0; i-- {
		if k[i] != rWords[i] {
			return k[i] < rWords[i]
		}
	}
	return false
}

// xDigits returns the base-|x| digits of k (k must be below r).
func xDigits(k [4]uint64) [4]uint64 {
	var d [4]uint64
	for i := 0; i < 3; i++ {
		var rem uint64
		for j := 3; j >= 0; j-- {
			k[j], rem = bits.Div64(rem, k[j], blsX)
		}
		d[i] = rem
	}
	d[3] = k[0]
	return d
}

// g1Split returns (A, B) with k ≡ A + B·x² (mod r), each below 2^128.
func g1Split(k [4]uint64) (a, b [2]uint64) {
	d := xDigits(reduceScalar(k))
	hi, lo := bits.Mul64(d[1], blsX)
	var c uint64
	a[0], c = bits.Add64(lo, d[0], 0)
	a[1] = hi + c
	hi, lo = bits.Mul64(d[3], blsX)
	b[0], c = bits.Add64(lo, d[2], 0)
	b[1] = hi + c
	return a, b
}

// nibble returns bits 4i..4i+3 of a little-endian scalar.
func nibble(k []uint64, i int) uint64 {
	return (k[i/16] >> (uint(i%16) * 4)) & 15
}

// mulSubgroup sets p = k·q for q in G1 and any 256-bit k.
func (p *G1) mulSubgroup(q *G1, k *[4]uint64) *G1 {
	a, b := g1Split(*k)
	var t1, t2 [16]G1
	t1[1] = *q
	for i := 2; i < 16; i++ {
		t1[i].Add(&t1[i-1], q)
	}
	for i := 1; i < 16; i++ {
		t2[i].phi(&t1[i])
		t2[i].Neg(&t2[i])
	}
	var r G1
	for i := 31; i >= 0; i-- {
		if !r.isInfinity() {
			r.Double(&r)
			r.Double(&r)
			r.Double(&r)
			r.Double(&r)
		}
		if d := nibble(a[:], i); d != 0 {
			r.Add(&r, &t1[d])
		}
		if d := nibble(b[:], i); d != 0 {
			r.Add(&r, &t2[d])
		}
	}
	*p = r
	return p
}

// mulSubgroup sets p = k·q for q in G2 and any 256-bit k.
func (p *G2) mulSubgroup(q *G2, k *[4]uint64) *G2 {
	d := xDigits(reduceScalar(*k))
	var t [4][16]G2
	t[0][1] = *q
	for i := 2; i < 16; i++ {
		t[0][i].Add(&t[0][i-1], q)
	}
	for j := 1; j < 4; j++ {
		for i := 1; i < 16; i++ {
			t[j][i].psi(&t[j-1][i])
		}
	}
	// Odd powers of ψ carry the sign of x.
	for i := 1; i < 16; i++ {
		t[1][i].Neg(&t[1][i])
		t[3][i].Neg(&t[3][i])
	}
	var r G2
	for i := 15; i >= 0; i-- {
		if !r.isInfinity() {
			r.Double(&r)
			r.Double(&r)
			r.Double(&r)
			r.Double(&r)
		}
		for j := 0; j < 4; j++ {
			if n := (d[j] >> (uint(i) * 4)) & 15; n != 0 {
				r.Add(&r, &t[j][n])
			}
		}
	}
	*p = r
	return p
}

// ScalarMultSubgroup sets p = k·q for a 32-byte big-endian k. q must be in
// G1 (the endomorphism split is wrong elsewhere); it is about twice as fast
// as ScalarMult.
func (p *G1) ScalarMultSubgroup(q *G1, k *[32]byte) *G1 {
	w := scalarWords(k)
	return p.mulSubgroup(q, &w)
}

// ScalarMultSubgroup sets p = k·q for a 32-byte big-endian k. q must be in
// G2.
func (p *G2) ScalarMultSubgroup(q *G2, k *[32]byte) *G2 {
	w := scalarWords(k)
	return p.mulSubgroup(q, &w)
}

// strausG1 returns Σ k_i·P_i for a few subgroup points: every pair is split
// with φ and all halves share one chain of 128 doublings (Straus–Shamir
// with 4-bit windows).
func strausG1(points []G1, scalars [][4]uint64) G1 {
	n := len(points)
	tables := make([][16]G1, 2*n)
	digits := make([][2]uint64, 2*n)
	for i := range points {
		a, b := g1Split(scalars[i])
		digits[2*i], digits[2*i+1] = a, b
		t1, t2 := &tables[2*i], &tables[2*i+1]
		t1[1] = points[i]
		for j := 2; j < 16; j++ {
			t1[j].Add(&t1[j-1], &points[i])
		}
		for j := 1; j < 16; j++ {
			t2[j].phi(&t1[j])
			t2[j].Neg(&t2[j])
		}
	}
	var r G1
	for w := 31; w >= 0; w-- {
		if !r.isInfinity() {
			r.Double(&r)
			r.Double(&r)
			r.Double(&r)
			r.Double(&r)
		}
		for i := range digits {
			if d := nibble(digits[i][:], w); d != 0 {
				r.Add(&r, &tables[i][d])
			}
		}
	}
	return r
}

// strausG2 is strausG1 for G2 with the four-way ψ split (64 doublings).
func strausG2(points []G2, scalars [][4]uint64) G2 {
	n := len(points)
	tables := make([][16]G2, 4*n)
	digits := make([]uint64, 4*n)
	for i := range points {
		d := xDigits(reduceScalar(scalars[i]))
		copy(digits[4*i:], d[:])
		t := tables[4*i : 4*i+4]
		t[0][1] = points[i]
		for j := 2; j < 16; j++ {
			t[0][j].Add(&t[0][j-1], &points[i])
		}
		for k := 1; k < 4; k++ {
			for j := 1; j < 16; j++ {
				t[k][j].psi(&t[k-1][j])
			}
		}
		// Odd powers of ψ carry the sign of x.
		for j := 1; j < 16; j++ {
			t[1][j].Neg(&t[1][j])
			t[3][j].Neg(&t[3][j])
		}
	}
	var r G2
	for w := 15; w >= 0; w-- {
		if !r.isInfinity() {
			r.Double(&r)
			r.Double(&r)
			r.Double(&r)
			r.Double(&r)
		}
		for i, d := range digits {
			if n := (d >> (uint(w) * 4)) & 15; n != 0 {
				r.Add(&r, &tables[i][n])
			}
		}
	}
	return r
}

// MultiScalarMultSubgroup returns Σ k_i·P_i (32-byte big-endian scalars)
// for points of G1, sharing the doublings between all terms.
func MultiScalarMultSubgroup(points []G1, scalars [][32]byte) G1 {
	ks := make([][4]uint64, len(scalars))
	for i := range scalars {
		ks[i] = scalarWords(&scalars[i])
	}
	return msmG1(points, ks)
}
