//go:build !amd64 || purego

package bls12381

// mul sets z = x*y*R^-1 mod p, fully reduced, for x, y below 2p. z may
// alias x or y.
func mul(z, x, y *fe) { mulGeneric(z, x, y) }
