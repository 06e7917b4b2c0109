package bls12381

import (
	"math/big"
	"math/bits"
	"sync/atomic"
)

// Field inversion by Pornin's optimized binary GCD ("Optimized Binary GCD
// for Modular Inversion", 2020). Every outer round works on 62-bit
// approximations of a and b (the low 30 bits and the top 32 bits) for 30
// binary-GCD steps, collecting them in a 2×2 matrix with entries below 2^31,
// and only then applies the matrix to the full 381-bit values. That is
// about 26 rounds of word operations instead of the ~570 multiplications of
// Fermat's little theorem.
//
// Inputs are not secret (precompile arguments), so the variable-time
// behaviour is fine.

const (
	invSteps  = 30 // binary-GCD steps per round (k-1 with k = 31)
	invRounds = 26 // ⌈(2·381 - 1)/30⌉ rounds always suffice; most inputs need fewer
)

// invFactors[k] is 2^(34·k)·R³ mod p in plain (non-Montgomery) limbs:
// after k rounds, mul(v, invFactors[k]) turns the GCD coefficient v into
// 1/x in Montgomery form (see inverse).
var invFactors = func() (t [invRounds + 1]fe) {
	for k := range t {
		v := new(big.Int).Lsh(big.NewInt(1), uint(34*k+3*384))
		v.Mod(v, bigP)
		copy(t[k][:], bigToWords(v))
	}
	return t
}()

// inverse sets z = 1/x (and 0 for x = 0, the inv0 of RFC 9380).
func inverse(z, x *fe) {
	if x.isZero() {
		*z = fe{}
		return
	}
	// x is x̂·R in Montgomery form; invert the raw value x̂R as an integer.
	a := [6]uint64(*x)
	b := [6]uint64(pModulus)
	var u, v fe
	u = fe{1}
	rounds := invRounds
	for round := 0; round < invRounds; round++ {
		n := bitLen6(&a)
		if m := bitLen6(&b); m > n {
			n = m
		}
		if n < 64 {
			n = 64
		}
		aa := approx(&a, n)
		bb := approx(&b, n)
		var f0, g0, f1, g1 uint64 = 1, 0, 0, 1 // two's-complement int64s
		for j := 0; j < invSteps; j++ {
			// Branch-free step: the branches would mispredict half the
			// time. odd: aa is odd; swap: odd and aa < bb.
			odd := -(aa & 1)
			_, lt := bits.Sub64(aa, bb, 0)
			swap := -lt & odd
			t := (aa ^ bb) & swap
			aa ^= t
			bb ^= t
			t = (f0 ^ f1) & swap
			f0 ^= t
			f1 ^= t
			t = (g0 ^ g1) & swap
			g0 ^= t
			g1 ^= t
			aa -= bb & odd
			f0 -= f1 & odd
			g0 -= g1 & odd
			aa >>= 1
			f1 <<= 1
			g1 <<= 1
		}
		sf0, sg0, sf1, sg1 := int64(f0), int64(g0), int64(f1), int64(g1)
		na, negA := linComb(&a, &b, sf0, sg0)
		nb, negB := linComb(&a, &b, sf1, sg1)
		if negA {
			sf0, sg0 = -sf0, -sg0
		}
		if negB {
			sf1, sg1 = -sf1, -sg1
		}
		a, b = na, nb
		nu := modLinComb(&u, &v, sf0, sg0)
		nv := modLinComb(&u, &v, sf1, sg1)
		u, v = nu, nv
		if a == ([6]uint64{}) {
			// Done early (the usual case): b = gcd = 1.
			rounds = round + 1
			break
		}
	}
	// Now b = 1 and v·x̂R·2^(34·rounds) ≡ 1 (mod p): each round divided
	// a, b by 2^30 but u, v by 2^64.
	var r fe
	mul(&r, &v, &invFactors[rounds])
	// Guard: should the round bound ever fall short, use Fermat instead.
	var chk fe
	mul(&chk, &r, x)
	if !chk.isOne() {
		invFallbacks.Add(1)
		exp(z, x, expPMinus2)
		return
	}
	*z = r
}

