package bls12381

// The optimal ate pairing e: G1 × G2 → GT ⊂ Fp12*.
//
// The Miller loop runs over the bits of |x| with the G2 argument kept on the
// twist E'(Fp2): y² = x³ + 4ξ, untwisted by (x', y') ↦ (x'/w², y'/w³). A line
// through twist points, evaluated at P = (xp, yp) and multiplied by w³ (a
// factor in a proper subfield, which the final exponentiation removes), has
// the shape a + b·xp·v + c·yp·v·w with a, b, c in Fp2 — three of the twelve
// coefficients. G2Prepared stores those (a, b, c) for every step, so a fixed
// G2 point (the KZG setup) costs no curve arithmetic per pairing.

// lineCoeffs is one Miller-loop line: a + (b·xp) v + (c·yp) v w.
type lineCoeffs [3]fe2

// G2Prepared holds the Miller-loop lines of one G2 point.
type G2Prepared struct {
	lines    []lineCoeffs
	infinity bool
}

// millerSteps is the number of lines per point: one per doubling plus one
// per set bit below the top of |x|.
const millerSteps = 63 + 5

// PrepareG2 precomputes the lines for q. q must be on the curve; subgroup
// membership is the caller's business.
func PrepareG2(q *G2) *G2Prepared {
	pr, _ := prepareG2(q)
	return pr
}

// prepareG2Checked prepares q and also decides whether q is in G2. The
// loop that produces the lines computes T = [|x|]Q on the way, which is
// exactly the multiple the ψ(Q) = [x]Q = -T membership test needs. The
// shortcut is only trusted when every step was a regular doubling or
// addition (no point at infinity, T ≠ ±Q); otherwise the separate test runs.
func prepareG2Checked(q *G2) (*G2Prepared, bool) {
	pr, t := prepareG2(q)
	if pr.infinity {
		return pr, true
	}
	if t == nil {
		return pr, q.InSubgroup()
	}
	var pq G2
	pq.psi(q)
	px, py, _ := pq.affine()
	var a fe2
	mul2(&a, &px, &t[2])
	if a != t[0] {
		return pr, false
	}
	mul2(&a, &py, &t[2])
	neg2(&a, &a)
	return pr, a == t[1]
}

// prepareG2 computes the lines and returns the final T = [|x|]Q in
// homogeneous coordinates, or nil for T when some step was exceptional.
func prepareG2(q *G2) (*G2Prepared, *[3]fe2) {
	if q.isInfinity() {
		return &G2Prepared{infinity: true}, nil
	}
	qx, qy, _ := q.affine()
	pr := &G2Prepared{lines: make([]lineCoeffs, 0, millerSteps)}
	// t is kept in homogeneous projective coordinates (X/Z, Y/Z).
	tx, ty := qx, qy
	var tz fe2
	tz.setOne()
	regular := true
	for i := 62; i >= 0; i-- {
		if ty.isZero() || tz.isZero() {
			regular = false
		}
		pr.lines = append(pr.lines, doubleStep(&tx, &ty, &tz))
		if (blsX>>uint(i))&1 == 1 {
			l := addStep(&tx, &ty, &tz, &qx, &qy)
			// l[2] is λ = X - x₂Z, zero exactly when T = ±Q or T = O.
			if l[2].isZero() {
				regular = false
			}
			pr.lines = append(pr.lines, l)
		}
	}
	if !regular || tz.isZero() {
		return pr, nil
	}
	return pr, &[3]fe2{tx, ty, tz}
}

// doubleStep doubles T = (X, Y, Z) in place and returns the tangent line at
// the old T: a = 3b'Z² - Y², b = 3X², c = -2YZ. The new point is scaled by 4
// against the usual formulas to avoid halving.
func doubleStep(x, y, z *fe2) lineCoeffs {
	var a, b, c, e, f, h, x2, t fe2
	square2(&b, y)     // B = Y²
	square2(&c, z)     // C = Z²
	mulByB2(&e, &c)    // b'Z²
	double2(&t, &e)    //
	add2(&e, &e, &t)   // E = 3b'Z²
	double2(&f, &e)    //
	add2(&f, &f, &e)   // F = 3E
	add2(&h, y, z)     //
	square2(&h, &h)    //
	sub2(&h, &h, &b)   //
	sub2(&h, &h, &c)   // H = 2YZ
	square2(&x2, x)    //
	double2(&t, &x2)   //
	add2(&x2, &x2, &t) // 3X²

	var l lineCoeffs
	sub2(&l[0], &e, &b)
	l[1] = x2
	neg2(&l[2], &h)

	// X3 = 2XY(B - F), Y3 = (B + F)² - 12E², Z3 = 4BH.
	var x3, y3, z3 fe2
	mul2(&x3, x, y)
	double2(&x3, &x3)
	sub2(&t, &b, &f)
	mul2(&x3, &x3, &t)
	add2(&y3, &b, &f)
	square2(&y3, &y3)
	square2(&t, &e)
	double2(&a, &t)
	add2(&a, &a, &t) // 3E²
	double2(&a, &a)
	double2(&a, &a) // 12E²
	sub2(&y3, &y3, &a)
	mul2(&z3, &b, &h)
	double2(&z3, &z3)
	double2(&z3, &z3)
	*x, *y, *z = x3, y3, z3
	return l
}

