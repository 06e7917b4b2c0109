package crypto

import "math/bits"

// Variable-time modular inversion by Bernstein–Yang "divsteps" (the safegcd
// algorithm), used for the two inversions of sender recovery: r⁻¹ mod N and
// the final Z⁻¹ mod p. It needs about ten batches of 62 cheap word-sized
// steps instead of the ~270 dependent field operations of Fermat
// inversion, and it allocates nothing (unlike math/big's ModInverse).
// Variable time is fine: recovery handles public data only.
//
// State: f, g start as (M, x) and d, e as (0, 1), with the invariants
// f ≡ d·x and g ≡ e·x (mod M). Each batch finds, from the low 64 bits of f
// and g alone, the matrix T of 62 divsteps (entries scaled by 2^62) and
// applies (f, g) ← T·(f, g)/2^62 exactly and (d, e) ← T·(d, e)/2^62 mod M.
// When g reaches 0, f = ±gcd = ±1 and x⁻¹ = ±d.

// modulus describes M for the inversion: its limbs and −M⁻¹ mod 2^64.
type modulus struct {
	m    [4]uint64
	mneg uint64 // −M⁻¹ mod 2^64
}

func newModulus(m [4]uint64) *modulus {
	// Newton iteration for the inverse of an odd number mod 2^64: each step
	// doubles the number of correct low bits (m·m ≡ 1 mod 8 to start).
	inv := m[0]
	for i := 0; i < 5; i++ {
		inv *= 2 - m[0]*inv
	}
	return &modulus{m: m, mneg: -inv}
}

var (
	modP = newModulus(feP)
	modN = newModulus(limbsFromHex("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141"))
)

// s320 is a signed 320-bit integer in two's complement.
type s320 [5]uint64

func (x *s320) isNeg() bool { return x[4]>>63 == 1 }

// divsteps62 runs 62 divsteps on the low bits of f and g and returns the
// new delta and the transition matrix [u v; q r] (scaled by 2^62).
func divsteps62(delta int64, f, g uint64) (int64, int64, int64, int64, int64) {
	u, v, q, r := int64(1), int64(0), int64(0), int64(1)
	for i := 0; i < 62; {
		if g&1 == 0 {
			// A run of even g: each step halves g and doubles f's row.
			z := bits.TrailingZeros64(g)
			if z > 62-i {
				z = 62 - i
			}
			g >>= uint(z)
			u <<= uint(z)
			v <<= uint(z)
			delta += int64(z)
			i += z
			continue
		}
		if delta > 0 {
			delta = 1 - delta
			f, g = g, (g-f)>>1
			u, v, q, r = 2*q, 2*r, q-u, r-v
		} else {
			delta = 1 + delta
			g = (g + f) >> 1
			u, v, q, r = 2*u, 2*v, q+u, r+v
		}
		i++
	}
	return delta, u, v, q, r
}

// linComb returns u·f + v·g as a signed 384-bit value (six limbs, two's
// complement): unsigned products of the sign-extended inputs, then the
// 2^64·x corrections for negative multipliers.
func linComb(f, g *s320, u, v int64) [6]uint64 {
	uu, vv := uint64(u), uint64(v)
	var c, c2 uint64

	h0, l0 := bits.Mul64(f[0], uu)
	h1, l1 := bits.Mul64(f[1], uu)
	h2, l2 := bits.Mul64(f[2], uu)
	h3, l3 := bits.Mul64(f[3], uu)
	h4, l4 := bits.Mul64(f[4], uu)
	a0 := l0
	a1, c := bits.Add64(l1, h0, 0)
	a2, c := bits.Add64(l2, h1, c)
	a3, c := bits.Add64(l3, h2, c)
	a4, c := bits.Add64(l4, h3, c)
	a5 := h4 + c + -(f[4]>>63)*uu

	h0, l0 = bits.Mul64(g[0], vv)
	h1, l1 = bits.Mul64(g[1], vv)
	h2, l2 = bits.Mul64(g[2], vv)
	h3, l3 = bits.Mul64(g[3], vv)
	h4, l4 = bits.Mul64(g[4], vv)
	b1, c := bits.Add64(l1, h0, 0)
	b2, c := bits.Add64(l2, h1, c)
	b3, c := bits.Add64(l3, h2, c)
	b4, c := bits.Add64(l4, h3, c)
	b5 := h4 + c + -(g[4]>>63)*vv

	a0, c2 = bits.Add64(a0, l0, 0)
	a1, c2 = bits.Add64(a1, b1, c2)
	a2, c2 = bits.Add64(a2, b2, c2)
	a3, c2 = bits.Add64(a3, b3, c2)
	a4, c2 = bits.Add64(a4, b4, c2)
	a5, _ = bits.Add64(a5, b5, c2)

	if u < 0 {
		a1, c = bits.Sub64(a1, f[0], 0)
		a2, c = bits.Sub64(a2, f[1], c)
		a3, c = bits.Sub64(a3, f[2], c)
		a4, c = bits.Sub64(a4, f[3], c)
		a5, _ = bits.Sub64(a5, f[4], c)
	}
	if v < 0 {
		a1, c = bits.Sub64(a1, g[0], 0)
		a2, c = bits.Sub64(a2, g[1], c)
		a3, c = bits.Sub64(a3, g[2], c)
		a4, c = bits.Sub64(a4, g[3], c)
		a5, _ = bits.Sub64(a5, g[4], c)
	}
	return [6]uint64{a0, a1, a2, a3, a4, a5}
}

