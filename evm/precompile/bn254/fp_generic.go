//go:build !amd64 || purego

package bn254

// feMul sets z = x·y·2^-256 mod p (Montgomery multiplication).
func feMul(z, x, y *fe) { feMulGeneric(z, x, y) }

// mulWide sets t = x·y without reduction.
func mulWide(t *wide, x, y *fe) { mulWideGeneric(t, x, y) }

// montReduce sets z = t·2^-256 mod p for t < p·2^256, fully reduced.
func montReduce(z *fe, t *wide) { montReduceGeneric(z, t) }
