package bn254

// fe6 is b0 + b1·v + b2·v² in Fp6 = Fp2[v]/(v³ - ξ).
type fe6 struct{ b0, b1, b2 fe2 }

func (x *fe6) isZero() bool { return x.b0.isZero() && x.b1.isZero() && x.b2.isZero() }

func fe6Add(z, x, y *fe6) {
	fe2Add(&z.b0, &x.b0, &y.b0)
	fe2Add(&z.b1, &x.b1, &y.b1)
	fe2Add(&z.b2, &x.b2, &y.b2)
}

func fe6Sub(z, x, y *fe6) {
	fe2Sub(&z.b0, &x.b0, &y.b0)
	fe2Sub(&z.b1, &x.b1, &y.b1)
	fe2Sub(&z.b2, &x.b2, &y.b2)
}

func fe6Neg(z, x *fe6) {
	fe2Neg(&z.b0, &x.b0)
	fe2Neg(&z.b1, &x.b1)
	fe2Neg(&z.b2, &x.b2)
}

// fe6MulV multiplies by v: (b0, b1, b2)·v = (ξ·b2, b0, b1).
func fe6MulV(z, x *fe6) {
	var t fe2
	fe2MulXi(&t, &x.b2)
	z.b2 = x.b1
	z.b1 = x.b0
	z.b0 = t
}

// fe6Mul: Karatsuba over the three coefficients, six Fp2 multiplications.
func fe6Mul(z, x, y *fe6) {
	var t0, t1, t2, s, u, c0, c1, c2 fe2
	fe2Mul(&t0, &x.b0, &y.b0)
	fe2Mul(&t1, &x.b1, &y.b1)
	fe2Mul(&t2, &x.b2, &y.b2)

	fe2Add(&s, &x.b1, &x.b2)
	fe2Add(&u, &y.b1, &y.b2)
	fe2Mul(&c0, &s, &u)
	fe2Sub(&c0, &c0, &t1)
	fe2Sub(&c0, &c0, &t2)
	fe2MulXi(&c0, &c0)
	fe2Add(&c0, &c0, &t0)

	fe2Add(&s, &x.b0, &x.b1)
	fe2Add(&u, &y.b0, &y.b1)
	fe2Mul(&c1, &s, &u)
	fe2Sub(&c1, &c1, &t0)
	fe2Sub(&c1, &c1, &t1)
	fe2MulXi(&s, &t2)
	fe2Add(&c1, &c1, &s)

	fe2Add(&s, &x.b0, &x.b2)
	fe2Add(&u, &y.b0, &y.b2)
	fe2Mul(&c2, &s, &u)
	fe2Sub(&c2, &c2, &t0)
	fe2Sub(&c2, &c2, &t2)
	fe2Add(&c2, &c2, &t1)

	z.b0, z.b1, z.b2 = c0, c1, c2
}

// fe6Square uses the Chung–Hasan SQR2 formulas: two multiplications and
// three squarings in Fp2.
func fe6Square(z, x *fe6) {
	var s0, s1, s2, s3, s4, t fe2
	fe2Square(&s0, &x.b0)
	fe2Mul(&s1, &x.b0, &x.b1)
	fe2Double(&s1, &s1)
	fe2Sub(&t, &x.b0, &x.b1)
	fe2Add(&t, &t, &x.b2)
	fe2Square(&s2, &t)
	fe2Mul(&s3, &x.b1, &x.b2)
	fe2Double(&s3, &s3)
	fe2Square(&s4, &x.b2)

	var c0, c1, c2 fe2
	fe2MulXi(&t, &s3)
	fe2Add(&c0, &s0, &t)
	fe2MulXi(&t, &s4)
	fe2Add(&c1, &s1, &t)
	fe2Add(&c2, &s1, &s2)
	fe2Add(&c2, &c2, &s3)
	fe2Sub(&c2, &c2, &s0)
	fe2Sub(&c2, &c2, &s4)
	z.b0, z.b1, z.b2 = c0, c1, c2
}

// fe6MulFp2 multiplies every coefficient by an Fp2 element.
func fe6MulFp2(z, x *fe6, y *fe2) {
	fe2Mul(&z.b0, &x.b0, y)
	fe2Mul(&z.b1, &x.b1, y)
	fe2Mul(&z.b2, &x.b2, y)
}

// fe6MulBy01 multiplies by the sparse element d0 + d1·v (five Fp2
// multiplications), the shape Miller-loop lines have.
func fe6MulBy01(z, x *fe6, d0, d1 *fe2) {
	var t0, t1, c0, c1, c2, s, u fe2
	fe2Mul(&t0, &x.b0, d0)
	fe2Mul(&t1, &x.b1, d1)

	fe2Mul(&c0, &x.b2, d1)
	fe2MulXi(&c0, &c0)
	fe2Add(&c0, &c0, &t0)

	fe2Add(&s, &x.b0, &x.b1)
	fe2Add(&u, d0, d1)
	fe2Mul(&c1, &s, &u)
	fe2Sub(&c1, &c1, &t0)
	fe2Sub(&c1, &c1, &t1)

	fe2Mul(&c2, &x.b2, d0)
	fe2Add(&c2, &c2, &t1)
	z.b0, z.b1, z.b2 = c0, c1, c2
}

// fe6Inv sets z = x^-1.
func fe6Inv(z, x *fe6) {
	var a, b, c, t, f fe2
	// a = b0² - ξ b1 b2
	fe2Square(&a, &x.b0)
	fe2Mul(&t, &x.b1, &x.b2)
	fe2MulXi(&t, &t)
	fe2Sub(&a, &a, &t)
	// b = ξ b2² - b0 b1
	fe2Square(&b, &x.b2)
	fe2MulXi(&b, &b)
	fe2Mul(&t, &x.b0, &x.b1)
	fe2Sub(&b, &b, &t)
	// c = b1² - b0 b2
	fe2Square(&c, &x.b1)
	fe2Mul(&t, &x.b0, &x.b2)
	fe2Sub(&c, &c, &t)
	// f = b0 a + ξ (b2 b + b1 c)
	fe2Mul(&f, &x.b2, &b)
	fe2Mul(&t, &x.b1, &c)
	fe2Add(&f, &f, &t)
	fe2MulXi(&f, &f)
	fe2Mul(&t, &x.b0, &a)
	fe2Add(&f, &f, &t)
	fe2Inv(&f, &f)
	fe2Mul(&z.b0, &a, &f)
	fe2Mul(&z.b1, &b, &f)
	fe2Mul(&z.b2, &c, &f)
}
