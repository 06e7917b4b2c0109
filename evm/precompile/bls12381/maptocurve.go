package bls12381

import "errors"

// map_to_curve and clear_cofactor of RFC 9380 for BLS12-381, as EIP-2537
// uses them (no hash_to_field): the simplified SWU map onto a curve E'
// isogenous to E (since E has A = 0), the isogeny E' → E, and
// multiplication by h_eff.

// SSWU parameters of E1': y² = x³ + A'x + B' over Fp, Z = 11.
var (
	sswu1A, sswu1B, sswu1Z fe
	sswu1MinusBOverA       fe // -B'/A'
	sswu1BOverZA           fe // B'/(Z·A'), the x for the exceptional inputs
	sswu1SqrtMinusZ3       fe // √(-Z³), a square since -1 and Z are not
	iso1XNum               [12]fe
	iso1XDen               [10]fe
	iso1YNum               [16]fe
	iso1YDen               [15]fe
)

// SSWU parameters of E2': y² = x³ + 240u·x + 1012(1+u) over Fp2, Z = -(2+u).
var (
	sswu2A, sswu2B, sswu2Z fe2
	sswu2MinusBOverA       fe2
	sswu2BOverZA           fe2
	iso2XNum               [4]fe2
	iso2XDen               [2]fe2
	iso2YNum               [4]fe2
	iso2YDen               [3]fe2
)

// errMapFailed reports an internal inconsistency of the SSWU map (it
// cannot happen for a correct implementation); returned instead of a panic.
var errMapFailed = errors.New("bls12381: map to curve found no square root")

func init() {
	sswu1A = feFromHex("144698a3b8e9433d693a02c96d4982b0ea985383ee66a8d8e8981aefd881ac98936f8da0e0f97f5cf428082d584c1d")
	sswu1B = feFromHex("12e2908d11688030018b12e8753eee3b2016c1f0f24f4070a0b9c14fcef35ef55a23215a316ceaa5d1cc48e98e172be0")
	sswu1Z.setUint(11)
	var t fe
	inverse(&t, &sswu1A)
	mul(&sswu1MinusBOverA, &sswu1B, &t)
	neg(&sswu1MinusBOverA, &sswu1MinusBOverA)
	mul(&t, &sswu1Z, &sswu1A)
	inverse(&t, &t)
	mul(&sswu1BOverZA, &sswu1B, &t)
	square(&t, &sswu1Z)
	mul(&t, &t, &sswu1Z)
	neg(&t, &t)
	if !sqrt(&sswu1SqrtMinusZ3, &t) {
		panic("bls12381: -Z³ is not a square")
	}
	for i, s := range iso11XNum {
		iso1XNum[i] = feFromHex(s)
	}
	for i, s := range iso11XDen {
		iso1XDen[i] = feFromHex(s)
	}
	for i, s := range iso11YNum {
		iso1YNum[i] = feFromHex(s)
	}
	for i, s := range iso11YDen {
		iso1YDen[i] = feFromHex(s)
	}

	sswu2A = fe2{fe{}, *new(fe).setUint(240)}
	sswu2B = fe2{*new(fe).setUint(1012), *new(fe).setUint(1012)}
	var two, one fe
	two.setUint(2)
	one.setOne()
	neg(&sswu2Z[0], &two)
	neg(&sswu2Z[1], &one)
	var t2 fe2
	inverse2(&t2, &sswu2A)
	mul2(&sswu2MinusBOverA, &sswu2B, &t2)
	neg2(&sswu2MinusBOverA, &sswu2MinusBOverA)
	mul2(&t2, &sswu2Z, &sswu2A)
	inverse2(&t2, &t2)
	mul2(&sswu2BOverZA, &sswu2B, &t2)
	fe2Hex := func(c [2]string) fe2 { return fe2{feFromHex(c[0]), feFromHex(c[1])} }
	for i, c := range iso3XNum {
		iso2XNum[i] = fe2Hex(c)
	}
	for i, c := range iso3XDen {
		iso2XDen[i] = fe2Hex(c)
	}
	for i, c := range iso3YNum {
		iso2YNum[i] = fe2Hex(c)
	}
	for i, c := range iso3YDen {
		iso2YDen[i] = fe2Hex(c)
	}
}

// sswu1 maps u to a point of E1' (RFC 9380, section 6.6.2).
func sswu1(u *fe) (x, y fe, ok bool) {
	var zu2, den, gx, t fe
	square(&zu2, u)
	mul(&zu2, &zu2, &sswu1Z)
	square(&den, &zu2)
	add(&den, &den, &zu2) // Z²u⁴ + Zu²
	if den.isZero() {
		x = sswu1BOverZA
	} else {
		inverse(&t, &den)
		var one fe
		one.setOne()
		add(&t, &t, &one)
		mul(&x, &sswu1MinusBOverA, &t)
	}
	curveRHS1(&gx, &x)
	// One exponentiation serves both candidates: r = g(x1)^((p+1)/4) is a
	// root of g(x1) if one exists and otherwise a root of -g(x1); then
	// g(x2) = Z³u⁶·g(x1) has the root u³·√(-Z³)·r.
	var r, r2 fe
	exp(&r, &gx, expPPlus1Div4)
	square(&r2, &r)
	if r2 == gx {
		y = r
	} else {
		mul(&x, &x, &zu2)
		mul(&y, &r, &sswu1SqrtMinusZ3)
		mul(&t, u, u)
		mul(&t, &t, u)
		mul(&y, &y, &t)
		// Check the root; a failure would be a bug, reported by mapToG1.
		curveRHS1(&gx, &x)
		square(&r2, &y)
		if r2 != gx {
			return x, y, false
		}
	}
	if sgn0(u) != sgn0(&y) {
		neg(&y, &y)
	}
	return x, y, true
}

