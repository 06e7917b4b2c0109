package bn254

import (
	"math/big"
	"math/bits"
)

// GLV scalar multiplication on G1. The map φ(x, y) = (βx, y), with β a
// cube root of unity in Fp, acts on G1 as multiplication by λ, a cube root
// of unity mod r. Writing k = k1 + k2·λ (mod r) with k1, k2 of about 128
// bits halves the doublings of k·P = k1·P + k2·φ(P).
//
// All constants are derived at start-up from p and r (math/big is used
// only there); the per-call decomposition works on fixed 4-limb
// two's-complement integers.

type u256 [4]uint64 // little-endian, two's complement where signed

var (
	glvBeta fe   // β in Montgomery form
	glvR    u256 // r
	// k1 = k - c1·a1 - c2·a2, k2 = -c1·b1 - c2·b2 with
	// c1 = ⌊k·g1 / 2^256⌉, c2 = ⌊k·g2 / 2^256⌉ (signs kept separately).
	glvA1, glvA2, glvB1, glvB2 u256
	glvG1, glvG2               u256 // |g1|, |g2|
	glvG1Neg, glvG2Neg         bool
)

func init() {
	r := new(big.Int).SetBytes(orderR[:])
	glvR = toU256(r)

	// β: a non-trivial cube root of unity in Fp.
	third := new(big.Int).Sub(pBig, big.NewInt(1))
	third.Quo(third, big.NewInt(3))
	var beta *big.Int
	for c := int64(2); ; c++ {
		beta = new(big.Int).Exp(big.NewInt(c), third, pBig)
		if beta.Cmp(big.NewInt(1)) != 0 {
			break
		}
	}
	// λ: a non-trivial cube root of unity mod r.
	thirdR := new(big.Int).Sub(r, big.NewInt(1))
	thirdR.Quo(thirdR, big.NewInt(3))
	var lambda *big.Int
	for c := int64(2); ; c++ {
		lambda = new(big.Int).Exp(big.NewInt(c), thirdR, r)
		if lambda.Cmp(big.NewInt(1)) != 0 {
			break
		}
	}
	var bb [32]byte
	beta.FillBytes(bb[:])
	feFromBytes(&glvBeta, bb[:])
	// Match λ to β: φ(G) must equal λ·G, else the other root λ² is the one.
	var g g1Jac
	g.x, g.y, g.z = feOneTimes(1), feOneTimes(2), feOne
	var lg, phi g1Jac
	var lb [32]byte
	lambda.FillBytes(lb[:])
	lg.scalarMulPlain(&g, &lb)
	phi = g
	feMul(&phi.x, &phi.x, &glvBeta)
	if !lg.equal(&phi) {
		lambda.Mul(lambda, lambda).Mod(lambda, r)
	}

	// Short basis of {(a, b) : a + b·λ ≡ 0 mod r} by the extended
	// Euclidean algorithm, stopping around √r.
	sqrtR := new(big.Int).Sqrt(r)
	r0, r1 := new(big.Int).Set(r), new(big.Int).Set(lambda)
	t0, t1 := big.NewInt(0), big.NewInt(1)
	for r1.Cmp(sqrtR) >= 0 {
		q := new(big.Int).Quo(r0, r1)
		r0, r1 = r1, new(big.Int).Sub(r0, new(big.Int).Mul(q, r1))
		t0, t1 = t1, new(big.Int).Sub(t0, new(big.Int).Mul(q, t1))
	}
	// (r0, t0) has r0 >= √r > r1; v1 = (r1, -t1); v2 is the shorter of
	// (r0, -t0) and the next remainder pair.
	q := new(big.Int).Quo(r0, r1)
	r2 := new(big.Int).Sub(r0, new(big.Int).Mul(q, r1))
	t2 := new(big.Int).Sub(t0, new(big.Int).Mul(q, t1))
	a1, b1 := r1, new(big.Int).Neg(t1)
	a2, b2 := r0, new(big.Int).Neg(t0)
	norm := func(a, b *big.Int) *big.Int {
		return new(big.Int).Add(new(big.Int).Mul(a, a), new(big.Int).Mul(b, b))
	}
	if norm(r2, t2).Cmp(norm(a2, b2)) < 0 {
		a2, b2 = r2, new(big.Int).Neg(t2)
	}
	glvA1, glvB1, glvA2, glvB2 = toU256(a1), toU256(b1), toU256(a2), toU256(b2)
	// c1 ≈ b2·k/r, c2 ≈ -b1·k/r, as k·g/2^256 with g = round(2^256·b/r).
	two256 := new(big.Int).Lsh(big.NewInt(1), 256)
	g1 := roundDiv(new(big.Int).Mul(b2, two256), r)
	g2 := roundDiv(new(big.Int).Mul(new(big.Int).Neg(b1), two256), r)
	glvG1Neg, glvG2Neg = g1.Sign() < 0, g2.Sign() < 0
	glvG1, glvG2 = toU256(new(big.Int).Abs(g1)), toU256(new(big.Int).Abs(g2))
}

