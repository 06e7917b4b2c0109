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

// inSubgroup reports whether p is in G2. Instead of checking r·p = 0 it
// uses the endomorphism ψ (untwist–Frobenius–twist) and the criterion for
// BN curves [u+1]Q + ψ([u]Q) + ψ²([u]Q) = ψ³([2u]Q) (El Housni, Guillevic,
// Piellard), which needs a 63-bit instead of a 254-bit multiplication.
func (p *g2Aff) inSubgroup() bool {
	if p.inf {
		return true
	}
	var uq, lhs, t, rhs g2Jac
	uq.mulU(p)
	lhs.addMixed(&uq, p) // [u+1]Q
	t.psi(&uq)
	lhs.add(&lhs, &t) // + ψ([u]Q)
	t.psi(&t)
	lhs.add(&lhs, &t) // + ψ²([u]Q)
	rhs.double(&uq)
	rhs.psi(&rhs)
	rhs.psi(&rhs)
	rhs.psi(&rhs) // ψ³([2u]Q)
	return lhs.equal(&rhs)
}

// inSubgroupSlow is the definition, r·p = 0; tests check the fast
// criterion against it.
func (p *g2Aff) inSubgroupSlow() bool {
	if p.inf {
		return true
	}
	var j, q g2Jac
	j.fromAffine(p)
	q.scalarMul(&j, &orderR)
	return q.isInfinity()
}

// psi sets p = ψ(q) = (conj(x)·ξ^((p-1)/3), conj(y)·ξ^((p-1)/2)); in
// Jacobian coordinates Z is conjugated.
func (p *g2Jac) psi(q *g2Jac) {
	fe2Conj(&p.x, &q.x)
	fe2Mul(&p.x, &p.x, &frob1[2])
	fe2Conj(&p.y, &q.y)
	fe2Mul(&p.y, &p.y, &frob1[3])
	fe2Conj(&p.z, &q.z)
}

// mulU sets p = [u]q for an affine q: double-and-add over the NAF of u
// with mixed additions of ±q.
func (p *g2Jac) mulU(q *g2Aff) {
	var qn g2Aff
	qn = *q
	fe2Neg(&qn.y, &q.y)
	var acc g2Jac
	acc.fromAffine(q) // top NAF digit is 1
	for i := len(uNAF) - 2; i >= 0; i-- {
		acc.double(&acc)
		switch uNAF[i] {
		case 1:
			acc.addMixed(&acc, q)
		case -1:
			acc.addMixed(&acc, &qn)
		}
	}
	*p = acc
}

// addMixed sets p = a + b for an affine b (madd-2007-bl).
func (p *g2Jac) addMixed(a *g2Jac, b *g2Aff) {
	if b.inf {
		*p = *a
		return
	}
	if a.isInfinity() {
		p.fromAffine(b)
		return
	}
	var z1z1, u2, s2, h, hh, i, j, r, v, t fe2
	fe2Square(&z1z1, &a.z)
	fe2Mul(&u2, &b.x, &z1z1)
	fe2Mul(&s2, &b.y, &a.z)
	fe2Mul(&s2, &s2, &z1z1)
	fe2Sub(&h, &u2, &a.x)
	fe2Sub(&r, &s2, &a.y)
	if h.isZero() {
		if r.isZero() {
			p.double(a)
		} else {
			p.setInfinity()
		}
		return
	}
	fe2Double(&r, &r)
	fe2Square(&hh, &h)
	fe2Double(&i, &hh)
	fe2Double(&i, &i)
	fe2Mul(&j, &h, &i)
	fe2Mul(&v, &a.x, &i)

	var x3, y3, z3 fe2
	fe2Square(&x3, &r)
	fe2Sub(&x3, &x3, &j)
	fe2Double(&t, &v)
	fe2Sub(&x3, &x3, &t)
	fe2Sub(&t, &v, &x3)
	fe2Mul(&y3, &r, &t)
	fe2Mul(&t, &a.y, &j)
	fe2Double(&t, &t)
	fe2Sub(&y3, &y3, &t)
	fe2Add(&z3, &a.z, &h)
	fe2Square(&z3, &z3)
	fe2Sub(&z3, &z3, &z1z1)
	fe2Sub(&z3, &z3, &hh)
	p.x, p.y, p.z = x3, y3, z3
}

// equal compares two Jacobian points projectively.
func (p *g2Jac) equal(q *g2Jac) bool {
	if p.isInfinity() || q.isInfinity() {
		return p.isInfinity() && q.isInfinity()
	}
	var z1z1, z2z2, a, b fe2
	fe2Square(&z1z1, &p.z)
	fe2Square(&z2z2, &q.z)
	fe2Mul(&a, &p.x, &z2z2)
	fe2Mul(&b, &q.x, &z1z1)
	if a != b {
		return false
	}
	fe2Mul(&z1z1, &z1z1, &p.z)
	fe2Mul(&z2z2, &z2z2, &q.z)
	fe2Mul(&a, &p.y, &z2z2)
	fe2Mul(&b, &q.y, &z1z1)
	return a == b
}

func (p *g2Jac) setInfinity() { *p = g2Jac{x: fe2{c0: feOne}, y: fe2{c0: feOne}} }

func (p *g2Jac) fromAffine(a *g2Aff) {
	if a.inf {
		p.setInfinity()
		return
	}
	p.x, p.y, p.z = a.x, a.y, fe2{c0: feOne}
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

// uNAF is the non-adjacent form of u, least significant digit first.
var uNAF []int8

func init() {
	s := new(big.Int).SetUint64(bnU)
	for s.Sign() > 0 {
		if s.Bit(0) == 1 {
			d := int8(2 - int(s.Bits()[0]&3))
			uNAF = append(uNAF, d)
			s.Sub(s, big.NewInt(int64(d)))
		} else {
			uNAF = append(uNAF, 0)
		}
		s.Rsh(s, 1)
	}
}