// invFallbacks counts uses of the Fermat fallback; tests require zero.
var invFallbacks atomic.Int64

func bitLen6(x *[6]uint64) int {
	for i := 5; i >= 0; i-- {
		if x[i] != 0 {
			return i*64 + bits.Len64(x[i])
		}
	}
	return 0
}

// approx returns the low 30 bits of x joined with its bits n-32 … n-1.
func approx(x *[6]uint64, n int) uint64 {
	lo := x[0] & (1<<invSteps - 1)
	s := n - 32
	w, o := s/64, uint(s%64)
	hi := x[w] >> o
	if o > 32 && w+1 < 6 {
		hi |= x[w+1] << (64 - o)
	}
	hi &= 0xffffffff
	return lo | hi<<invSteps
}

// mulSigned returns x·f as a 7-word two's-complement integer.
func mulSigned(x *[6]uint64, f int64) [7]uint64 {
	neg := f < 0
	m := uint64(f)
	if neg {
		m = uint64(-f)
	}
	var r [7]uint64
	var carry uint64
	for i := 0; i < 6; i++ {
		hi, lo := bits.Mul64(x[i], m)
		var c uint64
		r[i], c = bits.Add64(lo, carry, 0)
		carry = hi + c
	}
	r[6] = carry
	if neg {
		negate7(&r)
	}
	return r
}

func negate7(r *[7]uint64) {
	var b uint64
	for i := 0; i < 7; i++ {
		r[i], b = bits.Sub64(0, r[i], b)
	}
}

func add7(x, y *[7]uint64) [7]uint64 {
	var r [7]uint64
	var c uint64
	for i := 0; i < 7; i++ {
		r[i], c = bits.Add64(x[i], y[i], c)
	}
	return r
}

// linComb returns |(x·f + y·g) / 2^30| and whether the value was negative.
// The division is exact by construction of the round.
func linComb(x, y *[6]uint64, f, g int64) ([6]uint64, bool) {
	p := mulSigned(x, f)
	q := mulSigned(y, g)
	s := add7(&p, &q)
	neg := s[6]>>63 == 1
	if neg {
		negate7(&s)
	}
	var r [6]uint64
	for i := 0; i < 6; i++ {
		r[i] = s[i]>>invSteps | s[i+1]<<(64-invSteps)
	}
	return r, neg
}

// modLinComb returns (x·f + y·g)/2^64 mod p for x, y < p, using one word of
// Montgomery reduction for the division.
func modLinComb(x, y *fe, f, g int64) fe {
	p := mulSigned((*[6]uint64)(x), f)
	q := mulSigned((*[6]uint64)(y), g)
	s := add7(&p, &q)
	// s is a signed 7-word value with |s| < 2^32·p. Add m·p with
	// m = -s·p^-1 mod 2^64 so the low word vanishes, then drop it.
	m := s[0] * qInvNeg
	var t [8]uint64
	var carry uint64
	for i := 0; i < 6; i++ {
		hi, lo := bits.Mul64(m, pModulus[i])
		var c uint64
		lo, c = bits.Add64(lo, carry, 0)
		hi += c
		t[i], c = bits.Add64(s[i], lo, 0)
		carry = hi + c
	}
	// Sign-extend s into word 7 and finish the addition.
	ext := uint64(0)
	if s[6]>>63 == 1 {
		ext = ^uint64(0)
	}
	var c uint64
	t[6], c = bits.Add64(s[6], carry, 0)
	t[7] = ext + c
	// Result (t >> 64) is in (-p, 2p) as a signed 7-word value t[1..7].
	var r fe
	copy(r[:], t[1:7])
	if t[7]>>63 == 1 {
		// Negative: add p.
		var cc uint64
		for i := 0; i < 6; i++ {
			r[i], cc = bits.Add64(r[i], pModulus[i], cc)
		}
		return r
	}
	if t[7] != 0 || !r.lessThanP() {
		var bb uint64
		for i := 0; i < 6; i++ {
			r[i], bb = bits.Sub64(r[i], pModulus[i], bb)
		}
	}
	return r
}
