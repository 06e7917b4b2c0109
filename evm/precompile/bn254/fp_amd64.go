//go:build amd64 && !purego

package bn254

// The pure-Go field multiplication lets the compiler schedule sixteen
// 64×64 products with long carry chains and many spills; the assembly
// versions use MULX with the two carry flags of ADX and are about twice
// as fast. They need BMI2 and ADX, so CPUs without them keep the Go code.

//go:noescape
func feMulADX(z, x, y *fe)

//go:noescape
func mulWideADX(t *wide, x, y *fe)

//go:noescape
func montReduceADX(z *fe, t *wide)

func cpuHasADX() bool

var useADX = cpuHasADX()

// feMul sets z = x·y·2^-256 mod p (Montgomery multiplication).
func feMul(z, x, y *fe) {
	if useADX {
		feMulADX(z, x, y)
		return
	}
	feMulGeneric(z, x, y)
}

// mulWide sets t = x·y without reduction.
func mulWide(t *wide, x, y *fe) {
	if useADX {
		mulWideADX(t, x, y)
		return
	}
	mulWideGeneric(t, x, y)
}

// montReduce sets z = t·2^-256 mod p for t < p·2^256, fully reduced.
func montReduce(z *fe, t *wide) {
	if useADX {
		montReduceADX(z, t)
		return
	}
	montReduceGeneric(z, t)
}
