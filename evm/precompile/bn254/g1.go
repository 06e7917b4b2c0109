package bn254

// G1 is the curve y² = x³ + 3 over Fp; its group of points has prime order
// r, so every curve point is in the subgroup.

// g1Jac is a point in Jacobian coordinates (x = X/Z², y = Y/Z³); Z = 0 is
// the point at infinity.
type g1Jac struct{ x, y, z fe }

// g1Aff is an affine point; inf marks the point at infinity.
type g1Aff struct {
	x, y fe
	inf  bool
}

var curveB fe // 3 in Montgomery form

func init() {
	b := make([]byte, 32)
	b[31] = 3
	feFromBytes(&curveB, b)
}

func (p *g1Aff) onCurve() bool {
	var y2, x3 fe
	feSquare(&y2, &p.y)
	feSquare(&x3, &p.x)
	feMul(&x3, &x3, &p.x)
	feAdd(&x3, &x3, &curveB)
	return y2 == x3
}

func (p *g1Jac) setInfinity() { *p = g1Jac{x: feOne, y: feOne} }

func (p *g1Jac) fromAffine(a *g1Aff) {
	if a.inf {
		p.setInfinity()
		return
	}
	p.x, p.y, p.z = a.x, a.y, feOne
}