func add384(a, b [6]uint64) [6]uint64 {
	var c uint64
	a[0], c = bits.Add64(a[0], b[0], 0)
	a[1], c = bits.Add64(a[1], b[1], c)
	a[2], c = bits.Add64(a[2], b[2], c)
	a[3], c = bits.Add64(a[3], b[3], c)
	a[4], c = bits.Add64(a[4], b[4], c)
	a[5], _ = bits.Add64(a[5], b[5], c)
	return a
}

// shr62 returns a >> 62 (arithmetic); the caller guarantees the low 62 bits
// are zero and the result fits in 320 bits.
func shr62(a [6]uint64) s320 {
	var out s320
	for i := 0; i < 5; i++ {
		out[i] = a[i]>>62 | a[i+1]<<2
	}
	return out
}

// applyFG sets (f, g) ← T·(f, g) / 2^62 (exact).
func applyFG(f, g *s320, u, v, q, r int64) {
	nf := linComb(f, g, u, v)
	ng := linComb(f, g, q, r)
	*f, *g = shr62(nf), shr62(ng)
}

// applyDE sets (d, e) ← T·(d, e) / 2^62 mod M, adding the multiple of M
// that makes each numerator divisible by 2^62.
func (m *modulus) applyDE(d, e *s320, u, v, q, r int64) {
	nd := linComb(d, e, u, v)
	ne := linComb(d, e, q, r)
	nd = add384(nd, m.mulSmall(nd[0]*m.mneg&(1<<62-1)))
	ne = add384(ne, m.mulSmall(ne[0]*m.mneg&(1<<62-1)))
	*d, *e = shr62(nd), shr62(ne)
}

// mulSmall returns M·k for k < 2^62 as a 384-bit value.
func (m *modulus) mulSmall(k uint64) [6]uint64 {
	var out [6]uint64
	var carry uint64
	for i := 0; i < 4; i++ {
		hi, lo := bits.Mul64(m.m[i], k)
		var c uint64
		out[i], c = bits.Add64(lo, carry, 0)
		carry = hi + c
	}
	out[4] = carry
	return out
}

// inverse returns x⁻¹ mod M for 0 < x < M (x given as four limbs). For
// x ≡ 0 it returns 0.
func (m *modulus) inverse(x [4]uint64) [4]uint64 {
	f := s320{m.m[0], m.m[1], m.m[2], m.m[3], 0}
	g := s320{x[0], x[1], x[2], x[3], 0}
	var d, e s320
	e[0] = 1
	delta := int64(1)
	// Each batch shrinks f and g by ~62 bits in the worst case at least
	// every few batches; the bound is a guard against a bug looping
	// forever, far above the ~10 batches 256-bit inputs take.
	for iter := 0; iter < 64; iter++ {
		if g == (s320{}) {
			break
		}
		var u, v, q, r int64
		delta, u, v, q, r = divsteps62(delta, f[0], g[0])
		applyFG(&f, &g, u, v, q, r)
		m.applyDE(&d, &e, u, v, q, r)
	}
	if g != (s320{}) {
		return [4]uint64{}
	}
	// f = ±1 unless x ≡ 0 (then f = ±M and there is no inverse).
	if f.isNeg() {
		neg320(&f)
		neg320(&d)
	}
	if f != (s320{1}) {
		return [4]uint64{}
	}
	// Bring d (|d| is a small multiple of M) into [0, M).
	mm := s320{m.m[0], m.m[1], m.m[2], m.m[3], 0}
	for d.isNeg() {
		d = add320(d, mm)
	}
	for !less320(&d, &mm) {
		d = sub320s(d, mm)
	}
	return [4]uint64{d[0], d[1], d[2], d[3]}
}

func neg320(x *s320) {
	var c uint64
	for i := range x {
		x[i], c = bits.Sub64(0, x[i], c)
	}
}

func add320(a, b s320) s320 {
	var c uint64
	for i := range a {
		a[i], c = bits.Add64(a[i], b[i], c)
	}
	return a
}

func sub320s(a, b s320) s320 {
	var c uint64
	for i := range a {
		a[i], c = bits.Sub64(a[i], b[i], c)
	}
	return a
}

// less320 compares two non-negative values.
func less320(a, b *s320) bool {
	for i := 4; i >= 0; i-- {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}
