// Package fr is arithmetic in F_r, the scalar field of BLS12-381 (r is the
// order of G1 and G2): the field of KZG polynomials, blob elements, and
// their roots of unity. Elements are four 64-bit words in Montgomery form,
// always fully reduced, so that == compares values.
package fr

//go:generate go run gen_mul.go

import (
	"encoding/binary"
	"math/bits"
)

// Element is a member of F_r, stored as x·2^256 mod r in little-endian
// words. The zero value is 0.
type Element [4]uint64

// The modulus r, little-endian words.
const (
	q0 = 0xffffffff00000001
	q1 = 0x53bda402fffe5bfe
	q2 = 0x3339d80809a1d805
	q3 = 0x73eda753299d7d48
)

// Modulus is r big-endian, as blob and cell elements are checked against it.
var Modulus = [32]byte{
	0x73, 0xed, 0xa7, 0x53, 0x29, 0x9d, 0x7d, 0x48, 0x33, 0x39, 0xd8, 0x08, 0x09, 0xa1, 0xd8, 0x05,
	0x53, 0xbd, 0xa4, 0x02, 0xff, 0xfe, 0x5b, 0xfe, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x01,
}

const (
	// qInvNeg is -r^-1 mod 2^64.
	qInvNeg = 0xfffffffeffffffff
)

var (
	// rSquare is 2^512 mod r: multiplying by it enters Montgomery form.
	rSquare = Element{0xc999e990f3f29c6d, 0x2b6cedcb87925c23, 0x05d314967254398f, 0x0748d9d99f59ff11}
	// one is 1 in Montgomery form, 2^256 mod r.
	one = Element{0x00000001fffffffe, 0x5884b7fa00034802, 0x998c4fefecbc4ff5, 0x1824b159acc5056f}
)

// One returns 1.
func One() Element { return one }

// SetOne sets z = 1.
func (z *Element) SetOne() *Element { *z = one; return z }

// SetUint64 sets z = v.
func (z *Element) SetUint64(v uint64) *Element {
	*z = Element{v}
	mul(z, z, &rSquare)
	return z
}

// SetBytes sets z to the big-endian integer b and reports whether b was
// canonical (below r); z is left unchanged when it is not.
func (z *Element) SetBytes(b *[32]byte) bool {
	w := words(b)
	if !lessThanR(&w) {
		return false
	}
	*z = w
	mul(z, z, &rSquare)
	return true
}

// SetBytesReduce sets z to the big-endian integer b modulo r (any 32 bytes,
// such as a hash output).
func (z *Element) SetBytesReduce(b *[32]byte) *Element {
	w := words(b)
	for !lessThanR(&w) { // at most twice: 2^256 < 3r
		var c uint64
		w[0], c = bits.Sub64(w[0], q0, 0)
		w[1], c = bits.Sub64(w[1], q1, c)
		w[2], c = bits.Sub64(w[2], q2, c)
		w[3], _ = bits.Sub64(w[3], q3, c)
	}
	*z = w
	mul(z, z, &rSquare)
	return z
}

func words(b *[32]byte) Element {
	return Element{
		binary.BigEndian.Uint64(b[24:]),
		binary.BigEndian.Uint64(b[16:]),
		binary.BigEndian.Uint64(b[8:]),
		binary.BigEndian.Uint64(b[:]),
	}
}

// Words returns x as an ordinary integer below r, little-endian words.
func (x *Element) Words() [4]uint64 {
	var w Element
	mul(&w, x, &Element{1})
	return w
}

// Bytes returns the canonical big-endian encoding of x.
func (x *Element) Bytes() [32]byte {
	w := x.Words()
	var b [32]byte
	binary.BigEndian.PutUint64(b[:], w[3])
	binary.BigEndian.PutUint64(b[8:], w[2])
	binary.BigEndian.PutUint64(b[16:], w[1])
	binary.BigEndian.PutUint64(b[24:], w[0])
	return b
}

// PutBytes writes the canonical big-endian encoding of x to b[:32].
func (x *Element) PutBytes(b []byte) {
	e := x.Bytes()
	copy(b[:32], e[:])
}

