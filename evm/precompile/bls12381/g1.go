package bls12381

// g2.go is this file over Fp2, derived from it: edit here, then run go generate.
//go:generate go run github.com/chaind/chaind/internal/tools/derive -in g1.go -out g2.go -ident G1=G2,fe=fe2,mulByB1=mulByB2,add=add2,sub=sub2,double=double2,neg=neg2,mul=mul2,square=square2,inverse=inverse2 -prose "G1->G2|y² = x³ + 4 over Fp ->y² = x³ + 4(1+u) over Fp2 "

// G1 is a point of the curve y² = x³ + 4 over Fp in Jacobian coordinates
// (x/z², y/z³); z = 0 is the point at infinity. The zero value is the point
// at infinity. Points are not necessarily in the prime-order subgroup:
// callers check membership where a protocol requires it.
type G1 struct {
	x, y, z fe
}

// isInfinity reports whether p is the point at infinity.
func (p *G1) isInfinity() bool { return p.z.isZero() }

func (p *G1) setInfinity() *G1 {
	*p = G1{}
	return p
}

// setAffine sets p from affine coordinates without checks.
func (p *G1) setAffine(x, y *fe) *G1 {
	p.x, p.y = *x, *y
	p.z.setOne()
	return p
}

// isOnCurve checks y² = x³ + b·z⁶ (true for the point at infinity).
func (p *G1) isOnCurve() bool {
	if p.isInfinity() {
		return true
	}
	var y2, x3, z2, z6 fe
	square(&y2, &p.y)
	square(&x3, &p.x)
	mul(&x3, &x3, &p.x)
	square(&z2, &p.z)
	square(&z6, &z2)
	mul(&z6, &z6, &z2)
	mulByB1(&z6, &z6)
	add(&x3, &x3, &z6)
	return y2 == x3
}

// Equal reports whether p and q are the same point.
func (p *G1) Equal(q *G1) bool {
	if p.isInfinity() || q.isInfinity() {
		return p.isInfinity() && q.isInfinity()
	}
	var z1, z2, a, b fe
	square(&z1, &p.z)
	square(&z2, &q.z)
	mul(&a, &p.x, &z2)
	mul(&b, &q.x, &z1)
	if a != b {
		return false
	}
	mul(&z1, &z1, &p.z)
	mul(&z2, &z2, &q.z)
	mul(&a, &p.y, &z2)
	mul(&b, &q.y, &z1)
	return a == b
}

// Neg sets p = -q.
func (p *G1) Neg(q *G1) *G1 {
	p.x, p.z = q.x, q.z
	neg(&p.y, &q.y)
	return p
}

// Double sets p = 2q (dbl-2009-l, for a = 0).
func (p *G1) Double(q *G1) *G1 {
	if q.isInfinity() {
		return p.setInfinity()
	}
	var a, b, c, d, e, f, t fe
	square(&a, &q.x)
	square(&b, &q.y)
	square(&c, &b)
	add(&d, &q.x, &b)
	square(&d, &d)
	sub(&d, &d, &a)
	sub(&d, &d, &c)
	double(&d, &d)
	double(&e, &a)
	add(&e, &e, &a)
	square(&f, &e)

	mul(&t, &q.y, &q.z)
	double(&p.z, &t)
	double(&t, &d)
	sub(&p.x, &f, &t)
	sub(&t, &d, &p.x)
	mul(&t, &t, &e)
	double(&c, &c)
	double(&c, &c)
	double(&c, &c)
	sub(&p.y, &t, &c)
	return p
}

