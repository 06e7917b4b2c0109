//go:build amd64 && !purego

package precompile

// montMulAsm is the Montgomery multiplication of montCtx.mulGeneric with
// the carry chains in ADC instead of the compiler's SBB/NEG sequences and
// without spills; it leaves t (n+1 words) unreduced.
//
//go:noescape
func montMulAsm(t, x, y, m *uint64, n int, minv uint64)

// mul sets z = x·y·R⁻¹ mod m for x < R, y < m; z may alias x or y.
func (c *montCtx) mul(z, x, y []uint64) {
	n := len(c.m)
	t := c.t[:n+1]
	montMulAsm(&t[0], &x[:n][0], &y[:n][0], &c.m[0], n, c.minv)
	c.reduce(z, t)
}

// sqr sets z = x²·R⁻¹ mod m; p is unused scratch kept for the generic
// signature.
func (c *montCtx) sqr(z, x, p []uint64) { c.mul(z, x, x) }
