package bn254

import "math/big"

// fe12 is c0 + c1·w in Fp12 = Fp6[w]/(w² - v).
type fe12 struct{ c0, c1 fe6 }

func fe12One() fe12 {
	var z fe12
	z.c0.b0.c0 = feOne
	return z
}

func (x *fe12) isOne() bool {
	one := fe12One()
	return *x == one
}

func fe12Mul(z, x, y *fe12) {
	var t0, t1, s, u fe6
	fe6Mul(&t0, &x.c0, &y.c0)
	fe6Mul(&t1, &x.c1, &y.c1)
	fe6Add(&s, &x.c0, &x.c1)
	fe6Add(&u, &y.c0, &y.c1)
	fe6Mul(&s, &s, &u)
	fe6Sub(&s, &s, &t0)
	fe6Sub(&z.c1, &s, &t1)
	fe6MulV(&t1, &t1)
	fe6Add(&z.c0, &t0, &t1)
}

// fe12Square: (a + b w)² = (a + b)(a + v b) - ab - v ab + 2ab w.
func fe12Square(z, x *fe12) {
	var ab, s, u, vb fe6
	fe6Mul(&ab, &x.c0, &x.c1)
	fe6Add(&s, &x.c0, &x.c1)
	fe6MulV(&vb, &x.c1)
	fe6Add(&u, &x.c0, &vb)
	fe6Mul(&s, &s, &u)
	fe6Sub(&s, &s, &ab)
	fe6MulV(&u, &ab)
	fe6Sub(&z.c0, &s, &u)
	fe6Add(&z.c1, &ab, &ab)
}

// fe12Conj sets z = x^(p⁶), which for elements of the cyclotomic subgroup
// is also the inverse.
func fe12Conj(z, x *fe12) {
	z.c0 = x.c0
	fe6Neg(&z.c1, &x.c1)
}

func fe12Inv(z, x *fe12) {
	var t0, t1 fe6
	fe6Square(&t0, &x.c0)
	fe6Square(&t1, &x.c1)
	fe6MulV(&t1, &t1)
	fe6Sub(&t0, &t0, &t1)
	fe6Inv(&t0, &t0)
	fe6Mul(&z.c0, &x.c0, &t0)
	fe6Mul(&t1, &x.c1, &t0)
	fe6Neg(&z.c1, &t1)
}

// fe12MulLine multiplies by a sparse line value a + b·w + c·w³, i.e.
// (a, 0, 0) + (b, c, 0)·w.
func fe12MulLine(z *fe12, a, b, c *fe2) {
	var t0, t1, s fe6
	fe6MulFp2(&t0, &z.c0, a)
	fe6MulBy01(&t1, &z.c1, b, c)
	var ab fe2
	fe2Add(&ab, a, b)
	fe6Add(&s, &z.c0, &z.c1)
	fe6MulBy01(&s, &s, &ab, c)
	fe6Sub(&s, &s, &t0)
	fe6Sub(&z.c1, &s, &t1)
	fe6MulV(&t1, &t1)
	fe6Add(&z.c0, &t0, &t1)
}

// Frobenius constants: the coefficient of w^k picks up γ_n^k, with
// γ_n = ξ^((p^n - 1)/6), after conjugation for odd n.
var frob1, frob2, frob3 [6]fe2

func init() {
	xi := fe2{}
	var nine fe
	nineB := make([]byte, 32)
	nineB[31] = 9
	feFromBytes(&nine, nineB)
	xi.c0, xi.c1 = nine, feOne
	pn := new(big.Int).Set(pBig)
	for n, tab := range []*[6]fe2{&frob1, &frob2, &frob3} {
		if n > 0 {
			pn.Mul(pn, pBig)
		}
		e := new(big.Int).Sub(pn, big.NewInt(1))
		e.Quo(e, big.NewInt(6))
		var gamma fe2
		fe2Exp(&gamma, &xi, bigToWords(e))
		tab[0] = fe2{c0: feOne}
		for k := 1; k < 6; k++ {
			fe2Mul(&tab[k], &tab[k-1], &gamma)
		}
	}
}

func bigToWords(v *big.Int) []uint64 {
	var out []uint64
	t := new(big.Int).Set(v)
	mask := new(big.Int).SetUint64(^uint64(0))
	for t.Sign() > 0 {
		out = append(out, new(big.Int).And(t, mask).Uint64())
		t.Rsh(t, 64)
	}
	return out
}

// fe12Frob sets z = x^(p^n) for n in {1, 2, 3}.
func fe12Frob(z, x *fe12, n int) {
	tab := &frob1
	switch n {
	case 2:
		tab = &frob2
	case 3:
		tab = &frob3
	}
	coef := [6]*fe2{&x.c0.b0, &x.c1.b0, &x.c0.b1, &x.c1.b1, &x.c0.b2, &x.c1.b2}
	out := [6]*fe2{&z.c0.b0, &z.c1.b0, &z.c0.b1, &z.c1.b1, &z.c0.b2, &z.c1.b2}
	for k := range 6 {
		t := *coef[k]
		if n%2 == 1 {
			fe2Conj(&t, &t)
		}
		fe2Mul(out[k], &t, &tab[k])
	}
}
