package bls12381

// fe2 is an element a0 + a1·u of Fp2 = Fp[u]/(u² + 1).
type fe2 [2]fe

func (z *fe2) isZero() bool { return z[0].isZero() && z[1].isZero() }
func (z *fe2) isOne() bool  { return z[0].isOne() && z[1].isZero() }

func (z *fe2) setOne() *fe2 {
	z[0].setOne()
	z[1] = fe{}
	return z
}

func add2(z, x, y *fe2) {
	add(&z[0], &x[0], &y[0])
	add(&z[1], &x[1], &y[1])
}

func sub2(z, x, y *fe2) {
	sub(&z[0], &x[0], &y[0])
	sub(&z[1], &x[1], &y[1])
}

func double2(z, x *fe2) {
	double(&z[0], &x[0])
	double(&z[1], &x[1])
}

func neg2(z, x *fe2) {
	neg(&z[0], &x[0])
	neg(&z[1], &x[1])
}

func conj2(z, x *fe2) {
	z[0] = x[0]
	neg(&z[1], &x[1])
}

// mul2 uses Karatsuba: three base-field products instead of four.
func mul2(z, x, y *fe2) {
	var t0, t1, s0, s1 fe
	mul(&t0, &x[0], &y[0])
	mul(&t1, &x[1], &y[1])
	addLazy(&s0, &x[0], &x[1])
	addLazy(&s1, &y[0], &y[1])
	mul(&s0, &s0, &s1)
	sub(&z[0], &t0, &t1)
	sub(&s0, &s0, &t0)
	sub(&z[1], &s0, &t1)
}

// square2 uses (a0+a1)(a0-a1) and 2·a0·a1: two products.
func square2(z, x *fe2) {
	var s, d, m fe
	addLazy(&s, &x[0], &x[1])
	sub(&d, &x[0], &x[1])
	mul(&m, &x[0], &x[1])
	mul(&z[0], &s, &d)
	double(&z[1], &m)
}

// mulByFp multiplies by a base-field element.
func mulByFp(z, x *fe2, y *fe) {
	mul(&z[0], &x[0], y)
	mul(&z[1], &x[1], y)
}

// mulByXi multiplies by ξ = 1 + u, the non-residue the tower is built on.
func mulByXi(z, x *fe2) {
	var t fe
	sub(&t, &x[0], &x[1])
	add(&z[1], &x[0], &x[1])
	z[0] = t
}

func inverse2(z, x *fe2) {
	// 1/(a0 + a1 u) = (a0 - a1 u)/(a0² + a1²).
	var t0, t1 fe
	square(&t0, &x[0])
	square(&t1, &x[1])
	add(&t0, &t0, &t1)
	inverse(&t0, &t0)
	mul(&z[0], &x[0], &t0)
	mul(&t0, &x[1], &t0)
	neg(&z[1], &t0)
}

// exp2 raises x to a little-endian word exponent.
func exp2(z, x *fe2, e []uint64) {
	var r fe2
	r.setOne()
	b := *x
	for i := len(e) - 1; i >= 0; i-- {
		for j := 63; j >= 0; j-- {
			square2(&r, &r)
			if (e[i]>>uint(j))&1 == 1 {
				mul2(&r, &r, &b)
			}
		}
	}
	*z = r
}

// sqrt2 sets z to a square root of x and reports whether one exists. It
// works through the norm: if x = (a + bu)², then a² + b² = N(x)^(1/2)…
// concretely a² = (x0 ± √N)/2 with N = x0² + x1², and b = x1/(2a).
func sqrt2(z, x *fe2) bool {
	if x[1].isZero() {
		// x is in Fp: either it has a root there, or -x does and the
		// root is that times u.
		var r fe
		if sqrt(&r, &x[0]) {
			z[0], z[1] = r, fe{}
			return true
		}
		var n fe
		neg(&n, &x[0])
		if sqrt(&r, &n) {
			z[0], z[1] = fe{}, r
			return true
		}
		return false
	}
	var n, t, a, half fe
	square(&n, &x[0])
	square(&t, &x[1])
	add(&n, &n, &t)
	if !sqrt(&n, &n) {
		return false
	}
	half = feHalf
	add(&t, &x[0], &n)
	mul(&t, &t, &half)
	if !sqrt(&a, &t) {
		sub(&t, &x[0], &n)
		mul(&t, &t, &half)
		if !sqrt(&a, &t) {
			return false
		}
	}
	if a.isZero() {
		return false
	}
	var b, inv fe
	double(&inv, &a)
	inverse(&inv, &inv)
	mul(&b, &x[1], &inv)
	r := fe2{a, b}
	var c fe2
	square2(&c, &r)
	if c != *x {
		return false
	}
	*z = r
	return true
}

// sgn0 of an Fp2 element per RFC 9380: the sign of a0, or of a1 when a0 is 0.
func sgn0Fp2(x *fe2) uint64 {
	s0 := sgn0(&x[0])
	z0 := uint64(0)
	if x[0].isZero() {
		z0 = 1
	}
	return s0 | (z0 & sgn0(&x[1]))
}

// isLexLarger2 is the compressed-encoding "larger root" rule for Fp2: the
// imaginary part decides unless it is zero.
func isLexLarger2(x *fe2) bool {
	if !x[1].isZero() {
		return isLexLarger(&x[1])
	}
	return isLexLarger(&x[0])
}
