package bls12381

// G2 is a point of the curve y² = x³ + 4(1+u) over Fp2 in Jacobian coordinates
// (x/z², y/z³); z = 0 is the point at infinity. The zero value is the point
// at infinity. Points are not necessarily in the prime-order subgroup:
// callers check membership where a protocol requires it.
type G2 struct {
	x, y, z fe2
}

// isInfinity reports whether p is the point at infinity.
func (p *G2) isInfinity() bool { return p.z.isZero() }

func (p *G2) setInfinity() *G2 {
	*p = G2{}
	return p
}

// setAffine sets p from affine coordinates without checks.
func (p *G2) setAffine(x, y *fe2) *G2 {
	p.x, p.y = *x, *y
	p.z.setOne()
	return p
}

// isOnCurve checks y² = x³ + b·z⁶ (true for the point at infinity).
func (p *G2) isOnCurve() bool {
	if p.isInfinity() {
		return true
	}
	var y2, x3, z2, z6 fe2
	square2(&y2, &p.y)
	square2(&x3, &p.x)
	mul2(&x3, &x3, &p.x)
	square2(&z2, &p.z)
	square2(&z6, &z2)
	mul2(&z6, &z6, &z2)
	mulByB2(&z6, &z6)
	add2(&x3, &x3, &z6)
	return y2 == x3
}

// Equal reports whether p and q are the same point.
func (p *G2) Equal(q *G2) bool {
	if p.isInfinity() || q.isInfinity() {
		return p.isInfinity() && q.isInfinity()
	}
	var z1, z2, a, b fe2
	square2(&z1, &p.z)
	square2(&z2, &q.z)
	mul2(&a, &p.x, &z2)
	mul2(&b, &q.x, &z1)
	if a != b {
		return false
	}
	mul2(&z1, &z1, &p.z)
	mul2(&z2, &z2, &q.z)
	mul2(&a, &p.y, &z2)
	mul2(&b, &q.y, &z1)
	return a == b
}

// Neg sets p = -q.
func (p *G2) Neg(q *G2) *G2 {
	p.x, p.z = q.x, q.z
	neg2(&p.y, &q.y)
	return p
}

// Double sets p = 2q (dbl-2009-l, for a = 0).
func (p *G2) Double(q *G2) *G2 {
	if q.isInfinity() {
		return p.setInfinity()
	}
	var a, b, c, d, e, f, t fe2
	square2(&a, &q.x)
	square2(&b, &q.y)
	square2(&c, &b)
	add2(&d, &q.x, &b)
	square2(&d, &d)
	sub2(&d, &d, &a)
	sub2(&d, &d, &c)
	double2(&d, &d)
	double2(&e, &a)
	add2(&e, &e, &a)
	square2(&f, &e)

	mul2(&t, &q.y, &q.z)
	double2(&p.z, &t)
	double2(&t, &d)
	sub2(&p.x, &f, &t)
	sub2(&t, &d, &p.x)
	mul2(&t, &t, &e)
	double2(&c, &c)
	double2(&c, &c)
	double2(&c, &c)
	sub2(&p.y, &t, &c)
	return p
}

// Add sets p = a + b (add-2007-bl), handling every special case.
func (p *G2) Add(a, b *G2) *G2 {
	if a.isInfinity() {
		*p = *b
		return p
	}
	if b.isInfinity() {
		*p = *a
		return p
	}
	var z1z1, z2z2, u1, u2, s1, s2, h, i, j, r, v, t fe2
	square2(&z1z1, &a.z)
	square2(&z2z2, &b.z)
	mul2(&u1, &a.x, &z2z2)
	mul2(&u2, &b.x, &z1z1)
	mul2(&s1, &a.y, &b.z)
	mul2(&s1, &s1, &z2z2)
	mul2(&s2, &b.y, &a.z)
	mul2(&s2, &s2, &z1z1)
	sub2(&h, &u2, &u1)
	sub2(&r, &s2, &s1)
	if h.isZero() {
		if r.isZero() {
			return p.Double(a)
		}
		return p.setInfinity()
	}
	double2(&i, &h)
	square2(&i, &i)
	mul2(&j, &h, &i)
	double2(&r, &r)
	mul2(&v, &u1, &i)

	var x3, y3, z3 fe2
	square2(&x3, &r)
	sub2(&x3, &x3, &j)
	sub2(&x3, &x3, &v)
	sub2(&x3, &x3, &v)
	sub2(&t, &v, &x3)
	mul2(&y3, &r, &t)
	mul2(&t, &s1, &j)
	double2(&t, &t)
	sub2(&y3, &y3, &t)
	add2(&z3, &a.z, &b.z)
	square2(&z3, &z3)
	sub2(&z3, &z3, &z1z1)
	sub2(&z3, &z3, &z2z2)
	mul2(&z3, &z3, &h)
	p.x, p.y, p.z = x3, y3, z3
	return p
}

// addAffine sets p = a + (x, y) for an affine point (madd-2007-bl).
func (p *G2) addAffine(a *G2, x, y *fe2) *G2 {
	if a.isInfinity() {
		return p.setAffine(x, y)
	}
	var z1z1, u2, s2, h, hh, i, j, r, v, t fe2
	square2(&z1z1, &a.z)
	mul2(&u2, x, &z1z1)
	mul2(&s2, y, &a.z)
	mul2(&s2, &s2, &z1z1)
	sub2(&h, &u2, &a.x)
	sub2(&r, &s2, &a.y)
	if h.isZero() {
		if r.isZero() {
			return p.Double(a)
		}
		return p.setInfinity()
	}
	square2(&hh, &h)
	double2(&i, &hh)
	double2(&i, &i)
	mul2(&j, &h, &i)
	double2(&r, &r)
	mul2(&v, &a.x, &i)

	var x3, y3, z3 fe2
	square2(&x3, &r)
	sub2(&x3, &x3, &j)
	sub2(&x3, &x3, &v)
	sub2(&x3, &x3, &v)
	sub2(&t, &v, &x3)
	mul2(&y3, &r, &t)
	mul2(&t, &a.y, &j)
	double2(&t, &t)
	sub2(&y3, &y3, &t)
	add2(&z3, &a.z, &h)
	square2(&z3, &z3)
	sub2(&z3, &z3, &z1z1)
	sub2(&z3, &z3, &hh)
	p.x, p.y, p.z = x3, y3, z3
	return p
}

// affine returns the affine coordinates; ok is false for infinity.
func (p *G2) affine() (x, y fe2, ok bool) {
	if p.isInfinity() {
		return fe2{}, fe2{}, false
	}
	var zi, zi2 fe2
	inverse2(&zi, &p.z)
	square2(&zi2, &zi)
	mul2(&x, &p.x, &zi2)
	mul2(&zi2, &zi2, &zi)
	mul2(&y, &p.y, &zi2)
	return x, y, true
}

// normalize rewrites p with z = 1 (unless it is infinity).
func (p *G2) normalize() *G2 {
	if x, y, ok := p.affine(); ok {
		p.setAffine(&x, &y)
	}
	return p
}

// mulWords sets p = k·q for a little-endian word scalar, using a 4-bit
// fixed window.
func (p *G2) mulWords(q *G2, k []uint64) *G2 {
	var table [16]G2
	table[1] = *q
	for i := 2; i < 16; i++ {
		table[i].Add(&table[i-1], q)
	}
	var r G2
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
func (p *G2) ScalarMult(q *G2, k *[32]byte) *G2 {
	w := scalarWords(k)
	return p.mulWords(q, w[:])
}
