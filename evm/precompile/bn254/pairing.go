package bn254

import "math/big"

// The BN parameter u; the optimal ate loop runs over 6u+2.
const bnU = 4965661367192848881

// ateNAF is the non-adjacent form of 6u+2, least significant digit first.
var ateNAF []int8

func init() {
	s := new(big.Int).SetUint64(bnU)
	s.Mul(s, big.NewInt(6))
	s.Add(s, big.NewInt(2))
	for s.Sign() > 0 {
		if s.Bit(0) == 1 {
			d := int8(2 - int(s.Bits()[0]&3)) // 1 if s ≡ 1 mod 4, -1 if s ≡ 3
			ateNAF = append(ateNAF, d)
			s.Sub(s, big.NewInt(int64(d)))
		} else {
			ateNAF = append(ateNAF, 0)
		}
		s.Rsh(s, 1)
	}
}

// millerPair is one (P, Q) input of the Miller loop with the values the
// line evaluations need.
type millerPair struct {
	xP, yP fe // P's affine coordinates; lines use -xP and yP
	q, qn  g2Aff
	t      g2Jac
}

// doubleStep sets t = 2t and returns the tangent line at t evaluated at P,
// scaled by 2YZ³ (an Fp2 factor the final exponentiation removes):
// a = 2YZ³·yP, b = -3X²Z²·xP, c = 3X³ - 2Y².
func doubleStep(t *g2Jac, negXP, yP *fe, a, b, c *fe2) {
	var A, B, C, D, E, F, ZZ, tmp fe2
	fe2Square(&A, &t.x)
	fe2Square(&B, &t.y)
	fe2Square(&C, &B)
	fe2Add(&D, &t.x, &B)
	fe2Square(&D, &D)
	fe2Sub(&D, &D, &A)
	fe2Sub(&D, &D, &C)
	fe2Double(&D, &D)
	fe2Double(&E, &A)
	fe2Add(&E, &E, &A)
	fe2Square(&F, &E)
	fe2Square(&ZZ, &t.z)

	// c = E·X - 2B, computed before X changes.
	fe2Mul(c, &E, &t.x)
	fe2Double(&tmp, &B)
	fe2Sub(c, c, &tmp)
	// b = -E·ZZ·xP
	fe2Mul(b, &E, &ZZ)
	fe2MulFp(b, b, negXP)

	var z3 fe2
	fe2Mul(&z3, &t.y, &t.z)
	fe2Double(&z3, &z3)
	// a = Z3·ZZ·yP
	fe2Mul(a, &z3, &ZZ)
	fe2MulFp(a, a, yP)

	fe2Double(&tmp, &D)
	fe2Sub(&t.x, &F, &tmp)
	fe2Sub(&tmp, &D, &t.x)
	fe2Mul(&tmp, &tmp, &E)
	fe2Double(&C, &C)
	fe2Double(&C, &C)
	fe2Double(&C, &C)
	fe2Sub(&t.y, &tmp, &C)
	t.z = z3
}

// addStep sets t = t + q (q affine) and returns the line through them
// evaluated at P, scaled by Z3 = Z·H: a = Z3·yP, b = -R·xP,
// c = R·xQ - Z3·yQ.
func addStep(t *g2Jac, q *g2Aff, negXP, yP *fe, a, b, c *fe2) {
	var ZZ, U2, S2, H, R, HH, HHH, V, tmp fe2
	fe2Square(&ZZ, &t.z)
	fe2Mul(&U2, &q.x, &ZZ)
	fe2Mul(&S2, &q.y, &t.z)
	fe2Mul(&S2, &S2, &ZZ)
	fe2Sub(&H, &U2, &t.x)
	fe2Sub(&R, &S2, &t.y)
	fe2Square(&HH, &H)
	fe2Mul(&HHH, &H, &HH)
	fe2Mul(&V, &t.x, &HH)

	var x3, y3, z3 fe2
	fe2Square(&x3, &R)
	fe2Sub(&x3, &x3, &HHH)
	fe2Double(&tmp, &V)
	fe2Sub(&x3, &x3, &tmp)
	fe2Sub(&tmp, &V, &x3)
	fe2Mul(&y3, &R, &tmp)
	fe2Mul(&tmp, &t.y, &HHH)
	fe2Sub(&y3, &y3, &tmp)
	fe2Mul(&z3, &t.z, &H)

	fe2MulFp(a, &z3, yP)
	fe2MulFp(b, &R, negXP)
	fe2Mul(c, &R, &q.x)
	fe2Mul(&tmp, &z3, &q.y)
	fe2Sub(c, c, &tmp)
	t.x, t.y, t.z = x3, y3, z3
}

