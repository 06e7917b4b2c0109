package bn254

import "math/big"

// G2 is the order-r subgroup of the sextic twist E': y² = x³ + 3/ξ over
// Fp2. Unlike G1, the twist has a large cofactor, so decoded points need
// a subgroup check.

type g2Jac struct{ x, y, z fe2 }

type g2Aff struct {
	x, y fe2
	inf  bool
}

var (
	twistB fe2      // 3/ξ
	orderR [32]byte // the group order r, big-endian
)

func init() {
	var xi fe2
	nine := make([]byte, 32)
	nine[31] = 9
	feFromBytes(&xi.c0, nine)
	xi.c1 = feOne
	fe2Inv(&twistB, &xi)
	fe2MulFp(&twistB, &twistB, &curveB)
	r, _ := new(big.Int).SetString("30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001", 16)
	r.FillBytes(orderR[:])
}

func (p *g2Aff) onCurve() bool {
	var y2, x3 fe2
	fe2Square(&y2, &p.y)
	fe2Square(&x3, &p.x)
	fe2Mul(&x3, &x3, &p.x)
	fe2Add(&x3, &x3, &twistB)
	return y2 == x3
}

// inSubgroup reports whether r·p is the point at infinity.
func (p *g2Aff) inSubgroup() bool {
	if p.inf {
		return true
	}
	var j, q g2Jac
	j.fromAffine(p)
	q.scalarMul(&j, &orderR)
	return q.isInfinity()
}

func (p *g2Jac) setInfinity() { *p = g2Jac{x: fe2{c0: feOne}, y: fe2{c0: feOne}} }

func (p *g2Jac) isInfinity() bool { return p.z.isZero() }

func (p *g2Jac) fromAffine(a *g2Aff) {
	if a.inf {
		p.setInfinity()
		return
	}
	p.x, p.y, p.z = a.x, a.y, fe2{c0: feOne}
}

func (p *g2Jac) toAffine(a *g2Aff) {
	if p.isInfinity() {
		*a = g2Aff{inf: true}
		return
	}
	var zi, zi2 fe2
	fe2Inv(&zi, &p.z)
	fe2Square(&zi2, &zi)
	fe2Mul(&a.x, &p.x, &zi2)
	fe2Mul(&zi2, &zi2, &zi)
	fe2Mul(&a.y, &p.y, &zi2)
	a.inf = false
}

func (p *g2Jac) double(q *g2Jac) {
	var a, b, c, d, e, f, t fe2
	fe2Square(&a, &q.x)
	fe2Square(&b, &q.y)
	fe2Square(&c, &b)
	fe2Add(&d, &q.x, &b)
	fe2Square(&d, &d)
	fe2Sub(&d, &d, &a)
	fe2Sub(&d, &d, &c)
	fe2Double(&d, &d)
	fe2Double(&e, &a)
	fe2Add(&e, &e, &a)
	fe2Square(&f, &e)

	var z3 fe2
	fe2Mul(&z3, &q.y, &q.z)
	fe2Double(&p.z, &z3)

	fe2Double(&t, &d)
	fe2Sub(&p.x, &f, &t)
	fe2Sub(&t, &d, &p.x)
	fe2Mul(&t, &t, &e)
	fe2Double(&c, &c)
	fe2Double(&c, &c)
	fe2Double(&c, &c)
	fe2Sub(&p.y, &t, &c)
}

func (p *g2Jac) add(q, r *g2Jac) {
	if q.isInfinity() {
		*p = *r
		return
	}
	if r.isInfinity() {
		*p = *q
		return
	}
	var z1z1, z2z2, u1, u2, s1, s2, h, i, j, rr, v, t fe2
	fe2Square(&z1z1, &q.z)
	fe2Square(&z2z2, &r.z)
	fe2Mul(&u1, &q.x, &z2z2)
	fe2Mul(&u2, &r.x, &z1z1)
	fe2Mul(&s1, &q.y, &r.z)
	fe2Mul(&s1, &s1, &z2z2)
	fe2Mul(&s2, &r.y, &q.z)
	fe2Mul(&s2, &s2, &z1z1)
	if u1 == u2 {
		if s1 == s2 {
			p.double(q)
		} else {
			p.setInfinity()
		}
		return
	}
	fe2Sub(&h, &u2, &u1)
	fe2Double(&i, &h)
	fe2Square(&i, &i)
	fe2Mul(&j, &h, &i)
	fe2Sub(&rr, &s2, &s1)
	fe2Double(&rr, &rr)
	fe2Mul(&v, &u1, &i)

	var x3, y3, z3 fe2
	fe2Square(&x3, &rr)
	fe2Sub(&x3, &x3, &j)
	fe2Double(&t, &v)
	fe2Sub(&x3, &x3, &t)

	fe2Sub(&t, &v, &x3)
	fe2Mul(&y3, &rr, &t)
	fe2Mul(&t, &s1, &j)
	fe2Double(&t, &t)
	fe2Sub(&y3, &y3, &t)

	fe2Add(&z3, &q.z, &r.z)
	fe2Square(&z3, &z3)
	fe2Sub(&z3, &z3, &z1z1)
	fe2Sub(&z3, &z3, &z2z2)
	fe2Mul(&z3, &z3, &h)
	p.x, p.y, p.z = x3, y3, z3
}

func (p *g2Jac) scalarMul(q *g2Jac, k *[32]byte) {
	var table [16]g2Jac
	table[0].setInfinity()
	table[1] = *q
	for i := 2; i < 16; i++ {
		if i%2 == 0 {
			table[i].double(&table[i/2])
		} else {
			table[i].add(&table[i-1], q)
		}
	}
	var acc g2Jac
	acc.setInfinity()
	started := false
	for _, b := range k {
		for _, nib := range [2]byte{b >> 4, b & 15} {
			if started {
				acc.double(&acc)
				acc.double(&acc)
				acc.double(&acc)
				acc.double(&acc)
			}
			if nib != 0 {
				acc.add(&acc, &table[nib])
				started = true
			}
		}
	}
	*p = acc
}
