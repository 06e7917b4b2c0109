package crypto

import "math/bits"

// fe is an element of the secp256k1 base field GF(p), p = 2^256 − 2^32 − 977,
// as four little-endian 64-bit limbs. It exists because sender recovery is
// dominated by field multiplications, and 64-bit limbs with the hardware
// 64×64→128 multiply are several times faster in Go than the library's
// 26-bit limbs.
//
// Values are kept below 2^256 but not necessarily below p ("weakly
// reduced"): since 2^256 ≡ c (mod p) with c = 2^32 + 977, every overflow
// folds back by adding c. normalize brings a value into [0, p) when it must
// be compared or encoded.
type fe [4]uint64

// feC is 2^256 mod p.
const feC = 0x1000003d1

var (
	feP    = fe{0xfffffffefffffc2f, 0xffffffffffffffff, 0xffffffffffffffff, 0xffffffffffffffff}
	feOne  = fe{1}
	feZero = fe{}
)

// setBytes loads a 32-byte big-endian value, reporting whether it is below p.
func (z *fe) setBytes(b *[32]byte) bool {
	*z = fe(limbsFromBytes(b))
	t := *z
	return !t.normalize()
}

// bytes writes the canonical big-endian encoding.
func (z *fe) putBytes(b []byte) {
	t := *z
	t.normalize()
	_ = b[31]
	for i := 0; i < 4; i++ {
		v := t[3-i]
		b[8*i] = byte(v >> 56)
		b[8*i+1] = byte(v >> 48)
		b[8*i+2] = byte(v >> 40)
		b[8*i+3] = byte(v >> 32)
		b[8*i+4] = byte(v >> 24)
		b[8*i+5] = byte(v >> 16)
		b[8*i+6] = byte(v >> 8)
		b[8*i+7] = byte(v)
	}
}

// normalize reduces z into [0, p) and reports whether it changed. A weakly
// reduced value is below 2^256 < 2p, so one conditional subtraction of p
// suffices; z ≥ p exactly when z + c overflows 2^256.
func (z *fe) normalize() bool {
	t0, c := bits.Add64(z[0], feC, 0)
	t1, c := bits.Add64(z[1], 0, c)
	t2, c := bits.Add64(z[2], 0, c)
	t3, c := bits.Add64(z[3], 0, c)
	if c == 0 {
		return false
	}
	*z = fe{t0, t1, t2, t3}
	return true
}

func (z *fe) isZero() bool {
	t := *z
	t.normalize()
	return t[0]|t[1]|t[2]|t[3] == 0
}

func (z *fe) equal(x *fe) bool {
	a, b := *z, *x
	a.normalize()
	b.normalize()
	return (a[0]^b[0])|(a[1]^b[1])|(a[2]^b[2])|(a[3]^b[3]) == 0
}

func (z *fe) isOdd() bool {
	t := *z
	t.normalize()
	return t[0]&1 == 1
}

// add sets z = x + y.
func (z *fe) add(x, y *fe) {
	t0, c := bits.Add64(x[0], y[0], 0)
	t1, c := bits.Add64(x[1], y[1], c)
	t2, c := bits.Add64(x[2], y[2], c)
	t3, c := bits.Add64(x[3], y[3], c)
	// Fold the carry (2^256 ≡ c). A second carry is only possible when the
	// sum was just below 2^256 + c, after which the value is tiny.
	t0, c = bits.Add64(t0, feC&-c, 0)
	t1, c = bits.Add64(t1, 0, c)
	t2, c = bits.Add64(t2, 0, c)
	t3, c = bits.Add64(t3, 0, c)
	t0 += feC & -c
	*z = fe{t0, t1, t2, t3}
}

// sub sets z = x − y.
func (z *fe) sub(x, y *fe) {
	t0, b := bits.Sub64(x[0], y[0], 0)
	t1, b := bits.Sub64(x[1], y[1], b)
	t2, b := bits.Sub64(x[2], y[2], b)
	t3, b := bits.Sub64(x[3], y[3], b)
	// A borrow left t = x − y + 2^256 ≡ x − y + c: take c off, and once
	// more if that borrows too.
	t0, b = bits.Sub64(t0, feC&-b, 0)
	t1, b = bits.Sub64(t1, 0, b)
	t2, b = bits.Sub64(t2, 0, b)
	t3, b = bits.Sub64(t3, 0, b)
	t0 -= feC & -b
	*z = fe{t0, t1, t2, t3}
}

