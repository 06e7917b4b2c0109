//go:build !amd64 || purego

package crypto

// mul sets z = x·y.
func (z *fe) mul(x, y *fe) { z.mulGeneric(x, y) }

// sqr sets z = x².
func (z *fe) sqr(x *fe) { z.sqrGeneric(x) }
