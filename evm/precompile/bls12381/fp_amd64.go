//go:build amd64 && !purego

package bls12381

// The Go multiplication leaves the compiler to schedule 72 products with
// long carry chains and many spills. The assembly uses MULX and the two
// independent carry flags of ADX (ADCX on CF, ADOX on OF), so the low and
// high halves of each row of products go into separate chains; CPUs
// without BMI2 and ADX keep the Go code.

//go:noescape
func mulADX(z, x, y *fe)

func cpuHasADX() bool

var useADX = cpuHasADX()

// mul sets z = x*y*R^-1 mod p, fully reduced, for x, y below 2p. z may
// alias x or y.
func mul(z, x, y *fe) {
	if useADX {
		mulADX(z, x, y)
		return
	}
	mulGeneric(z, x, y)
}
