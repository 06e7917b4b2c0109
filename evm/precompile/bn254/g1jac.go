package bn254

// The Jacobian group law of G1 over Fp.
// g2jac.go is this file over Fp2, derived from it: edit here, then go generate.
//go:generate go run github.com/chaind/chaind/internal/tools/derive -in g1jac.go -out g2jac.go -ident g1Jac=g2Jac,g1Aff=g2Aff,fe=fe2,feInv=fe2Inv,feSquare=fe2Square,feMul=fe2Mul,feAdd=fe2Add,feSub=fe2Sub,feDouble=fe2Double,feNeg=fe2Neg -prose "G1 over Fp.->G2 over Fp2.|G1->G2"

func (p *g1Jac) isInfinity() bool { return p.z.isZero() }

func (p *g1Jac) toAffine(a *g1Aff) {
	if p.isInfinity() {
		*a = g1Aff{inf: true}
		return
	}
	var zi, zi2 fe
	feInv(&zi, &p.z)
	feSquare(&zi2, &zi)
	feMul(&a.x, &p.x, &zi2)
	feMul(&zi2, &zi2, &zi)
	feMul(&a.y, &p.y, &zi2)
	a.inf = false
}

// double sets p = 2q (dbl-2009-l, a = 0).
func (p *g1Jac) double(q *g1Jac) {
	var a, b, c, d, e, f, t fe
	feSquare(&a, &q.x)
	feSquare(&b, &q.y)
	feSquare(&c, &b)
	feAdd(&d, &q.x, &b)
	feSquare(&d, &d)
	feSub(&d, &d, &a)
	feSub(&d, &d, &c)
	feDouble(&d, &d)
	feDouble(&e, &a)
	feAdd(&e, &e, &a)
	feSquare(&f, &e)

	var z3 fe
	feMul(&z3, &q.y, &q.z)
	feDouble(&p.z, &z3)

	feDouble(&t, &d)
	feSub(&p.x, &f, &t)
	feSub(&t, &d, &p.x)
	feMul(&t, &t, &e)
	feDouble(&c, &c)
	feDouble(&c, &c)
	feDouble(&c, &c)
	feSub(&p.y, &t, &c)
}

// add sets p = q + r (add-2007-bl), handling infinity and doubling.
func (p *g1Jac) add(q, r *g1Jac) {
	if q.isInfinity() {
		*p = *r
		return
	}
	if r.isInfinity() {
		*p = *q
		return
	}
	var z1z1, z2z2, u1, u2, s1, s2, h, i, j, rr, v, t fe
	feSquare(&z1z1, &q.z)
	feSquare(&z2z2, &r.z)
	feMul(&u1, &q.x, &z2z2)
	feMul(&u2, &r.x, &z1z1)
	feMul(&s1, &q.y, &r.z)
	feMul(&s1, &s1, &z2z2)
	feMul(&s2, &r.y, &q.z)
	feMul(&s2, &s2, &z1z1)
	if u1 == u2 {
		if s1 == s2 {
			p.double(q)
		} else {
			p.setInfinity()
		}
		return
	}
	feSub(&h, &u2, &u1)
	feDouble(&i, &h)
	feSquare(&i, &i)
	feMul(&j, &h, &i)
	feSub(&rr, &s2, &s1)
	feDouble(&rr, &rr)
	feMul(&v, &u1, &i)

	var x3, y3, z3 fe
	feSquare(&x3, &rr)
	feSub(&x3, &x3, &j)
	feDouble(&t, &v)
	feSub(&x3, &x3, &t)

	feSub(&t, &v, &x3)
	feMul(&y3, &rr, &t)
	feMul(&t, &s1, &j)
	feDouble(&t, &t)
	feSub(&y3, &y3, &t)

	feAdd(&z3, &q.z, &r.z)
	feSquare(&z3, &z3)
	feSub(&z3, &z3, &z1z1)
	feSub(&z3, &z3, &z2z2)
	feMul(&z3, &z3, &h)
	p.x, p.y, p.z = x3, y3, z3
}

func (p *g1Jac) neg(q *g1Jac) {
	p.x, p.z = q.x, q.z
	feNeg(&p.y, &q.y)
}
