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

// The Fp2 layer in assembly: one call per Fp2 operation instead of
// several Fp calls plus Go glue. Additions need only baseline amd64.

//go:noescape
func fe2AddAsm(z, x, y *fe2)

//go:noescape
func fe2SubAsm(z, x, y *fe2)

//go:noescape
func fe2DoubleAsm(z, x *fe2)

//go:noescape
func fe2MulXiAsm(z, x *fe2)

//go:noescape
func fe2MulADX(z, x, y *fe2)

//go:noescape
func fe2SquareADX(z, x *fe2)

func fe2Add(z, x, y *fe2) { fe2AddAsm(z, x, y) }

func fe2Sub(z, x, y *fe2) { fe2SubAsm(z, x, y) }

func fe2Double(z, x *fe2) { fe2DoubleAsm(z, x) }

// fe2MulXi multiplies by the non-residue ξ = 9 + i.
func fe2MulXi(z, x *fe2) { fe2MulXiAsm(z, x) }

func fe2Mul(z, x, y *fe2) {
	if useADX {
		fe2MulADX(z, x, y)
		return
	}
	fe2MulGeneric(z, x, y)
}

func fe2Square(z, x *fe2) {
	if useADX {
		fe2SquareADX(z, x)
		return
	}
	fe2SquareGeneric(z, x)
}
