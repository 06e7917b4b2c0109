package bls12381

import "math/big"

// Endomorphisms used for fast subgroup checks and G2 cofactor clearing.
//
// G1: φ(x, y) = (βx, y) with β a primitive cube root of unity acts on G1 as
// multiplication by -x², so P ∈ G1 ⇔ φ(P) = [-x²]P (Scott, "A note on group
// membership tests for G1, G2 and GT on BLS pairing-friendly curves").
//
// G2: ψ = twist⁻¹ ∘ Frobenius ∘ twist, ψ(x, y) = (x̄·cx, ȳ·cy) with
// cx = ξ^-((p-1)/3) and cy = ξ^-((p-1)/2), acts on G2 as multiplication by
// p ≡ x (mod r), so P ∈ G2 ⇔ ψ(P) = [x]P (same note).

var (
	beta  fe
	psiCx fe2
	psiCy fe2
)

func init() {
	// β: a cube root of unity other than 1, picked so that φ(G) = [-x²]G.
	e := new(big.Int).Sub(bigP, big.NewInt(1))
	e.Div(e, big.NewInt(3))
	var cand fe
	for g := uint64(2); ; g++ {
		var base fe
		base.setUint(g)
		exp(&cand, &base, bigToWords(e))
		if !cand.isOne() {
			break
		}
	}
	beta = cand
	g := g1Gen
	var lhs, rhs G1
	lhs.phi(&g)
	rhs.mulByMinusX2(&g)
	if !lhs.Equal(&rhs) {
		square(&beta, &beta)
	}
	inverse2(&psiCx, &frobCoef[0][2])
	inverse2(&psiCy, &frobCoef[0][3])
}

// phi sets p = φ(q).
func (p *G1) phi(q *G1) *G1 {
	mul(&p.x, &q.x, &beta)
	p.y, p.z = q.y, q.z
	return p
}

// mulByX sets p = [x]q for the (negative) curve parameter x. |x| has only
// six set bits, so plain double-and-add beats any window.
func (p *G1) mulByX(q *G1) *G1 {
	r := *q
	for i := 62; i >= 0; i-- {
		r.Double(&r)
		if (blsX>>uint(i))&1 == 1 {
			r.Add(&r, q)
		}
	}
	return p.Neg(&r)
}

// mulByMinusX2 sets p = [-x²]q.
func (p *G1) mulByMinusX2(q *G1) *G1 {
	var t G1
	t.mulByX(q)
	t.mulByX(&t)
	return p.Neg(&t)
}

// InSubgroup reports whether p lies in the prime-order subgroup G1.
func (p *G1) InSubgroup() bool {
	if p.isInfinity() {
		return true
	}
	var a, b G1
	a.phi(p)
	b.mulByMinusX2(p)
	return a.Equal(&b)
}

// psi sets p = ψ(q). In Jacobian coordinates the scaling by z², z³
// commutes with conjugation up to z̄, so z is conjugated too.
func (p *G2) psi(q *G2) *G2 {
	conj2(&p.x, &q.x)
	mul2(&p.x, &p.x, &psiCx)
	conj2(&p.y, &q.y)
	mul2(&p.y, &p.y, &psiCy)
	conj2(&p.z, &q.z)
	return p
}

// mulByX sets p = [x]q for the (negative) curve parameter x.
func (p *G2) mulByX(q *G2) *G2 {
	r := *q
	for i := 62; i >= 0; i-- {
		r.Double(&r)
		if (blsX>>uint(i))&1 == 1 {
			r.Add(&r, q)
		}
	}
	return p.Neg(&r)
}

// InSubgroup reports whether p lies in the prime-order subgroup G2.
func (p *G2) InSubgroup() bool {
	if p.isInfinity() {
		return true
	}
	var a, b G2
	a.psi(p)
	b.mulByX(p)
	return a.Equal(&b)
}

// clearCofactor sets p = h_eff·q as RFC 9380 defines it for G2, computed
// as [x²-x-1]q + [x-1]ψ(q) + ψ²(2q) (Budroni–Pintore), which equals the
// multiplication by h_eff.
func (p *G2) clearCofactor(q *G2) *G2 {
	var t1, t2, t3 G2
	t1.mulByX(q)
	t2.psi(q)
	t3.Double(q)
	t3.psi(&t3)
	t3.psi(&t3)
	var n G2
	t3.Add(&t3, n.Neg(&t2))
	t2.Add(&t1, &t2)
	t2.mulByX(&t2)
	t3.Add(&t3, &t2)
	t3.Add(&t3, n.Neg(&t1))
	return p.Add(&t3, n.Neg(q))
}

// clearCofactor sets p = h_eff·q for G1, with h_eff = 1 - x.
func (p *G1) clearCofactor(q *G1) *G1 {
	var t G1
	t.mulByX(q)
	return p.Add(q, t.Neg(&t))
}
