package bls12381

// G1ADD and G2ADD take two affine points and return an affine point, so
// they add in affine coordinates: one inversion of x2 - x1 (or of 2·y1 when
// doubling) and three multiplications, instead of a Jacobian addition
// (about sixteen multiplications) followed by an inversion and four more
// to leave Jacobian coordinates. The on-curve checks likewise skip the z
// powers that are 1 for decoded points.

// The curve constants b = 4 and b' = 4(1 + u) in Montgomery form.
var (
	g1B = func() (b fe) {
		mulByB1(&b, &feOne)
		return b
	}()
	g2B = func() (b fe2) {
		mulByB2(&b, &fe2{feOne})
		return b
	}()
)

// decodeG1Affine reads a 128-byte point into (x, y) and checks that it is
// on the curve; inf reports the all-zero encoding of the point at infinity.
func decodeG1Affine(x, y *fe, in []byte) (inf bool, err error) {
	if err := decodeFp(x, in[:64]); err != nil {
		return false, err
	}
	if err := decodeFp(y, in[64:128]); err != nil {
		return false, err
	}
	if x.isZero() && y.isZero() {
		return true, nil
	}
	// y² = x³ + 4
	var l, r fe
	square(&l, y)
	square(&r, x)
	mul(&r, &r, x)
	add(&r, &r, &g1B)
	if l != r {
		return false, ErrNotOnCurve
	}
	return false, nil
}

// decodeG2Affine is decodeG1Affine for a 256-byte G2 point.
func decodeG2Affine(x, y *fe2, in []byte) (inf bool, err error) {
	if err := decodeFp2(x, in[:128]); err != nil {
		return false, err
	}
	if err := decodeFp2(y, in[128:256]); err != nil {
		return false, err
	}
	if x.isZero() && y.isZero() {
		return true, nil
	}
	// y² = x³ + 4(1 + u)
	var l, r fe2
	square2(&l, y)
	square2(&r, x)
	mul2(&r, &r, x)
	add2(&r, &r, &g2B)
	if l != r {
		return false, ErrNotOnCurve
	}
	return false, nil
}

// addG1Affine encodes (x1, y1) + (x2, y2) into out (128 zero bytes on
// entry); inf1 and inf2 mark the point at infinity.
func addG1Affine(out []byte, x1, y1 *fe, inf1 bool, x2, y2 *fe, inf2 bool) {
	switch {
	case inf1 && inf2:
		return
	case inf1:
		encodeFp(out[:64], x2)
		encodeFp(out[64:], y2)
		return
	case inf2:
		encodeFp(out[:64], x1)
		encodeFp(out[64:], y1)
		return
	}
	var num, den fe // the slope is num/den
	if *x1 == *x2 {
		if *y1 != *y2 || y1.isZero() {
			return // P + (-P), or doubling a point of order 2
		}
		// Tangent: 3·x1² / (2·y1).
		square(&num, x1)
		var t fe
		double(&t, &num)
		add(&num, &num, &t)
		double(&den, y1)
	} else {
		sub(&num, y2, y1)
		sub(&den, x2, x1)
	}
	var l, x3, y3 fe
	inverse(&den, &den)
	mul(&l, &num, &den)
	// x3 = l² - x1 - x2, y3 = l·(x1 - x3) - y1
	square(&x3, &l)
	sub(&x3, &x3, x1)
	sub(&x3, &x3, x2)
	sub(&y3, x1, &x3)
	mul(&y3, &y3, &l)
	sub(&y3, &y3, y1)
	encodeFp(out[:64], &x3)
	encodeFp(out[64:], &y3)
}

func encodeFp2(out []byte, x *fe2) {
	encodeFp(out[:64], &x[0])
	encodeFp(out[64:128], &x[1])
}

// addG2Affine is addG1Affine over Fp2, into 256 bytes.
func addG2Affine(out []byte, x1, y1 *fe2, inf1 bool, x2, y2 *fe2, inf2 bool) {
	switch {
	case inf1 && inf2:
		return
	case inf1:
		encodeFp2(out[:128], x2)
		encodeFp2(out[128:], y2)
		return
	case inf2:
		encodeFp2(out[:128], x1)
		encodeFp2(out[128:], y1)
		return
	}
	var num, den fe2
	if *x1 == *x2 {
		if *y1 != *y2 || y1.isZero() {
			return
		}
		square2(&num, x1)
		var t fe2
		double2(&t, &num)
		add2(&num, &num, &t)
		double2(&den, y1)
	} else {
		sub2(&num, y2, y1)
		sub2(&den, x2, x1)
	}
	var l, x3, y3 fe2
	inverse2(&den, &den)
	mul2(&l, &num, &den)
	square2(&x3, &l)
	sub2(&x3, &x3, x1)
	sub2(&x3, &x3, x2)
	sub2(&y3, x1, &x3)
	mul2(&y3, &y3, &l)
	sub2(&y3, &y3, y1)
	encodeFp2(out[:128], &x3)
	encodeFp2(out[128:], &y3)
}
