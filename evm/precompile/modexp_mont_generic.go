//go:build !amd64 || purego

package precompile

func (c *montCtx) mul(z, x, y []uint64) { c.mulGeneric(z, x, y) }

func (c *montCtx) sqr(z, x, p []uint64) { c.sqrGeneric(z, x, p) }

func montLongExpMaxWords() int { return 16 }