func lessThanR(w *Element) bool {
	_, b := bits.Sub64(w[0], q0, 0)
	_, b = bits.Sub64(w[1], q1, b)
	_, b = bits.Sub64(w[2], q2, b)
	_, b = bits.Sub64(w[3], q3, b)
	return b != 0
}

// IsZero reports whether x = 0.
func (x *Element) IsZero() bool { return x[0]|x[1]|x[2]|x[3] == 0 }

// Equal reports whether x = y.
func (x *Element) Equal(y *Element) bool { return *x == *y }

// reduce stores t mod r in z for t < 2r.
func reduce(z *Element, t0, t1, t2, t3 uint64) {
	r0, b := bits.Sub64(t0, q0, 0)
	r1, b := bits.Sub64(t1, q1, b)
	r2, b := bits.Sub64(t2, q2, b)
	r3, b := bits.Sub64(t3, q3, b)
	if b != 0 { // t < r: keep it
		z[0], z[1], z[2], z[3] = t0, t1, t2, t3
		return
	}
	z[0], z[1], z[2], z[3] = r0, r1, r2, r3
}

// Add sets z = x + y and returns z.
func (z *Element) Add(x, y *Element) *Element {
	// r < 2^255: the sum of two reduced values fits in four words.
	var c uint64
	t0, c := bits.Add64(x[0], y[0], 0)
	t1, c := bits.Add64(x[1], y[1], c)
	t2, c := bits.Add64(x[2], y[2], c)
	t3, _ := bits.Add64(x[3], y[3], c)
	reduce(z, t0, t1, t2, t3)
	return z
}

// Double sets z = 2x and returns z.
func (z *Element) Double(x *Element) *Element { return z.Add(x, x) }

// Sub sets z = x - y and returns z.
func (z *Element) Sub(x, y *Element) *Element {
	t0, b := bits.Sub64(x[0], y[0], 0)
	t1, b := bits.Sub64(x[1], y[1], b)
	t2, b := bits.Sub64(x[2], y[2], b)
	t3, b := bits.Sub64(x[3], y[3], b)
	if b != 0 { // add r back
		var c uint64
		t0, c = bits.Add64(t0, q0, 0)
		t1, c = bits.Add64(t1, q1, c)
		t2, c = bits.Add64(t2, q2, c)
		t3, _ = bits.Add64(t3, q3, c)
	}
	z[0], z[1], z[2], z[3] = t0, t1, t2, t3
	return z
}

// Neg sets z = -x and returns z.
func (z *Element) Neg(x *Element) *Element {
	return z.Sub(&Element{}, x)
}

// Mul sets z = x·y and returns z.
func (z *Element) Mul(x, y *Element) *Element {
	mul(z, x, y)
	return z
}

// Square sets z = x² and returns z.
func (z *Element) Square(x *Element) *Element {
	mul(z, x, x)
	return z
}

// Exp sets z = x^e for the little-endian 256-bit exponent e and returns z.
func (z *Element) Exp(x *Element, e [4]uint64) *Element {
	acc, base := one, *x
	for i := 3; i >= 0; i-- {
		for j := 63; j >= 0; j-- {
			mul(&acc, &acc, &acc)
			if e[i]>>uint(j)&1 == 1 {
				mul(&acc, &acc, &base)
			}
		}
	}
	*z = acc
	return z
}

// rMinus2 is the Fermat exponent of the inverse.
var rMinus2 = [4]uint64{q0 - 2, q1, q2, q3}

// Inverse sets z = 1/x (0 for x = 0) and returns z.
func (z *Element) Inverse(x *Element) *Element {
	return z.Exp(x, rMinus2)
}

// BatchInverse replaces every non-zero element of xs by its inverse with
// one field inversion and three multiplications per element (Montgomery's
// trick); zeros stay zero.
func BatchInverse(xs []Element) {
	prefix := make([]Element, len(xs))
	acc := one
	for i := range xs {
		prefix[i] = acc
		if !xs[i].IsZero() {
			mul(&acc, &acc, &xs[i])
		}
	}
	var inv Element
	inv.Inverse(&acc)
	for i := len(xs) - 1; i >= 0; i-- {
		if xs[i].IsZero() {
			continue
		}
		var t Element
		mul(&t, &inv, &prefix[i])
		mul(&inv, &inv, &xs[i])
		xs[i] = t
	}
}