func curveRHS1(z, x *fe) {
	var t fe
	square(&t, x)
	add(&t, &t, &sswu1A)
	mul(&t, &t, x)
	add(z, &t, &sswu1B)
}

// horner evaluates Σ c[i]·x^i, plus x^len(c) when monic is set.
func horner(x *fe, c []fe, monic bool) fe {
	var r fe
	i := len(c) - 1
	if monic {
		add(&r, x, &c[i])
	} else {
		r = c[i]
	}
	for i--; i >= 0; i-- {
		mul(&r, &r, x)
		add(&r, &r, &c[i])
	}
	return r
}

// iso11 maps a point of E1' to E1; exceptional points go to infinity.
func iso11(x, y *fe) G1 {
	xn := horner(x, iso1XNum[:], false)
	xd := horner(x, iso1XDen[:], true)
	yn := horner(x, iso1YNum[:], false)
	yd := horner(x, iso1YDen[:], true)
	var p G1
	if xd.isZero() || yd.isZero() {
		return p
	}
	// One inversion for both denominators.
	var inv, t, rx, ry fe
	mul(&t, &xd, &yd)
	inverse(&inv, &t)
	mul(&rx, &xn, &yd)
	mul(&rx, &rx, &inv)
	mul(&ry, &yn, &xd)
	mul(&ry, &ry, &inv)
	mul(&ry, &ry, y)
	p.setAffine(&rx, &ry)
	return p
}

// mapToG1 is map_to_curve followed by clear_cofactor.
func mapToG1(u *fe) (G1, error) {
	x, y, ok := sswu1(u)
	if !ok {
		return G1{}, errMapFailed
	}
	p := iso11(&x, &y)
	var r G1
	r.clearCofactor(&p)
	return r, nil
}

// sswu2 maps u to a point of E2'.
func sswu2(u *fe2) (x, y fe2, ok bool) {
	var zu2, den, gx, t fe2
	square2(&zu2, u)
	mul2(&zu2, &zu2, &sswu2Z)
	square2(&den, &zu2)
	add2(&den, &den, &zu2)
	if den.isZero() {
		x = sswu2BOverZA
	} else {
		inverse2(&t, &den)
		var one fe2
		one.setOne()
		add2(&t, &t, &one)
		mul2(&x, &sswu2MinusBOverA, &t)
	}
	curveRHS2(&gx, &x)
	if !sqrt2(&y, &gx) {
		mul2(&x, &x, &zu2)
		curveRHS2(&gx, &x)
		if !sqrt2(&y, &gx) {
			return x, y, false
		}
	}
	if sgn0Fp2(u) != sgn0Fp2(&y) {
		neg2(&y, &y)
	}
	return x, y, true
}

func curveRHS2(z, x *fe2) {
	var t fe2
	square2(&t, x)
	add2(&t, &t, &sswu2A)
	mul2(&t, &t, x)
	add2(z, &t, &sswu2B)
}

func horner2(x *fe2, c []fe2, monic bool) fe2 {
	var r fe2
	i := len(c) - 1
	if monic {
		add2(&r, x, &c[i])
	} else {
		r = c[i]
	}
	for i--; i >= 0; i-- {
		mul2(&r, &r, x)
		add2(&r, &r, &c[i])
	}
	return r
}

// iso3 maps a point of E2' to E2; exceptional points go to infinity.
func iso3(x, y *fe2) G2 {
	xn := horner2(x, iso2XNum[:], false)
	xd := horner2(x, iso2XDen[:], true)
	yn := horner2(x, iso2YNum[:], false)
	yd := horner2(x, iso2YDen[:], true)
	var p G2
	if xd.isZero() || yd.isZero() {
		return p
	}
	var inv, t, rx, ry fe2
	mul2(&t, &xd, &yd)
	inverse2(&inv, &t)
	mul2(&rx, &xn, &yd)
	mul2(&rx, &rx, &inv)
	mul2(&ry, &yn, &xd)
	mul2(&ry, &ry, &inv)
	mul2(&ry, &ry, y)
	p.setAffine(&rx, &ry)
	return p
}

// mapToG2 is map_to_curve followed by clear_cofactor.
func mapToG2(u *fe2) (G2, error) {
	x, y, ok := sswu2(u)
	if !ok {
		return G2{}, errMapFailed
	}
	p := iso3(&x, &y)
	var r G2
	r.clearCofactor(&p)
	return r, nil
}