// mulSmall sets z = k·x for a small k (below 2^32).
func (z *fe) mulSmall(x *fe, k uint64) {
	h0, l0 := bits.Mul64(x[0], k)
	h1, l1 := bits.Mul64(x[1], k)
	h2, l2 := bits.Mul64(x[2], k)
	h3, l3 := bits.Mul64(x[3], k)
	t1, c := bits.Add64(l1, h0, 0)
	t2, c := bits.Add64(l2, h1, c)
	t3, c := bits.Add64(l3, h2, c)
	t4, _ := bits.Add64(h3, 0, c)
	// t4 < 2^32: fold t4·c (< 2^65) into the low limbs.
	h, l := bits.Mul64(t4, feC)
	t0, c := bits.Add64(l0, l, 0)
	t1, c = bits.Add64(t1, h, c)
	t2, c = bits.Add64(t2, 0, c)
	t3, c = bits.Add64(t3, 0, c)
	// A carry leaves a value below 2^65, so t1 cannot overflow.
	t0, c = bits.Add64(t0, feC&-c, 0)
	t1 += c
	*z = fe{t0, t1, t2, t3}
}

// half sets z = x/2: x itself if even, else (x + p)/2, with the 257th bit
// of x + p shifted back in.
func (z *fe) half(x *fe) {
	m := -(x[0] & 1)
	t0, c := bits.Add64(x[0], feP[0]&m, 0)
	t1, c := bits.Add64(x[1], feP[1]&m, c)
	t2, c := bits.Add64(x[2], feP[2]&m, c)
	t3, c := bits.Add64(x[3], feP[3]&m, c)
	*z = fe{t0>>1 | t1<<63, t1>>1 | t2<<63, t2>>1 | t3<<63, t3>>1 | c<<63}
}

// neg sets z = −x.
func (z *fe) neg(x *fe) { z.sub(&feZero, x) }

// The multiplication code keeps every carry chain as a run of consecutive
// bits.Add64 calls on one carry, which the compiler turns into ADD/ADC
// sequences; mixing carries into other arithmetic forces it to spill the
// flags into registers and costs about as much as the multiplies.