// millerLoop computes the product of the optimal ate Miller functions of
// all pairs, sharing the squarings of the accumulator.
func millerLoop(pairs []millerPair) fe12 {
	f := fe12One()
	if len(pairs) == 0 {
		return f
	}
	for i := range pairs {
		pr := &pairs[i]
		pr.t.fromAffine(&pr.q)
		pr.qn = pr.q
		fe2Neg(&pr.qn.y, &pr.q.y)
		feNeg(&pr.xP, &pr.xP) // keep -xP from here on
	}
	var a, b, c fe2
	for i := len(ateNAF) - 2; i >= 0; i-- {
		if i != len(ateNAF)-2 {
			fe12Square(&f, &f)
		}
		for j := range pairs {
			pr := &pairs[j]
			doubleStep(&pr.t, &pr.xP, &pr.yP, &a, &b, &c)
			fe12MulLine(&f, &a, &b, &c)
			switch ateNAF[i] {
			case 1:
				addStep(&pr.t, &pr.q, &pr.xP, &pr.yP, &a, &b, &c)
				fe12MulLine(&f, &a, &b, &c)
			case -1:
				addStep(&pr.t, &pr.qn, &pr.xP, &pr.yP, &a, &b, &c)
				fe12MulLine(&f, &a, &b, &c)
			}
		}
	}
	// The two Frobenius steps: add π(Q), then -π²(Q).
	for j := range pairs {
		pr := &pairs[j]
		var q1, q2 g2Aff
		fe2Conj(&q1.x, &pr.q.x)
		fe2Mul(&q1.x, &q1.x, &frob1[2])
		fe2Conj(&q1.y, &pr.q.y)
		fe2Mul(&q1.y, &q1.y, &frob1[3])
		fe2Mul(&q2.x, &pr.q.x, &frob2[2])
		fe2Mul(&q2.y, &pr.q.y, &frob2[3])
		fe2Neg(&q2.y, &q2.y)
		addStep(&pr.t, &q1, &pr.xP, &pr.yP, &a, &b, &c)
		fe12MulLine(&f, &a, &b, &c)
		addStep(&pr.t, &q2, &pr.xP, &pr.yP, &a, &b, &c)
		fe12MulLine(&f, &a, &b, &c)
	}
	return f
}

// uWNAF is the width-4 NAF of u (digits in {0, ±1, ±3, ±5, ±7}), least
// significant first: 16 multiplications instead of 23 for the plain NAF.
var uWNAF []int8

func init() {
	s := new(big.Int).SetUint64(bnU)
	for s.Sign() > 0 {
		if s.Bit(0) == 1 {
			d := int(s.Bits()[0] & 15)
			if d >= 8 {
				d -= 16
			}
			uWNAF = append(uWNAF, int8(d))
			s.Sub(s, big.NewInt(int64(d)))
		} else {
			uWNAF = append(uWNAF, 0)
		}
		s.Rsh(s, 1)
	}
}

// expByU sets z = x^u for x in the cyclotomic subgroup, where inversion
// is conjugation, so negative digits cost nothing extra.
func expByU(z, x *fe12) {
	var odd [4]fe12 // x, x³, x⁵, x⁷
	var x2 fe12
	odd[0] = *x
	cycloSquare(&x2, x)
	for i := 1; i < 4; i++ {
		fe12Mul(&odd[i], &odd[i-1], &x2)
	}
	top := uWNAF[len(uWNAF)-1]
	r := odd[(top-1)/2] // the top digit is positive
	var t fe12
	for i := len(uWNAF) - 2; i >= 0; i-- {
		cycloSquare(&r, &r)
		d := uWNAF[i]
		switch {
		case d > 0:
			fe12Mul(&r, &r, &odd[(d-1)/2])
		case d < 0:
			fe12Conj(&t, &odd[(-d-1)/2])
			fe12Mul(&r, &r, &t)
		}
	}
	*z = r
}