func feOneTimes(v int64) fe {
	var b [32]byte
	big.NewInt(v).FillBytes(b[:])
	var x fe
	feFromBytes(&x, b[:])
	return x
}

func roundDiv(a, b *big.Int) *big.Int {
	q, m := new(big.Int).QuoRem(a, b, new(big.Int))
	if new(big.Int).Lsh(new(big.Int).Abs(m), 1).Cmp(b) >= 0 {
		if a.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	return q
}

// toU256 encodes v (|v| < 2^255) in two's complement.
func toU256(v *big.Int) u256 {
	m := new(big.Int).Set(v)
	if m.Sign() < 0 {
		m.Add(m, new(big.Int).Lsh(big.NewInt(1), 256))
	}
	var b [32]byte
	m.FillBytes(b[:])
	return u256(limbsFromBytes(b[:]))
}

// mulHigh returns ⌊x·y / 2^256⌋ for unsigned x, y.
func mulHigh(x, y *u256) u256 {
	var w wide
	mulWide(&w, (*fe)(x), (*fe)(y))
	return u256{w[4], w[5], w[6], w[7]}
}

// mulLow returns x·y mod 2^256 (valid for two's-complement operands).
func mulLow(x, y *u256) u256 {
	var w wide
	mulWide(&w, (*fe)(x), (*fe)(y))
	return u256{w[0], w[1], w[2], w[3]}
}

func subU256(x, y u256) u256 {
	var b uint64
	x[0], b = bits.Sub64(x[0], y[0], 0)
	x[1], b = bits.Sub64(x[1], y[1], b)
	x[2], b = bits.Sub64(x[2], y[2], b)
	x[3], _ = bits.Sub64(x[3], y[3], b)
	return x
}

func negU256(x u256) u256 { return subU256(u256{}, x) }

// absU256 returns |x| and whether x was negative.
func absU256(x u256) (u256, bool) {
	if x[3]>>63 == 1 {
		return negU256(x), true
	}
	return x, false
}

// glvSplit writes k (reduced mod r) as k1 + k2·λ with |k1|, |k2| < 2^130.
func glvSplit(k u256) (k1 u256, neg1 bool, k2 u256, neg2 bool) {
	// Reduce below r: k < 2^256 < 6r.
	for !lessU256(&k, &glvR) {
		k = subU256(k, glvR)
	}
	c1 := mulHigh(&k, &glvG1)
	if glvG1Neg {
		c1 = negU256(c1)
	}
	c2 := mulHigh(&k, &glvG2)
	if glvG2Neg {
		c2 = negU256(c2)
	}
	t1 := subU256(k, mulLow(&c1, &glvA1))
	t1 = subU256(t1, mulLow(&c2, &glvA2))
	t2 := negU256(mulLow(&c1, &glvB1))
	t2 = subU256(t2, mulLow(&c2, &glvB2))
	k1, neg1 = absU256(t1)
	k2, neg2 = absU256(t2)
	return
}

func lessU256(x, y *u256) bool {
	_, b := bits.Sub64(x[0], y[0], 0)
	_, b = bits.Sub64(x[1], y[1], b)
	_, b = bits.Sub64(x[2], y[2], b)
	_, b = bits.Sub64(x[3], y[3], b)
	return b != 0
}

// scalarMul sets p = k·q for a 256-bit big-endian scalar using the GLV
// split and a joint 4-bit fixed window over the two half-size scalars.
func (p *g1Jac) scalarMul(q *g1Jac, kb *[32]byte) {
	k := u256(limbsFromBytes(kb[:]))
	k1, neg1, k2, neg2 := glvSplit(k)

	var t1, t2 [16]g1Jac
	t1[0].setInfinity()
	t1[1] = *q
	if neg1 {
		t1[1].neg(q)
	}
	for i := 2; i < 16; i++ {
		if i%2 == 0 {
			t1[i].double(&t1[i/2])
		} else {
			t1[i].add(&t1[i-1], &t1[1])
		}
	}
	// φ(jQ) = (β·X, Y, Z); negate for a negative k2.
	for i := range 16 {
		t2[i] = t1[i]
		feMul(&t2[i].x, &t2[i].x, &glvBeta)
		if neg1 != neg2 {
			feNeg(&t2[i].y, &t2[i].y)
		}
	}
	n := max(bitLen(&k1), bitLen(&k2))
	var acc g1Jac
	acc.setInfinity()
	for w := (n+3)/4 - 1; w >= 0; w-- {
		if !acc.isInfinity() {
			acc.double(&acc)
			acc.double(&acc)
			acc.double(&acc)
			acc.double(&acc)
		}
		d1 := nibble(&k1, w)
		d2 := nibble(&k2, w)
		if d1 != 0 {
			acc.add(&acc, &t1[d1])
		}
		if d2 != 0 {
			acc.add(&acc, &t2[d2])
		}
	}
	*p = acc
}

func bitLen(x *u256) int {
	for i := 3; i >= 0; i-- {
		if x[i] != 0 {
			return 64*i + bits.Len64(x[i])
		}
	}
	return 0
}

func nibble(x *u256, w int) uint64 { return x[w/16] >> (4 * uint(w%16)) & 15 }

// scalarMulPlain is the textbook fixed-window method; tests use it as the
// reference for the GLV path.
func (p *g1Jac) scalarMulPlain(q *g1Jac, k *[32]byte) {
	var table [16]g1Jac
	table[0].setInfinity()
	table[1] = *q
	for i := 2; i < 16; i++ {
		if i%2 == 0 {
			table[i].double(&table[i/2])
		} else {
			table[i].add(&table[i-1], q)
		}
	}
	var acc g1Jac
	acc.setInfinity()
	for _, b := range k {
		for _, nib := range [2]byte{b >> 4, b & 15} {
			if !acc.isInfinity() {
				acc.double(&acc)
				acc.double(&acc)
				acc.double(&acc)
				acc.double(&acc)
			}
			if nib != 0 {
				acc.add(&acc, &table[nib])
			}
		}
	}
	*p = acc
}

// equal compares two Jacobian points projectively.
func (p *g1Jac) equal(q *g1Jac) bool {
	if p.isInfinity() || q.isInfinity() {
		return p.isInfinity() && q.isInfinity()
	}
	var z1z1, z2z2, a, b fe
	feSquare(&z1z1, &p.z)
	feSquare(&z2z2, &q.z)
	feMul(&a, &p.x, &z2z2)
	feMul(&b, &q.x, &z1z1)
	if a != b {
		return false
	}
	feMul(&z1z1, &z1z1, &p.z)
	feMul(&z2z2, &z2z2, &q.z)
	feMul(&a, &p.y, &z2z2)
	feMul(&b, &q.y, &z1z1)
	return a == b
}