// mulGeneric sets z = x·y.
func (z *fe) mulGeneric(x, y *fe) {
	var c uint64
	x0, x1, x2, x3 := x[0], x[1], x[2], x[3]
	y0, y1, y2, y3 := y[0], y[1], y[2], y[3]

	// Row 0: t = x0·y.
	h0, t0 := bits.Mul64(x0, y0)
	h1, l1 := bits.Mul64(x0, y1)
	h2, l2 := bits.Mul64(x0, y2)
	h3, l3 := bits.Mul64(x0, y3)
	t1, c := bits.Add64(l1, h0, 0)
	t2, c := bits.Add64(l2, h1, c)
	t3, c := bits.Add64(l3, h2, c)
	t4, _ := bits.Add64(h3, 0, c)

	// Row 1: t += x1·y << 64.
	h0, l0 := bits.Mul64(x1, y0)
	h1, l1 = bits.Mul64(x1, y1)
	h2, l2 = bits.Mul64(x1, y2)
	h3, l3 = bits.Mul64(x1, y3)
	a1, c := bits.Add64(l1, h0, 0)
	a2, c := bits.Add64(l2, h1, c)
	a3, c := bits.Add64(l3, h2, c)
	a4, _ := bits.Add64(h3, 0, c)
	t1, c = bits.Add64(t1, l0, 0)
	t2, c = bits.Add64(t2, a1, c)
	t3, c = bits.Add64(t3, a2, c)
	t4, c = bits.Add64(t4, a3, c)
	t5, _ := bits.Add64(a4, 0, c)

	// Row 2.
	h0, l0 = bits.Mul64(x2, y0)
	h1, l1 = bits.Mul64(x2, y1)
	h2, l2 = bits.Mul64(x2, y2)
	h3, l3 = bits.Mul64(x2, y3)
	a1, c = bits.Add64(l1, h0, 0)
	a2, c = bits.Add64(l2, h1, c)
	a3, c = bits.Add64(l3, h2, c)
	a4, _ = bits.Add64(h3, 0, c)
	t2, c = bits.Add64(t2, l0, 0)
	t3, c = bits.Add64(t3, a1, c)
	t4, c = bits.Add64(t4, a2, c)
	t5, c = bits.Add64(t5, a3, c)
	t6, _ := bits.Add64(a4, 0, c)

	// Row 3.
	h0, l0 = bits.Mul64(x3, y0)
	h1, l1 = bits.Mul64(x3, y1)
	h2, l2 = bits.Mul64(x3, y2)
	h3, l3 = bits.Mul64(x3, y3)
	a1, c = bits.Add64(l1, h0, 0)
	a2, c = bits.Add64(l2, h1, c)
	a3, c = bits.Add64(l3, h2, c)
	a4, _ = bits.Add64(h3, 0, c)
	t3, c = bits.Add64(t3, l0, 0)
	t4, c = bits.Add64(t4, a1, c)
	t5, c = bits.Add64(t5, a2, c)
	t6, c = bits.Add64(t6, a3, c)
	t7, _ := bits.Add64(a4, 0, c)

	z.reduce(t0, t1, t2, t3, t4, t5, t6, t7)
}

// sqrGeneric sets z = x². The six cross products are computed once and
// doubled.
func (z *fe) sqrGeneric(x *fe) {
	var c uint64
	x0, x1, x2, x3 := x[0], x[1], x[2], x[3]

	// Cross products x_i·x_j (i < j) into t1..t6.
	h1, t1 := bits.Mul64(x0, x1)
	h2, l2 := bits.Mul64(x0, x2)
	h3, l3 := bits.Mul64(x0, x3)
	t2, c := bits.Add64(l2, h1, 0)
	t3, c := bits.Add64(l3, h2, c)
	t4, _ := bits.Add64(h3, 0, c)

	h2, l2 = bits.Mul64(x1, x2)
	h3, l3 = bits.Mul64(x1, x3)
	a4, c := bits.Add64(l3, h2, 0)
	a5, _ := bits.Add64(h3, 0, c)
	t3, c = bits.Add64(t3, l2, 0)
	t4, c = bits.Add64(t4, a4, c)
	t5, _ := bits.Add64(a5, 0, c)

	h3, l3 = bits.Mul64(x2, x3)
	t5, c = bits.Add64(t5, l3, 0)
	t6, _ := bits.Add64(h3, 0, c)

	// Double them.
	t7 := t6 >> 63
	t6 = t6<<1 | t5>>63
	t5 = t5<<1 | t4>>63
	t4 = t4<<1 | t3>>63
	t3 = t3<<1 | t2>>63
	t2 = t2<<1 | t1>>63
	t1 <<= 1

	// Add the squares x_i² on the diagonal.
	d0h, t0 := bits.Mul64(x0, x0)
	d1h, d1l := bits.Mul64(x1, x1)
	d2h, d2l := bits.Mul64(x2, x2)
	d3h, d3l := bits.Mul64(x3, x3)
	t1, c = bits.Add64(t1, d0h, 0)
	t2, c = bits.Add64(t2, d1l, c)
	t3, c = bits.Add64(t3, d1h, c)
	t4, c = bits.Add64(t4, d2l, c)
	t5, c = bits.Add64(t5, d2h, c)
	t6, c = bits.Add64(t6, d3l, c)
	t7, _ = bits.Add64(t7, d3h, c)

	z.reduce(t0, t1, t2, t3, t4, t5, t6, t7)
}