// cycloSquare squares an element of the cyclotomic subgroup with the
// Granger–Scott formulas. Viewing Fp12 as Fp4[w]/(w³ - s) with
// Fp4 = Fp2[s]/(s² - ξ), z = A + B·w + C·w² squares to
// (3A² - 2Ā) + (3s·C² + 2B̄)·w + (3B² - 2C̄)·w², where the bar is the
// conjugation s ↦ -s. With w^k coefficients g0..g5 of z:
// A = g0 + g3·s, B = g1 + g4·s, C = g2 + g5·s.
func cycloSquare(z, x *fe12) {
	var a0, a1, b0, b1, c0, c1 fe2
	fp4Square(&a0, &a1, &x.c0.b0, &x.c1.b1) // A²
	fp4Square(&b0, &b1, &x.c1.b0, &x.c0.b2) // B²
	fp4Square(&c0, &c1, &x.c0.b1, &x.c1.b2) // C²

	// g0' = 3a0 - 2g0, g3' = 3a1 + 2g3
	tripleMinusDouble(&z.c0.b0, &a0, &x.c0.b0)
	triplePlusDouble(&z.c1.b1, &a1, &x.c1.b1)
	// g2' = 3b0 - 2g2, g5' = 3b1 + 2g5
	tripleMinusDouble(&z.c0.b1, &b0, &x.c0.b1)
	triplePlusDouble(&z.c1.b2, &b1, &x.c1.b2)
	// s·C² = ξc1 + c0·s; g1' = 3ξc1 + 2g1, g4' = 3c0 - 2g4
	var xc1 fe2
	fe2MulXi(&xc1, &c1)
	triplePlusDouble(&z.c1.b0, &xc1, &x.c1.b0)
	tripleMinusDouble(&z.c0.b2, &c0, &x.c0.b2)
}

// fp4Square sets (r0 + r1·s) = (x + y·s)² = x² + ξy² + 2xy·s.
func fp4Square(r0, r1, x, y *fe2) {
	var t0, t1, t2 fe2
	fe2Square(&t0, x)
	fe2Square(&t1, y)
	fe2Add(&t2, x, y)
	fe2Square(&t2, &t2)
	fe2Sub(&t2, &t2, &t0)
	fe2Sub(r1, &t2, &t1)
	fe2MulXi(&t1, &t1)
	fe2Add(r0, &t0, &t1)
}

// tripleMinusDouble sets z = 3a - 2g; triplePlusDouble z = 3a + 2g. z may
// alias g.
func tripleMinusDouble(z, a, g *fe2) {
	var t fe2
	fe2Sub(&t, a, g)
	fe2Double(&t, &t)
	fe2Add(z, &t, a)
}

func triplePlusDouble(z, a, g *fe2) {
	var t fe2
	fe2Add(&t, a, g)
	fe2Double(&t, &t)
	fe2Add(z, &t, a)
}

// finalExp raises f to (p¹² - 1)/r: the easy part (p⁶-1)(p²+1), then the
// hard part (p⁴ - p² + 1)/r by the Scott et al. addition chain in u.
func finalExp(z, f *fe12) {
	var t fe12
	finalExpEasy(&t, f)
	finalExpHard(z, &t)
}

// finalExpEasy sets z = f^((p⁶-1)(p²+1)), which lies in the cyclotomic
// subgroup.
func finalExpEasy(z, f *fe12) {
	var t, inv fe12
	fe12Conj(&t, f)
	fe12Inv(&inv, f)
	fe12Mul(&t, &t, &inv) // f^(p⁶-1)
	var t2 fe12
	fe12Frob(&t2, &t, 2)
	fe12Mul(z, &t2, &t) // ^(p²+1)
}

// finalExpHard sets z = t^((p⁴ - p² + 1)/r) for t in the cyclotomic
// subgroup.
func finalExpHard(z, t *fe12) {
	var fp, fp2, fp3, fu, fu2, fu3, y3, fu2p, fu3p, y2 fe12
	fe12Frob(&fp, t, 1)
	fe12Frob(&fp2, t, 2)
	fe12Frob(&fp3, t, 3)
	expByU(&fu, t)
	expByU(&fu2, &fu)
	expByU(&fu3, &fu2)
	fe12Frob(&y3, &fu, 1)
	fe12Frob(&fu2p, &fu2, 1)
	fe12Frob(&fu3p, &fu3, 1)
	fe12Frob(&y2, &fu2, 2)

	var y0, y1, y4, y5, y6 fe12
	fe12Mul(&y0, &fp, &fp2)
	fe12Mul(&y0, &y0, &fp3)
	fe12Conj(&y1, t)
	fe12Conj(&y5, &fu2)
	fe12Conj(&y3, &y3)
	fe12Mul(&y4, &fu, &fu2p)
	fe12Conj(&y4, &y4)
	fe12Mul(&y6, &fu3, &fu3p)
	fe12Conj(&y6, &y6)

	var t0, t1 fe12
	cycloSquare(&t0, &y6)
	fe12Mul(&t0, &t0, &y4)
	fe12Mul(&t0, &t0, &y5)
	fe12Mul(&t1, &y3, &y5)
	fe12Mul(&t1, &t1, &t0)
	fe12Mul(&t0, &t0, &y2)
	cycloSquare(&t1, &t1)
	fe12Mul(&t1, &t1, &t0)
	cycloSquare(&t1, &t1)
	fe12Mul(&t0, &t1, &y1)
	fe12Mul(&t1, &t1, &y0)
	cycloSquare(&t0, &t0)
	fe12Mul(z, &t0, &t1)
}
