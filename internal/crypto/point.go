package crypto

// Jacobian point arithmetic on secp256k1 (y² = x³ + 7) over fe, used only by
// sender recovery. A Jacobian (X, Y, Z) stands for the affine point
// (X/Z², Y/Z³). All functions here are variable-time.

// jac is a point in Jacobian coordinates; inf marks the point at infinity.
type jac struct {
	x, y, z fe
	inf     bool
}

// aff is a point in affine coordinates (never infinity).
type aff struct{ x, y fe }

// jacZ is a Jacobian point with Z² and Z³ cached, for points that are added
// many times (the per-signature table).
type jacZ struct {
	x, y, z, zz, zzz fe
}

func (p *jacZ) set(q *jac) {
	p.x, p.y, p.z = q.x, q.y, q.z
	p.zz.sqr(&q.z)
	p.zzz.mul(&p.zz, &q.z)
}

// double sets r = 2p (a = 0 doubling, 3M + 4S). It computes the usual
// Jacobian doubling scaled by 1/2, which the coordinates allow:
// L = 3X²/2, T = X·Y², X3 = L² − 2T, Y3 = L·(T − X3) − Y⁴, Z3 = Y·Z.
// secp256k1 has no point of order 2, so Y is never 0 for a finite point.
func (r *jac) double(p *jac) {
	if p.inf {
		r.inf = true
		return
	}
	var l, s, t, y4, x3, t2 fe
	l.sqr(&p.x)
	l.mulSmall(&l, 3)
	l.half(&l)
	s.sqr(&p.y)
	t.mul(&p.x, &s)
	y4.sqr(&s)
	r.z.mul(&p.y, &p.z) // before r.y may overwrite p.y
	x3.sqr(&l)
	t2.add(&t, &t)
	x3.sub(&x3, &t2)
	t.sub(&t, &x3)
	t.mul(&t, &l)
	r.y.sub(&t, &y4)
	r.x = x3
	r.inf = false
}

// addAffine sets r = p + q, or p − q if neg, for an affine q (8M + 3S).
func (r *jac) addAffine(p *jac, q *aff, neg bool) {
	qy := q.y
	if neg {
		qy.neg(&q.y)
	}
	if p.inf {
		r.x, r.y, r.z, r.inf = q.x, qy, feOne, false
		return
	}
	var z1z1, u2, s2, h, rr fe
	z1z1.sqr(&p.z)
	u2.mul(&q.x, &z1z1)
	s2.mul(&qy, &p.z)
	s2.mul(&s2, &z1z1)
	h.sub(&u2, &p.x)
	rr.sub(&s2, &p.y)
	if h.isZero() {
		if rr.isZero() {
			r.double(p)
		} else {
			r.inf = true
		}
		return
	}
	r.finishAdd(&p.x, &p.y, &p.z, &h, &rr, nil)
}

// addAffineNoSpecial sets r = p + q for a finite p and an affine q with
// p ≠ ±q, and returns H, the factor by which Z grew (Z3 = Z1·H).
func (r *jac) addAffineNoSpecial(p *jac, q *aff) (h fe) {
	var z1z1, u2, s2, rr fe
	z1z1.sqr(&p.z)
	u2.mul(&q.x, &z1z1)
	s2.mul(&q.y, &p.z)
	s2.mul(&s2, &z1z1)
	h.sub(&u2, &p.x)
	rr.sub(&s2, &p.y)
	r.finishAdd(&p.x, &p.y, &p.z, &h, &rr, nil)
	return h
}

// addScaled sets r = p ± q where p lives on the isomorphic curve of scale
// zt (see doubleMul) and q is an affine point of the real curve, that is
// the Jacobian point (q.x, q.y, 1/zt) there (9M + 3S).
func (r *jac) addScaled(p *jac, q *aff, neg bool, zt, zt2, zt3 *fe) {
	qy := q.y
	if neg {
		qy.neg(&q.y)
	}
	if p.inf {
		r.x.mul(&q.x, zt2)
		r.y.mul(&qy, zt3)
		r.z, r.inf = feOne, false
		return
	}
	var az, az2, u2, s2, h, rr fe
	az.mul(&p.z, zt)
	az2.sqr(&az)
	u2.mul(&q.x, &az2)
	s2.mul(&qy, &az)
	s2.mul(&s2, &az2)
	h.sub(&u2, &p.x)
	rr.sub(&s2, &p.y)
	if h.isZero() {
		if rr.isZero() {
			r.double(p)
		} else {
			r.inf = true
		}
		return
	}
	r.finishAdd(&p.x, &p.y, &p.z, &h, &rr, nil)
}

// addZ sets r = p + q, or p − q if neg, for a Jacobian q with cached Z
// powers (11M + 3S).
func (r *jac) addZ(p *jac, q *jacZ, neg bool) {
	qy := q.y
	if neg {
		qy.neg(&q.y)
	}
	if p.inf {
		r.x, r.y, r.z, r.inf = q.x, qy, q.z, false
		return
	}
	var z1z1, u1, u2, s1, s2, h, rr fe
	z1z1.sqr(&p.z)
	u1.mul(&p.x, &q.zz)
	u2.mul(&q.x, &z1z1)
	s1.mul(&p.y, &q.zzz)
	s2.mul(&qy, &p.z)
	s2.mul(&s2, &z1z1)
	h.sub(&u2, &u1)
	rr.sub(&s2, &s1)
	if h.isZero() {
		if rr.isZero() {
			r.double(p)
		} else {
			r.inf = true
		}
		return
	}
	r.finishAdd(&u1, &s1, &p.z, &h, &rr, &q.z)
}

// finishAdd completes an addition from U1, S1, H = U2 − U1, R = S2 − S1:
// X3 = R² − H³ − 2·U1·H², Y3 = R·(U1·H² − X3) − S1·H³, Z3 = Z1·Z2·H
// (z2 nil means Z2 = 1). Inputs may alias r's fields.
func (r *jac) finishAdd(u1, s1, z1, h, rr, z2 *fe) {
	var h2, h3, v, t, z3 fe
	h2.sqr(h)
	h3.mul(h, &h2)
	v.mul(u1, &h2)
	z3.mul(z1, h)
	if z2 != nil {
		z3.mul(&z3, z2)
	}
	t.mul(s1, &h3)
	var x3, y3 fe
	x3.sqr(rr)
	x3.sub(&x3, &h3)
	x3.sub(&x3, &v)
	x3.sub(&x3, &v)
	y3.sub(&v, &x3)
	y3.mul(&y3, rr)
	y3.sub(&y3, &t)
	r.x, r.y, r.z, r.inf = x3, y3, z3, false
}

// toAffine returns the affine coordinates of a finite point, normalized.
func (p *jac) toAffine() (x, y fe) {
	var zi, zi2 fe
	z := p.z
	z.normalize()
	zi = fe(modP.inverse(z))
	zi2.sqr(&zi)
	x.mul(&p.x, &zi2)
	y.mul(&p.y, &zi2)
	y.mul(&y, &zi)
	x.normalize()
	y.normalize()
	return x, y
}