// reduce sets z to the 512-bit value t mod p (weakly), folding the high
// half with 2^256 ≡ c.
func (z *fe) reduce(t0, t1, t2, t3, t4, t5, t6, t7 uint64) {
	var c uint64
	// t_hi·c is below 2^290: five limbs.
	h0, l0 := bits.Mul64(t4, feC)
	h1, l1 := bits.Mul64(t5, feC)
	h2, l2 := bits.Mul64(t6, feC)
	h3, l3 := bits.Mul64(t7, feC)
	a1, c := bits.Add64(l1, h0, 0)
	a2, c := bits.Add64(l2, h1, c)
	a3, c := bits.Add64(l3, h2, c)
	a4, _ := bits.Add64(h3, 0, c)
	r0, c := bits.Add64(t0, l0, 0)
	r1, c := bits.Add64(t1, a1, c)
	r2, c := bits.Add64(t2, a2, c)
	r3, c := bits.Add64(t3, a3, c)
	r4, _ := bits.Add64(a4, 0, c)

	// Fold r4 (below 2^35) the same way; r4·c fits in 128 bits.
	h, l := bits.Mul64(r4, feC)
	r0, c = bits.Add64(r0, l, 0)
	r1, c = bits.Add64(r1, h, c)
	r2, c = bits.Add64(r2, 0, c)
	r3, c = bits.Add64(r3, 0, c)
	// A last carry leaves a value below 2^67 (r1 < 8), so folding it once
	// more cannot carry past r1.
	r0, c = bits.Add64(r0, feC&-c, 0)
	r1 += c
	*z = fe{r0, r1, r2, r3}
}

// sqrN sets z = x^(2^n).
func (z *fe) sqrN(x *fe, n int) {
	z.sqr(x)
	for i := 1; i < n; i++ {
		z.sqr(z)
	}
}

// powChain returns x^(2^223 − 1) and x^(2^22 − 1) and x^(2^2 − 1), the
// building blocks shared by inversion and square root: both exponents start
// with 223 one bits, a zero and 22 ones.
func powChain(x *fe) (x223, x22, x2 fe) {
	var x3, x6, x9, x11, x44, x88, x176, x220, t fe
	x2.sqr(x)
	x2.mul(&x2, x)
	x3.sqr(&x2)
	x3.mul(&x3, x)
	t.sqrN(&x3, 3)
	x6.mul(&t, &x3)
	t.sqrN(&x6, 3)
	x9.mul(&t, &x3)
	t.sqrN(&x9, 2)
	x11.mul(&t, &x2)
	t.sqrN(&x11, 11)
	x22.mul(&t, &x11)
	t.sqrN(&x22, 22)
	x44.mul(&t, &x22)
	t.sqrN(&x44, 44)
	x88.mul(&t, &x44)
	t.sqrN(&x88, 88)
	x176.mul(&t, &x88)
	t.sqrN(&x176, 44)
	x220.mul(&t, &x44)
	t.sqrN(&x220, 3)
	x223.mul(&t, &x3)
	return x223, x22, x2
}

// inv sets z = x⁻¹ = x^(p−2) (0 maps to 0). p − 2 in binary is 223 ones,
// 0, 22 ones, 0000101101.
func (z *fe) inv(x *fe) {
	x223, x22, x2 := powChain(x)
	var t fe
	t.sqrN(&x223, 23)
	t.mul(&t, &x22)
	t.sqrN(&t, 5)
	t.mul(&t, x)
	t.sqrN(&t, 3)
	t.mul(&t, &x2)
	t.sqrN(&t, 2)
	z.mul(&t, x)
}

// sqrt sets z to a square root of x and reports whether x is a square.
// Since p ≡ 3 (mod 4) the root is x^((p+1)/4): 223 ones, 0, 22 ones,
// 0000, 11, 00 in binary.
func (z *fe) sqrt(x *fe) bool {
	x223, x22, x2 := powChain(x)
	var t, chk fe
	t.sqrN(&x223, 23)
	t.mul(&t, &x22)
	t.sqrN(&t, 6)
	t.mul(&t, &x2)
	t.sqrN(&t, 2)
	chk.sqr(&t)
	ok := chk.equal(x)
	*z = t
	return ok
}