// Add sets p = a + b (add-2007-bl), handling every special case.
func (p *G1) Add(a, b *G1) *G1 {
	if a.isInfinity() {
		*p = *b
		return p
	}
	if b.isInfinity() {
		*p = *a
		return p
	}
	var z1z1, z2z2, u1, u2, s1, s2, h, i, j, r, v, t fe
	square(&z1z1, &a.z)
	square(&z2z2, &b.z)
	mul(&u1, &a.x, &z2z2)
	mul(&u2, &b.x, &z1z1)
	mul(&s1, &a.y, &b.z)
	mul(&s1, &s1, &z2z2)
	mul(&s2, &b.y, &a.z)
	mul(&s2, &s2, &z1z1)
	sub(&h, &u2, &u1)
	sub(&r, &s2, &s1)
	if h.isZero() {
		if r.isZero() {
			return p.Double(a)
		}
		return p.setInfinity()
	}
	double(&i, &h)
	square(&i, &i)
	mul(&j, &h, &i)
	double(&r, &r)
	mul(&v, &u1, &i)

	var x3, y3, z3 fe
	square(&x3, &r)
	sub(&x3, &x3, &j)
	sub(&x3, &x3, &v)
	sub(&x3, &x3, &v)
	sub(&t, &v, &x3)
	mul(&y3, &r, &t)
	mul(&t, &s1, &j)
	double(&t, &t)
	sub(&y3, &y3, &t)
	add(&z3, &a.z, &b.z)
	square(&z3, &z3)
	sub(&z3, &z3, &z1z1)
	sub(&z3, &z3, &z2z2)
	mul(&z3, &z3, &h)
	p.x, p.y, p.z = x3, y3, z3
	return p
}

// addAffine sets p = a + (x, y) for an affine point (madd-2007-bl).
func (p *G1) addAffine(a *G1, x, y *fe) *G1 {
	if a.isInfinity() {
		return p.setAffine(x, y)
	}
	var z1z1, u2, s2, h, hh, i, j, r, v, t fe
	square(&z1z1, &a.z)
	mul(&u2, x, &z1z1)
	mul(&s2, y, &a.z)
	mul(&s2, &s2, &z1z1)
	sub(&h, &u2, &a.x)
	sub(&r, &s2, &a.y)
	if h.isZero() {
		if r.isZero() {
			return p.Double(a)
		}
		return p.setInfinity()
	}
	square(&hh, &h)
	double(&i, &hh)
	double(&i, &i)
	mul(&j, &h, &i)
	double(&r, &r)
	mul(&v, &a.x, &i)

	var x3, y3, z3 fe
	square(&x3, &r)
	sub(&x3, &x3, &j)
	sub(&x3, &x3, &v)
	sub(&x3, &x3, &v)
	sub(&t, &v, &x3)
	mul(&y3, &r, &t)
	mul(&t, &a.y, &j)
	double(&t, &t)
	sub(&y3, &y3, &t)
	add(&z3, &a.z, &h)
	square(&z3, &z3)
	sub(&z3, &z3, &z1z1)
	sub(&z3, &z3, &hh)
	p.x, p.y, p.z = x3, y3, z3
	return p
}

// affine returns the affine coordinates; ok is false for infinity.
func (p *G1) affine() (x, y fe, ok bool) {
	if p.isInfinity() {
		return fe{}, fe{}, false
	}
	var zi, zi2 fe
	inverse(&zi, &p.z)
	square(&zi2, &zi)
	mul(&x, &p.x, &zi2)
	mul(&zi2, &zi2, &zi)
	mul(&y, &p.y, &zi2)
	return x, y, true
}

// normalize rewrites p with z = 1 (unless it is infinity).
func (p *G1) normalize() *G1 {
	if x, y, ok := p.affine(); ok {
		p.setAffine(&x, &y)
	}
	return p
}

// mulWords sets p = k·q for a little-endian word scalar, using a 4-bit
// fixed window.
func (p *G1) mulWords(q *G1, k []uint64) *G1 {
	var table [16]G1
	table[1] = *q
	for i := 2; i < 16; i++ {
		table[i].Add(&table[i-1], q)
	}
	var r G1
	for i := len(k) - 1; i >= 0; i-- {
		for s := 60; s >= 0; s -= 4 {
			if !r.isInfinity() {
				r.Double(&r)
				r.Double(&r)
				r.Double(&r)
				r.Double(&r)
			}
			if d := (k[i] >> uint(s)) & 15; d != 0 {
				r.Add(&r, &table[d])
			}
		}
	}
	*p = r
	return p
}

// ScalarMult sets p = k·q for a 32-byte big-endian scalar (not reduced).
func (p *G1) ScalarMult(q *G1, k *[32]byte) *G1 {
	w := scalarWords(k)
	return p.mulWords(q, w[:])
}
