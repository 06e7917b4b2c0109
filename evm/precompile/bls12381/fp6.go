package bls12381

// fe6 is b0 + b1·v + b2·v² in Fp6 = Fp2[v]/(v³ - ξ), ξ = 1 + u.
type fe6 [3]fe2

func (z *fe6) isZero() bool { return z[0].isZero() && z[1].isZero() && z[2].isZero() }

func (z *fe6) setOne() *fe6 {
	z[0].setOne()
	z[1], z[2] = fe2{}, fe2{}
	return z
}

func add6(z, x, y *fe6) {
	add2(&z[0], &x[0], &y[0])
	add2(&z[1], &x[1], &y[1])
	add2(&z[2], &x[2], &y[2])
}

func sub6(z, x, y *fe6) {
	sub2(&z[0], &x[0], &y[0])
	sub2(&z[1], &x[1], &y[1])
	sub2(&z[2], &x[2], &y[2])
}

func double6(z, x *fe6) {
	double2(&z[0], &x[0])
	double2(&z[1], &x[1])
	double2(&z[2], &x[2])
}

func neg6(z, x *fe6) {
	neg2(&z[0], &x[0])
	neg2(&z[1], &x[1])
	neg2(&z[2], &x[2])
}

// mul6 is the Karatsuba-style product with six Fp2 multiplications.
func mul6(z, x, y *fe6) {
	var t0, t1, t2, s0, s1, r0, r1, r2 fe2
	mul2(&t0, &x[0], &y[0])
	mul2(&t1, &x[1], &y[1])
	mul2(&t2, &x[2], &y[2])

	// r0 = t0 + ξ((x1+x2)(y1+y2) - t1 - t2)
	add2(&s0, &x[1], &x[2])
	add2(&s1, &y[1], &y[2])
	mul2(&s0, &s0, &s1)
	sub2(&s0, &s0, &t1)
	sub2(&s0, &s0, &t2)
	mulByXi(&s0, &s0)
	add2(&r0, &s0, &t0)

	// r1 = (x0+x1)(y0+y1) - t0 - t1 + ξ t2
	add2(&s0, &x[0], &x[1])
	add2(&s1, &y[0], &y[1])
	mul2(&s0, &s0, &s1)
	sub2(&s0, &s0, &t0)
	sub2(&s0, &s0, &t1)
	mulByXi(&s1, &t2)
	add2(&r1, &s0, &s1)

	// r2 = (x0+x2)(y0+y2) - t0 - t2 + t1
	add2(&s0, &x[0], &x[2])
	add2(&s1, &y[0], &y[2])
	mul2(&s0, &s0, &s1)
	sub2(&s0, &s0, &t0)
	sub2(&s0, &s0, &t2)
	add2(&r2, &s0, &t1)

	z[0], z[1], z[2] = r0, r1, r2
}

// square6 is the Chung–Hasan SQR2 formula.
func square6(z, x *fe6) {
	var s0, s1, s2, s3, s4, t fe2
	square2(&s0, &x[0])
	mul2(&s1, &x[0], &x[1])
	double2(&s1, &s1)
	sub2(&t, &x[0], &x[1])
	add2(&t, &t, &x[2])
	square2(&s2, &t)
	mul2(&s3, &x[1], &x[2])
	double2(&s3, &s3)
	square2(&s4, &x[2])

	var r0, r1, r2 fe2
	mulByXi(&t, &s3)
	add2(&r0, &s0, &t)
	mulByXi(&t, &s4)
	add2(&r1, &s1, &t)
	add2(&r2, &s1, &s2)
	add2(&r2, &r2, &s3)
	sub2(&r2, &r2, &s0)
	sub2(&r2, &r2, &s4)
	z[0], z[1], z[2] = r0, r1, r2
}

// mulByV multiplies by v: (b0, b1, b2)·v = (ξ b2, b0, b1).
func mulByV(z, x *fe6) {
	var t fe2
	mulByXi(&t, &x[2])
	z[2] = x[1]
	z[1] = x[0]
	z[0] = t
}

// mulBy01 multiplies by the sparse element a + b·v.
func mulBy01(z, x *fe6, a, b *fe2) {
	var t0, t1, s0, s1, r0, r1, r2 fe2
	mul2(&t0, &x[0], a)
	mul2(&t1, &x[1], b)

	// r0 = x0 a + ξ x2 b
	mul2(&s0, &x[2], b)
	mulByXi(&s0, &s0)
	add2(&r0, &s0, &t0)

	// r1 = (x0+x1)(a+b) - t0 - t1
	add2(&s0, &x[0], &x[1])
	add2(&s1, a, b)
	mul2(&s0, &s0, &s1)
	sub2(&s0, &s0, &t0)
	sub2(&r1, &s0, &t1)

	// r2 = x1 b + x2 a
	mul2(&s0, &x[2], a)
	add2(&r2, &s0, &t1)
	z[0], z[1], z[2] = r0, r1, r2
}

// mulBy1 multiplies by the sparse element c·v.
func mulBy1(z, x *fe6, c *fe2) {
	var r0, r1, r2 fe2
	mul2(&r0, &x[2], c)
	mulByXi(&r0, &r0)
	mul2(&r1, &x[0], c)
	mul2(&r2, &x[1], c)
	z[0], z[1], z[2] = r0, r1, r2
}

func inverse6(z, x *fe6) {
	// With c0 = b0² - ξ b1 b2, c1 = ξ b2² - b0 b1, c2 = b1² - b0 b2, the
	// inverse is (c0, c1, c2) / (b0 c0 + ξ (b2 c1 + b1 c2)).
	var c0, c1, c2, t, n fe2
	square2(&c0, &x[0])
	mul2(&t, &x[1], &x[2])
	mulByXi(&t, &t)
	sub2(&c0, &c0, &t)

	square2(&c1, &x[2])
	mulByXi(&c1, &c1)
	mul2(&t, &x[0], &x[1])
	sub2(&c1, &c1, &t)

	square2(&c2, &x[1])
	mul2(&t, &x[0], &x[2])
	sub2(&c2, &c2, &t)

	mul2(&n, &x[2], &c1)
	mul2(&t, &x[1], &c2)
	add2(&n, &n, &t)
	mulByXi(&n, &n)
	mul2(&t, &x[0], &c0)
	add2(&n, &n, &t)
	inverse2(&n, &n)

	mul2(&z[0], &c0, &n)
	mul2(&z[1], &c1, &n)
	mul2(&z[2], &c2, &n)
}
