//go:build amd64 && !purego

package crypto

import (
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestFieldAsmVariants checks every assembly routine, not just the one the
// CPU dispatch picks.
func TestFieldAsmVariants(t *testing.T) {
	t.Logf("useADX = %v", useADX)
	rng := rand.New(rand.NewPCG(13, 14))
	for i := 0; i < 20000; i++ {
		x, y := randFe(rng), randFe(rng)
		bx, by := feToBig(&x), feToBig(&y)
		var z fe
		feMulAsm(&z, &x, &y)
		checkFe(t, "feMulAsm", &z, new(big.Int).Mul(bx, by), &x, &y)
		feSqrAsm(&z, &x)
		checkFe(t, "feSqrAsm", &z, new(big.Int).Mul(bx, bx), &x)
		if useADX {
			feMulADX(&z, &x, &y)
			checkFe(t, "feMulADX", &z, new(big.Int).Mul(bx, by), &x, &y)
			feMulADX(&z, &x, &x)
			checkFe(t, "feMulADX sqr", &z, new(big.Int).Mul(bx, bx), &x)
			feSqrADX(&z, &x)
			checkFe(t, "feSqrADX", &z, new(big.Int).Mul(bx, bx), &x)
			z = x
			feSqrADX(&z, &z)
			checkFe(t, "feSqrADX alias", &z, new(big.Int).Mul(bx, bx), &x)
			// Aliasing: z is also an input.
			z = x
			feMulADX(&z, &z, &y)
			checkFe(t, "feMulADX alias", &z, new(big.Int).Mul(bx, by), &x, &y)
		}
	}
}