// addStep sets T = T + Q for affine Q and returns the line through them:
// with θ = Y - y₂Z and λ = X - x₂Z it is (θx₂ - λy₂) - θ·xp·v + λ·yp·vw.
func addStep(x, y, z, qx, qy *fe2) lineCoeffs {
	var theta, lambda, t fe2
	mul2(&t, qy, z)
	sub2(&theta, y, &t)
	mul2(&t, qx, z)
	sub2(&lambda, x, &t)

	var l lineCoeffs
	mul2(&l[0], &theta, qx)
	mul2(&t, &lambda, qy)
	sub2(&l[0], &l[0], &t)
	neg2(&l[1], &theta)
	l[2] = lambda

	var c, d, e, f, g, h fe2
	square2(&c, &theta)
	square2(&d, &lambda)
	mul2(&e, &lambda, &d)
	mul2(&f, z, &c)
	mul2(&g, x, &d)
	add2(&h, &e, &f)
	sub2(&h, &h, &g)
	sub2(&h, &h, &g)
	var x3, y3, z3 fe2
	mul2(&x3, &lambda, &h)
	sub2(&t, &g, &h)
	mul2(&y3, &theta, &t)
	mul2(&t, &e, y)
	sub2(&y3, &y3, &t)
	mul2(&z3, z, &e)
	*x, *y, *z = x3, y3, z3
	return l
}

// millerLoop computes Π f_{x,Q_i}(P_i) for affine P_i; pairs where either
// point is infinity contribute nothing.
func millerLoop(px, py []fe, qs []*G2Prepared) fe12 {
	var f fe12
	f.setOne()
	var bx, cy fe2
	step := 0
	for i := 62; i >= 0; i-- {
		if i != 62 {
			square12(&f, &f)
		}
		for j, q := range qs {
			if q.infinity {
				continue
			}
			l := &q.lines[step]
			mulByFp(&bx, &l[1], &px[j])
			mulByFp(&cy, &l[2], &py[j])
			mulByLine(&f, &l[0], &bx, &cy)
		}
		step++
		if (blsX>>uint(i))&1 == 1 {
			for j, q := range qs {
				if q.infinity {
					continue
				}
				l := &q.lines[step]
				mulByFp(&bx, &l[1], &px[j])
				mulByFp(&cy, &l[2], &py[j])
				mulByLine(&f, &l[0], &bx, &cy)
			}
			step++
		}
	}
	// x is negative: f_{x} = 1/f_{|x|} up to factors the final
	// exponentiation removes, and 1/f is the conjugate there.
	conj12(&f, &f)
	return f
}

