package bn254

import "math/bits"

// Inversion by the binary extended Euclidean algorithm. It is not
// constant-time, which the precompiles do not need (all inputs are
// public), and is several times faster than Fermat's p-2 exponentiation.

var rCube fe // 2^768 mod p: turns (xR)^-1 into x^-1·R

func init() { feMul(&rCube, &rSq, &rSq) }

// feInv sets z = x^-1 (0 for x = 0).
func feInv(z, x *fe) {
	if x.isZero() {
		*z = fe{}
		return
	}
	// Invert the Montgomery representative a = xR as a plain integer,
	// giving x^-1·R^-1, then multiply by R³ in Montgomery form.
	u := *x
	v := pMod
	x1 := fe{1}
	x2 := fe{}
	for !isOne(&u) && !isOne(&v) {
		for u[0]&1 == 0 {
			shr1(&u)
			halveModP(&x1)
		}
		for v[0]&1 == 0 {
			shr1(&v)
			halveModP(&x2)
		}
		if !lessRaw(&u, &v) {
			subRaw(&u, &v)
			feSub(&x1, &x1, &x2)
		} else {
			subRaw(&v, &u)
			feSub(&x2, &x2, &x1)
		}
	}
	if isOne(&u) {
		feMul(z, &x1, &rCube)
	} else {
		feMul(z, &x2, &rCube)
	}
}

func isOne(x *fe) bool { return x[0] == 1 && x[1]|x[2]|x[3] == 0 }

func shr1(x *fe) {
	x[0] = x[0]>>1 | x[1]<<63
	x[1] = x[1]>>1 | x[2]<<63
	x[2] = x[2]>>1 | x[3]<<63
	x[3] >>= 1
}

// halveModP sets x = x/2 mod p for x < p: add p first when x is odd (the
// sum stays below 2^255, so no bit is lost).
func halveModP(x *fe) {
	if x[0]&1 == 1 {
		var c uint64
		x[0], c = bits.Add64(x[0], p0, 0)
		x[1], c = bits.Add64(x[1], p1, c)
		x[2], c = bits.Add64(x[2], p2, c)
		x[3], _ = bits.Add64(x[3], p3, c)
	}
	shr1(x)
}

func lessRaw(x, y *fe) bool {
	_, b := bits.Sub64(x[0], y[0], 0)
	_, b = bits.Sub64(x[1], y[1], b)
	_, b = bits.Sub64(x[2], y[2], b)
	_, b = bits.Sub64(x[3], y[3], b)
	return b != 0
}

func subRaw(x, y *fe) {
	var b uint64
	x[0], b = bits.Sub64(x[0], y[0], 0)
	x[1], b = bits.Sub64(x[1], y[1], b)
	x[2], b = bits.Sub64(x[2], y[2], b)
	x[3], _ = bits.Sub64(x[3], y[3], b)
}
