//go:build amd64 && !purego

package precompile

import "math/bits"

// montMulAsm is the Montgomery multiplication of montCtx.mulGeneric with
// the carry chains in ADC instead of the compiler's SBB/NEG sequences and
// without spills; it leaves t (n+1 words) unreduced.
//
//go:noescape
func montMulAsm(t, x, y, m *uint64, n int, minv uint64)

// addMulRowADX sets z[0..n) += x[0..n)·y and returns the carry word.
//
//go:noescape
func addMulRowADX(z, x *uint64, n int, y uint64) uint64

func montHasADX() bool

var montUseADX = montHasADX()

// montADXMinWords is the size from which the ADX rows, two calls per
// word of y, beat the single-call MULQ multiplication.
const montADXMinWords = 16

func montLongExpMaxWords() int {
	if montUseADX {
		return montMaxWords
	}
	return 16
}

// mul sets z = x·y·R⁻¹ mod m for x < R, y < m; z may alias x or y.
func (c *montCtx) mul(z, x, y []uint64) {
	n := len(c.m)
	if montUseADX && n >= montADXMinWords {
		c.mulRows(z, x, y)
		return
	}
	t := c.t[:n+1]
	montMulAsm(&t[0], &x[:n][0], &y[:n][0], &c.m[0], n, c.minv)
	c.reduce(z, t)
}

// mulRows is mul with the product and the reduction interleaved row by
// row in the 2n+2 words of c.t: row i adds x·y[i] and then q·m at word i,
// with q chosen to clear word i; the result is t[n..2n].
func (c *montCtx) mulRows(z, x, y []uint64) {
	n := len(c.m)
	x = x[:n]
	y = y[:n]
	t := c.t[:2*n+2]
	clear(t)
	for i := 0; i < n; i++ {
		cy := addMulRowADX(&t[i], &x[0], n, y[i])
		var cc uint64
		t[i+n], cc = bits.Add64(t[i+n], cy, 0)
		t[i+n+1] += cc
		q := t[i] * c.minv
		cy = addMulRowADX(&t[i], &c.m[0], n, q)
		t[i+n], cc = bits.Add64(t[i+n], cy, 0)
		t[i+n+1] += cc
	}
	c.reduce(z, t[n:2*n+1])
}

// sqr sets z = x²·R⁻¹ mod m for x < m; z may alias x. p is unused
// scratch kept for the generic signature.
func (c *montCtx) sqr(z, x, p []uint64) {
	if montUseADX && len(c.m) >= montADXMinWords {
		c.sqrRows(z, x)
		return
	}
	c.mul(z, x, x)
}

// sqrRows squares with rows: each cross product x[i]·x[j] (i<j) once,
// doubled, plus the diagonal, then n reduction rows, about a quarter
// fewer word multiplications than mulRows.
func (c *montCtx) sqrRows(z, x []uint64) {
	n := len(c.m)
	x = x[:n]
	p := c.t[:2*n+2]
	clear(p)
	for i := 0; i < n-1; i++ {
		p[i+n] = addMulRowADX(&p[2*i+1], &x[i+1], n-i-1, x[i])
	}
	addSquareDiagonal(p, x)
	var top uint64
	for i := 0; i < n; i++ {
		q := p[i] * c.minv
		cy := addMulRowADX(&p[i], &c.m[0], n, q)
		p[i+n], top = bits.Add64(p[i+n], cy, top)
	}
	p[2*n] = top
	c.reduce(z, p[n:2*n+1])
}
