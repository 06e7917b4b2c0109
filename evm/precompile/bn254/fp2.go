package bn254

// fe2 is an element c0 + c1·i of Fp2 = Fp[i]/(i² + 1).
type fe2 struct{ c0, c1 fe }

func (x *fe2) isZero() bool { return x.c0.isZero() && x.c1.isZero() }

func (x *fe2) isOne() bool { return x.c0 == feOne && x.c1.isZero() }

func fe2Add(z, x, y *fe2) {
	feAdd(&z.c0, &x.c0, &y.c0)
	feAdd(&z.c1, &x.c1, &y.c1)
}

func fe2Sub(z, x, y *fe2) {
	feSub(&z.c0, &x.c0, &y.c0)
	feSub(&z.c1, &x.c1, &y.c1)
}

func fe2Double(z, x *fe2) {
	feDouble(&z.c0, &x.c0)
	feDouble(&z.c1, &x.c1)
}

func fe2Neg(z, x *fe2) {
	feNeg(&z.c0, &x.c0)
	feNeg(&z.c1, &x.c1)
}

// fe2Conj sets z to the conjugate c0 - c1·i, which is also x^p.
func fe2Conj(z, x *fe2) {
	z.c0 = x.c0
	feNeg(&z.c1, &x.c1)
}

// fe2Mul uses Karatsuba: three base-field multiplications.
func fe2Mul(z, x, y *fe2) {
	var a, b, s, t fe
	feMul(&a, &x.c0, &y.c0)
	feMul(&b, &x.c1, &y.c1)
	feAdd(&s, &x.c0, &x.c1)
	feAdd(&t, &y.c0, &y.c1)
	feMul(&s, &s, &t)
	feSub(&s, &s, &a)
	feSub(&z.c1, &s, &b)
	feSub(&z.c0, &a, &b)
}

// fe2Square: (c0+c1 i)² = (c0+c1)(c0-c1) + 2c0c1 i.
func fe2Square(z, x *fe2) {
	var s, d, m fe
	feAdd(&s, &x.c0, &x.c1)
	feSub(&d, &x.c0, &x.c1)
	feMul(&m, &x.c0, &x.c1)
	feMul(&z.c0, &s, &d)
	feDouble(&z.c1, &m)
}

// fe2MulFp multiplies by a base-field element.
func fe2MulFp(z, x *fe2, y *fe) {
	feMul(&z.c0, &x.c0, y)
	feMul(&z.c1, &x.c1, y)
}

// fe2MulXi multiplies by the non-residue ξ = 9 + i:
// (a + b i)(9 + i) = (9a - b) + (a + 9b) i.
func fe2MulXi(z, x *fe2) {
	var a9, b9, t fe
	mul9(&a9, &x.c0)
	mul9(&b9, &x.c1)
	feSub(&t, &a9, &x.c1)
	feAdd(&z.c1, &x.c0, &b9)
	z.c0 = t
}

func mul9(z, x *fe) {
	var t fe
	feDouble(&t, x)
	feDouble(&t, &t)
	feDouble(&t, &t)
	feAdd(z, &t, x)
}

// fe2Inv sets z = x^-1 via the norm: 1/(a+bi) = (a-bi)/(a²+b²).
func fe2Inv(z, x *fe2) {
	var n, t fe
	feSquare(&n, &x.c0)
	feSquare(&t, &x.c1)
	feAdd(&n, &n, &t)
	feInv(&n, &n)
	feMul(&z.c0, &x.c0, &n)
	feMul(&t, &x.c1, &n)
	feNeg(&z.c1, &t)
}

// fe2Exp sets z = x^e for a little-endian multi-limb exponent (init only).
func fe2Exp(z, x *fe2, e []uint64) {
	r := fe2{c0: feOne}
	b := *x
	for i := len(e) - 1; i >= 0; i-- {
		for j := 63; j >= 0; j-- {
			fe2Square(&r, &r)
			if e[i]>>uint(j)&1 == 1 {
				fe2Mul(&r, &r, &b)
			}
		}
	}
	*z = r
}
