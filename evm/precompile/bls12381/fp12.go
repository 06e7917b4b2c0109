package bls12381

// fe12 is c0 + c1·w in Fp12 = Fp6[w]/(w² - v). Written over Fp2 it is
// Σ g_i w^i with g0..g5 = c0[0], c1[0], c0[1], c1[1], c0[2], c1[2].
type fe12 [2]fe6

func (z *fe12) setOne() *fe12 {
	z[0].setOne()
	z[1] = fe6{}
	return z
}

func (z *fe12) isOne() bool {
	var one fe12
	one.setOne()
	return *z == one
}

func mul12(z, x, y *fe12) {
	var t0, t1, s0, s1 fe6
	mul6(&t0, &x[0], &y[0])
	mul6(&t1, &x[1], &y[1])
	add6(&s0, &x[0], &x[1])
	add6(&s1, &y[0], &y[1])
	mul6(&s0, &s0, &s1)
	sub6(&s0, &s0, &t0)
	sub6(&z[1], &s0, &t1)
	mulByV(&t1, &t1)
	add6(&z[0], &t0, &t1)
}

func square12(z, x *fe12) {
	// (c0 + c1 w)² = c0² + v c1² + 2 c0 c1 w, with
	// c0² + v c1² = (c0 + c1)(c0 + v c1) - c0 c1 - v c0 c1.
	var t, s0, s1 fe6
	mul6(&t, &x[0], &x[1])
	add6(&s0, &x[0], &x[1])
	mulByV(&s1, &x[1])
	add6(&s1, &s1, &x[0])
	mul6(&s0, &s0, &s1)
	sub6(&s0, &s0, &t)
	mulByV(&s1, &t)
	sub6(&z[0], &s0, &s1)
	double6(&z[1], &t)
}

// conj12 is the p^6-power Frobenius: w ↦ -w. On the cyclotomic subgroup
// it is the inverse.
func conj12(z, x *fe12) {
	z[0] = x[0]
	neg6(&z[1], &x[1])
}

func inverse12(z, x *fe12) {
	// 1/(c0 + c1 w) = (c0 - c1 w)/(c0² - v c1²).
	var t0, t1 fe6
	square6(&t0, &x[0])
	square6(&t1, &x[1])
	mulByV(&t1, &t1)
	sub6(&t0, &t0, &t1)
	inverse6(&t0, &t0)
	mul6(&z[0], &x[0], &t0)
	mul6(&t1, &x[1], &t0)
	neg6(&z[1], &t1)
}

// mulByLine multiplies by a line value a + b·v + c·v·w (the only non-zero
// coefficients a line through twist points can have, see lineDouble).
func mulByLine(z *fe12, a, b, c *fe2) {
	var t0, t1, s fe6
	mulBy01(&t0, &z[0], a, b)
	mulBy1(&t1, &z[1], c)
	add6(&s, &z[0], &z[1])
	var bc fe2
	add2(&bc, b, c)
	mulBy01(&s, &s, a, &bc)
	sub6(&s, &s, &t0)
	sub6(&z[1], &s, &t1)
	mulByV(&t1, &t1)
	add6(&z[0], &t0, &t1)
}

// frobCoef[k-1][i] = ξ^(i(p^k-1)/6) for k = 1, 2, 3 and i = 0..5: raising
// Σ g_i w^i to p^k maps g_i to g_i^(p^k)·frobCoef[k-1][i].
var frobCoef [3][6]fe2

// frob12 raises x to the power p^k, k in 1..3.
func frob12(z, x *fe12, k int) {
	c := &frobCoef[k-1]
	g := [6]*fe2{&x[0][0], &x[1][0], &x[0][1], &x[1][1], &x[0][2], &x[1][2]}
	var r [6]fe2
	for i := 0; i < 6; i++ {
		if k&1 == 1 {
			conj2(&r[i], g[i])
		} else {
			r[i] = *g[i]
		}
		if i > 0 {
			mul2(&r[i], &r[i], &c[i])
		}
	}
	z[0][0], z[1][0], z[0][1], z[1][1], z[0][2], z[1][2] = r[0], r[1], r[2], r[3], r[4], r[5]
}