// cyclotomicSquare squares an element of the cyclotomic subgroup (Granger–
// Scott). Over Fp4 = Fp2[s]/(s² - ξ), s = w³, an element is A + B w + C w²
// and its square is (3A² - 2Ā) + (3sC² + 2B̄) w + (3B² - 2C̄) w².
func cyclotomicSquare(z, x *fe12) {
	g0, g1, g2, g3, g4, g5 := &x[0][0], &x[1][0], &x[0][1], &x[1][1], &x[0][2], &x[1][2]
	var a0, a1, b0, b1, c0, c1 fe2
	fp4Square(&a0, &a1, g0, g3)
	fp4Square(&b0, &b1, g1, g4)
	fp4Square(&c0, &c1, g2, g5)

	var r0, r1, r2, r3, r4, r5, t fe2
	// A part: g0' = 3a0 - 2g0, g3' = 3a1 + 2g3
	sub2(&t, &a0, g0)
	double2(&t, &t)
	add2(&r0, &t, &a0)
	add2(&t, &a1, g3)
	double2(&t, &t)
	add2(&r3, &t, &a1)
	// B part from C²: g1' = 3ξc1 + 2g1, g4' = 3c0 - 2g4
	mulByXi(&c1, &c1)
	add2(&t, &c1, g1)
	double2(&t, &t)
	add2(&r1, &t, &c1)
	sub2(&t, &c0, g4)
	double2(&t, &t)
	add2(&r4, &t, &c0)
	// C part from B²: g2' = 3b0 - 2g2, g5' = 3b1 + 2g5
	sub2(&t, &b0, g2)
	double2(&t, &t)
	add2(&r2, &t, &b0)
	add2(&t, &b1, g5)
	double2(&t, &t)
	add2(&r5, &t, &b1)

	z[0][0], z[1][0], z[0][1], z[1][1], z[0][2], z[1][2] = r0, r1, r2, r3, r4, r5
}

// fp4Square returns (a + b s)² = (a² + ξb²) + 2ab·s.
func fp4Square(r0, r1, a, b *fe2) {
	var t0, t1, s fe2
	square2(&t0, a)
	square2(&t1, b)
	add2(&s, a, b)
	square2(&s, &s)
	sub2(&s, &s, &t0)
	sub2(r1, &s, &t1)
	mulByXi(&t1, &t1)
	add2(r0, &t0, &t1)
}

// expByX sets z = x^(curve x) for x in the cyclotomic subgroup; the curve
// parameter is negative, hence the final conjugation.
func expByX(z, x *fe12) {
	r := *x
	for i := 62; i >= 0; i-- {
		cyclotomicSquare(&r, &r)
		if (blsX>>uint(i))&1 == 1 {
			mul12(&r, &r, x)
		}
	}
	conj12(z, &r)
}

// finalExp raises f to 3(p¹²-1)/r. The factor 3 (coprime to r) comes from
// the Hayashida–Hayasaka–Teruya decomposition of the hard part,
// 3(p⁴-p²+1)/r = (x-1)²(x+p)(x²+p²-1) + 3; it keeps the result a
// non-degenerate bilinear pairing and leaves "is it 1" unchanged.
func finalExp(f *fe12) fe12 {
	// Easy part: f^((p⁶-1)(p²+1)).
	var t, inv fe12
	conj12(&t, f)
	inverse12(&inv, f)
	mul12(&t, &t, &inv)
	var t2 fe12
	frob12(&t2, &t, 2)
	mul12(&t, &t2, &t)

	// Hard part.
	var a, b, c, s fe12
	expByX(&a, &t) // t^x
	conj12(&s, &t)
	mul12(&a, &a, &s) // t^(x-1)
	expByX(&b, &a)
	conj12(&s, &a)
	mul12(&a, &b, &s) // t^((x-1)²)
	expByX(&b, &a)
	frob12(&s, &a, 1)
	mul12(&b, &b, &s) // a^(x+p)
	expByX(&c, &b)
	expByX(&c, &c)
	frob12(&s, &b, 2)
	mul12(&c, &c, &s)
	conj12(&s, &b)
	mul12(&c, &c, &s) // b^(x²+p²-1)
	cyclotomicSquare(&s, &t)
	mul12(&s, &s, &t)
	mul12(&c, &c, &s)
	return c
}

// pairingCheck reports whether Π e(P_i, Q_i) = 1.
func pairingCheck(ps []*G1, qs []*G2Prepared) bool {
	px := make([]fe, 0, len(ps))
	py := make([]fe, 0, len(ps))
	qq := make([]*G2Prepared, 0, len(qs))
	for i, p := range ps {
		x, y, ok := p.affine()
		if !ok || qs[i].infinity {
			continue
		}
		px = append(px, x)
		py = append(py, y)
		qq = append(qq, qs[i])
	}
	if len(qq) == 0 {
		return true
	}
	f := millerLoop(px, py, qq)
	r := finalExp(&f)
	return r.isOne()
}

// PairingCheck reports whether Π e(g1[i], g2[i]) = 1. The points must be in
// their prime-order subgroups; the function does not check that.
func PairingCheck(g1 []G1, g2 []*G2Prepared) bool {
	ps := make([]*G1, len(g1))
	for i := range g1 {
		ps[i] = &g1[i]
	}
	return pairingCheck(ps, g2)
}
