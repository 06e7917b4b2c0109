package crypto

import (
	"math/bits"
	"strings"
	"sync"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// Public-key recovery computes Q = r⁻¹·(s·R − e·G). The library's generic
// path does this as two separate scalar multiplications on 26-bit limbs;
// sender recovery is the hottest operation a node does on incoming
// transactions, so here it has its own arithmetic (field.go, point.go,
// modinv.go) and is done as a single interleaved (Strauss–Shamir)
// multiplication:
//
//   - both scalars are split with the GLV endomorphism φ(x, y) = (β·x, y),
//     which multiplies a point by λ, into four ~128-bit scalars that share
//     one run of ~128 doublings;
//   - the variable point R uses a width-5 wNAF with a table of its odd
//     multiples built per call and brought to "effective affine" form;
//   - G uses a 12-bit wNAF with affine tables of odd multiples built once;
//   - r⁻¹ and the final Z⁻¹ use variable-time safegcd.
//
// Everything here is variable-time, which is fine: recovery only handles
// public data (signatures and digests). Signing keeps the library's
// constant-time code.

const (
	wnafVar  = 5  // window for the per-signature point R
	wnafBase = 12 // window for the fixed generator G (2 × 64 KiB of tables)

	varTableSize  = 1 << (wnafVar - 2)
	baseTableSize = 1 << (wnafBase - 2)

	// A wNAF of a value below 2^k has at most k+1 digits. Split halves are
	// about 129 bits; the bound covers any five-limb input below 2^319 so
	// that no input could index out of range.
	maxWNAF = 320
)

var (
	// λ: φ(P) = λ·P for every point P on the curve.
	endoLambda = scalarFromHex("5363ad4cc05c30e0a5261c028812645a122e22ea20816678df02967c1b23bd72")
	// β: the cube root of unity in the field that realises φ on x.
	feBeta = feFromHex("7ae96a2b657c07106e64479eac3434e99cf0497512f58995c1396c28719501ee")

	// Short lattice basis {(a1, b1), (a2, b2)} of the kernel of
	// (x, y) ↦ x + y·λ mod N, with b1 < 0 and b2 = a1, and the rounding
	// multipliers g1 = round(2^384·b2/N), g2 = round(2^384·(−b1)/N) used to
	// find the closest lattice vector without a division.
	endoA1    = limbsFromHex("3086d221a7d46bcde86c90e49284eb15")
	endoNegB1 = limbsFromHex("e4437ed6010e88286f547fa90abfe4c3")
	endoA2    = limbsFromHex("0114ca50f7a8e2f3f657c1108d9d44cfd8")
	endoG1    = limbsFromHex("3086d221a7d46bcde86c90e49284eb153daa8a1471e8ca7fe893209a45dbb031")
	endoG2    = limbsFromHex("e4437ed6010e88286f547fa90abfe4c4221208ac9df506c61571b4ae8ac47f71")
)

// baseTables holds affine odd multiples 1G, 3G, 5G, … and the same points
// mapped through φ. Built on first use: it costs a few milliseconds.
var (
	baseTablesOnce sync.Once
	baseTableG     *[baseTableSize]aff
	baseTableLG    *[baseTableSize]aff
)

func buildBaseTables() {
	g := aff{x: feFromHex("79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798"),
		y: feFromHex("483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8")}

	// Odd multiples in Jacobian form, then all made affine with a single
	// inversion (Montgomery's trick).
	pts := make([]jac, baseTableSize)
	pts[0] = jac{x: g.x, y: g.y, z: feOne}
	var g2 jac
	g2.double(&pts[0])
	var g2z jacZ
	g2z.set(&g2)
	for i := 1; i < baseTableSize; i++ {
		pts[i].addZ(&pts[i-1], &g2z, false)
	}
	prefix := make([]fe, baseTableSize)
	prefix[0] = pts[0].z
	for i := 1; i < baseTableSize; i++ {
		prefix[i].mul(&prefix[i-1], &pts[i].z)
	}
	var inv fe
	inv.inv(&prefix[baseTableSize-1])
	tg := new([baseTableSize]aff)
	tl := new([baseTableSize]aff)
	for i := baseTableSize - 1; i >= 0; i-- {
		// inv = (z_0 … z_i)⁻¹; z_i⁻¹ = inv · (z_0 … z_{i−1}).
		var zi, zi2 fe
		if i > 0 {
			zi.mul(&inv, &prefix[i-1])
			inv.mul(&inv, &pts[i].z)
		} else {
			zi = inv
		}
		zi2.sqr(&zi)
		tg[i].x.mul(&pts[i].x, &zi2)
		tg[i].y.mul(&pts[i].y, &zi2)
		tg[i].y.mul(&tg[i].y, &zi)
		tg[i].x.normalize()
		tg[i].y.normalize()
		tl[i].x.mul(&tg[i].x, &feBeta)
		tl[i].x.normalize()
		tl[i].y = tg[i].y
	}
	baseTableG, baseTableLG = tg, tl
}

func feFromHex(s string) fe {
	b := mustHex32(s)
	var f fe
	if !f.setBytes(&b) {
		panic("crypto: constant overflows the field " + s)
	}
	return f
}

// feSeven is the curve constant b.
var feSeven = fe{7}

// recoverPoint returns the public key that produced sig (R || S || V,
// V in {0,1}) over digest, as normalized affine coordinates.
func recoverPoint(digest *[32]byte, sig []byte) (x, y fe, err error) {
	if len(sig) != SignatureLength {
		return x, y, ErrInvalidSignature
	}
	v := sig[64]
	if v > 1 {
		return x, y, ErrInvalidRecoveryID
	}
	var r, s secp256k1.ModNScalar
	if overflow := r.SetByteSlice(sig[:32]); overflow || r.IsZero() {
		return x, y, ErrInvalidSignature
	}
	if overflow := s.SetByteSlice(sig[32:64]); overflow || s.IsZero() {
		return x, y, ErrInvalidSignature
	}

	// R = (r, y) with y's parity given by v. r < N < P, so r is already a
	// valid field element (v ∈ {0,1} never asks for r + N).
	var R aff
	R.x.setBytes((*[32]byte)(sig[:32]))
	var rhs fe
	rhs.sqr(&R.x)
	rhs.mul(&rhs, &R.x)
	rhs.add(&rhs, &feSeven)
	if !R.y.sqrt(&rhs) {
		return x, y, ErrInvalidSignature
	}
	R.y.normalize()
	if R.y.isOdd() != (v == 1) {
		R.y.neg(&R.y)
	}

	var e secp256k1.ModNScalar
	e.SetBytes(digest)
	var w secp256k1.ModNScalar
	scalarInverse(&w, &r)
	var u1, u2 secp256k1.ModNScalar
	u1.Mul2(&e, &w).Negate()
	u2.Mul2(&s, &w)

	var q jac
	doubleMul(&u1, &u2, &R, &q)
	if q.inf {
		return x, y, ErrInvalidSignature
	}
	x, y = q.toAffine()
	return x, y, nil
}

// doubleMul sets q = a·G + b·P.
//
// The odd multiples of P are brought to one common Z so that they can be
// used as affine points of an isomorphic curve ("effective affine", the
// trick libsecp256k1 uses): (x, y) ↦ (x·Z², y·Z³) maps y² = x³ + 7 onto
// y² = x³ + 7·Z⁶, and neither the doubling nor the addition formulas involve
// the curve constant. The whole loop runs on that curve, P's table entries
// take the cheaper mixed addition, G's affine entries are added with the
// known Z, and the result is mapped back by multiplying its Z by Z.
func doubleMul(a, b *secp256k1.ModNScalar, p *aff, q *jac) {
	baseTablesOnce.Do(buildBaseTables)

	var tp, tl [varTableSize]aff
	var zt fe
	oddMultiplesGlobalZ(p, &tp, &zt)
	for i := range tp {
		tl[i].x.mul(&tp[i].x, &feBeta)
		tl[i].y = tp[i].y
	}
	var zt2, zt3 fe
	zt2.sqr(&zt)
	zt3.mul(&zt2, &zt)

	a1, a2 := splitScalar(a)
	b1, b2 := splitScalar(b)
	var na1, na2, nb1, nb2 [maxWNAF]int16
	la1, sa1 := wnaf(&na1, &a1.mag, wnafBase), a1.neg
	la2, sa2 := wnaf(&na2, &a2.mag, wnafBase), a2.neg
	lb1, sb1 := wnaf(&nb1, &b1.mag, wnafVar), b1.neg
	lb2, sb2 := wnaf(&nb2, &b2.mag, wnafVar), b2.neg
	n := max(la1, la2, lb1, lb2)

	*q = jac{inf: true}
	for i := n - 1; i >= 0; i-- {
		q.double(q)
		if d := nb1[i]; d != 0 {
			q.addAffine(q, &tp[abs16(d)>>1], (d < 0) != sb1)
		}
		if d := nb2[i]; d != 0 {
			q.addAffine(q, &tl[abs16(d)>>1], (d < 0) != sb2)
		}
		if d := na1[i]; d != 0 {
			q.addScaled(q, &baseTableG[abs16(d)>>1], (d < 0) != sa1, &zt, &zt2, &zt3)
		}
		if d := na2[i]; d != 0 {
			q.addScaled(q, &baseTableLG[abs16(d)>>1], (d < 0) != sa2, &zt, &zt2, &zt3)
		}
	}
	if !q.inf {
		q.z.mul(&q.z, &zt)
	}
}

// oddMultiplesGlobalZ fills t with P, 3P, …, 15P expressed as affine points
// of the curve isomorphic by the returned scale zt (see doubleMul).
//
// With D = 2P = (Xd, Yd, Zd), P is first mapped to the curve where D is
// affine; there each step T_i = T_{i−1} + D is a mixed addition whose Z is
// Z_{i−1}·H_i. Walking back from the last entry, multiplying each by the
// product of the later H's (squared for x, cubed for y), gives them all
// the last entry's Z. P has prime order N, so none of these additions can
// meet the doubling or infinity cases.
func oddMultiplesGlobalZ(p *aff, t *[varTableSize]aff, zt *fe) {
	var d jac
	d.double(&jac{x: p.x, y: p.y, z: feOne})
	dAff := aff{x: d.x, y: d.y}
	var zd2, zd3 fe
	zd2.sqr(&d.z)
	zd3.mul(&zd2, &d.z)

	var hs [varTableSize]fe
	var zs [varTableSize]fe // Z of each entry on D's curve
	cur := jac{z: feOne}
	cur.x.mul(&p.x, &zd2)
	cur.y.mul(&p.y, &zd3)
	t[0] = aff{x: cur.x, y: cur.y}
	zs[0] = feOne
	for i := 1; i < varTableSize; i++ {
		hs[i] = cur.addAffineNoSpecial(&cur, &dAff)
		t[i] = aff{x: cur.x, y: cur.y}
		zs[i] = cur.z
	}
	// Entry i needs the factor f = H_{i+1}·…·H_last.
	f := feOne
	for i := varTableSize - 2; i >= 0; i-- {
		f.mul(&f, &hs[i+1])
		var f2, f3 fe
		f2.sqr(&f)
		f3.mul(&f2, &f)
		t[i].x.mul(&t[i].x, &f2)
		t[i].y.mul(&t[i].y, &f3)
	}
	zt.mul(&d.z, &zs[varTableSize-1])
}

func abs16(d int16) int16 {
	if d < 0 {
		return -d
	}
	return d
}

// splitHalf is one half of a split scalar as a sign and a magnitude.
type splitHalf struct {
	mag [5]uint64
	neg bool
}

// splitScalar finds k1, k2 with k ≡ k1 + k2·λ (mod N) and |k1|, |k2| about
// 2^128, using the short lattice basis: with c1 = round(b2·k/N) and
// c2 = round(−b1·k/N),
//
//	k1 = k − c1·a1 − c2·a2,   k2 = c1·(−b1) − c2·a1   (b2 = a1).
//
// Every product here is below 2^257, so the whole split is plain signed
// integer arithmetic on five limbs, without reductions mod N.
func splitScalar(k *secp256k1.ModNScalar) (k1, k2 splitHalf) {
	kb := k.Bytes()
	kl := limbsFromBytes(&kb)
	c1 := mulShift384(&kl, &endoG1)
	c2 := mulShift384(&kl, &endoG2)
	c1a1 := mulSmallLimbs(&c1, &endoA1)
	c2a2 := mulSmallLimbs(&c2, &endoA2)
	c1b1 := mulSmallLimbs(&c1, &endoNegB1)
	c2a1 := mulSmallLimbs(&c2, &endoA1)
	t := [5]uint64{kl[0], kl[1], kl[2], kl[3], 0}
	t = sub320(sub320(t, c1a1), c2a2)
	k1 = toHalf(t)
	k2 = toHalf(sub320(c1b1, c2a1))
	return k1, k2
}

// mulSmallLimbs multiplies two values below 2^192 (the rounding quotients
// and basis vectors are at most 129 bits) into five limbs.
func mulSmallLimbs(a, b *[4]uint64) [5]uint64 {
	var t [6]uint64
	for i := 0; i < 3; i++ {
		var carry uint64
		for j := 0; j < 3; j++ {
			hi, lo := bits.Mul64(a[i], b[j])
			var c uint64
			lo, c = bits.Add64(lo, t[i+j], 0)
			hi += c
			lo, c = bits.Add64(lo, carry, 0)
			hi += c
			t[i+j] = lo
			carry = hi
		}
		t[i+3] = carry
	}
	return [5]uint64{t[0], t[1], t[2], t[3], t[4]}
}

// sub320 returns a − b in 320-bit two's complement.
func sub320(a, b [5]uint64) [5]uint64 {
	var c uint64
	a[0], c = bits.Sub64(a[0], b[0], 0)
	a[1], c = bits.Sub64(a[1], b[1], c)
	a[2], c = bits.Sub64(a[2], b[2], c)
	a[3], c = bits.Sub64(a[3], b[3], c)
	a[4], _ = bits.Sub64(a[4], b[4], c)
	return a
}

// toHalf splits a 320-bit two's complement value into sign and magnitude.
func toHalf(x [5]uint64) splitHalf {
	if x[4]>>63 == 0 {
		return splitHalf{mag: x}
	}
	var c uint64
	for i := range x {
		x[i], c = bits.Sub64(0, x[i], c)
	}
	return splitHalf{mag: x, neg: true}
}

// mulShift384 returns round(a·b / 2^384) for 256-bit a, b (little-endian
// 64-bit limbs).
func mulShift384(a, b *[4]uint64) [4]uint64 {
	var t [8]uint64
	for i := 0; i < 4; i++ {
		var carry uint64
		for j := 0; j < 4; j++ {
			hi, lo := bits.Mul64(a[i], b[j])
			var c uint64
			lo, c = bits.Add64(lo, t[i+j], 0)
			hi += c
			lo, c = bits.Add64(lo, carry, 0)
			hi += c
			t[i+j] = lo
			carry = hi
		}
		t[i+4] = carry
	}
	round := t[5] >> 63
	var out [4]uint64
	var c uint64
	out[0], c = bits.Add64(t[6], round, 0)
	out[1], _ = bits.Add64(t[7], 0, c)
	return out
}

// wnaf writes the width-w non-adjacent form of the non-negative x (least
// significant digit first, x below 2^319) into out, which must be zeroed,
// and returns its length (one past the highest nonzero digit).
func wnaf(out *[maxWNAF]int16, xp *[5]uint64, w uint) (length int) {
	x := *xp
	window := uint64(1) << w
	half := int64(window >> 1)
	n := 0
	for x[0]|x[1]|x[2]|x[3]|x[4] != 0 {
		if x[0]&1 == 0 {
			// Skip a run of zero digits at once.
			s := uint(bits.TrailingZeros64(x[0]))
			if x[0] == 0 {
				s = 63
			}
			shiftRight5(&x, s)
			n += int(s)
			continue
		}
		d := int64(x[0] & (window - 1))
		if d >= half {
			d -= int64(window)
		}
		out[n] = int16(d)
		length = n + 1
		// x −= d leaves the low w bits zero, so the next w−1 digits are 0.
		var c uint64
		if d > 0 {
			x[0], c = bits.Sub64(x[0], uint64(d), 0)
			x[1], c = bits.Sub64(x[1], 0, c)
			x[2], c = bits.Sub64(x[2], 0, c)
			x[3], c = bits.Sub64(x[3], 0, c)
			x[4] -= c
		} else {
			x[0], c = bits.Add64(x[0], uint64(-d), 0)
			x[1], c = bits.Add64(x[1], 0, c)
			x[2], c = bits.Add64(x[2], 0, c)
			x[3], c = bits.Add64(x[3], 0, c)
			x[4] += c
		}
		shiftRight5(&x, w)
		n += int(w)
	}
	return length
}

// shiftRight5 shifts a 320-bit value right by s, 0 < s < 64.
func shiftRight5(x *[5]uint64, s uint) {
	x[0] = x[0]>>s | x[1]<<(64-s)
	x[1] = x[1]>>s | x[2]<<(64-s)
	x[2] = x[2]>>s | x[3]<<(64-s)
	x[3] = x[3]>>s | x[4]<<(64-s)
	x[4] >>= s
}

func limbsFromBytes(b *[32]byte) (l [4]uint64) {
	for i := 0; i < 4; i++ {
		off := 24 - 8*i
		l[i] = uint64(b[off])<<56 | uint64(b[off+1])<<48 | uint64(b[off+2])<<40 | uint64(b[off+3])<<32 |
			uint64(b[off+4])<<24 | uint64(b[off+5])<<16 | uint64(b[off+6])<<8 | uint64(b[off+7])
	}
	return l
}

func bytesFromLimbs(l *[4]uint64) *[32]byte {
	var b [32]byte
	for i := 0; i < 4; i++ {
		off := 24 - 8*i
		v := l[i]
		for j := 7; j >= 0; j-- {
			b[off+j] = byte(v)
			v >>= 8
		}
	}
	return &b
}

func limbsFromHex(s string) [4]uint64 {
	b := mustHex32(strings.Repeat("0", 64-len(s)) + s)
	return limbsFromBytes(&b)
}

func scalarFromHex(s string) *secp256k1.ModNScalar {
	b, err := decodeHex(s)
	if err != nil || len(b) > 32 {
		panic("crypto: bad constant " + s)
	}
	var k secp256k1.ModNScalar
	if k.SetByteSlice(b) {
		panic("crypto: constant overflows the order " + s)
	}
	return &k
}

// scalarInverse sets z = x⁻¹ mod N (x ≠ 0).
func scalarInverse(z, x *secp256k1.ModNScalar) {
	b := x.Bytes()
	l := modN.inverse(limbsFromBytes(&b))
	z.SetBytes(bytesFromLimbs(&l))
}
