//go:build amd64 && !purego

package crypto

// The Go compiler schedules all sixteen 64×64 multiplies of a field product
// ahead of the carry chains and spills most of them; the assembly version
// (product scanning with a three-register accumulator) needs half the
// instructions. feMulAsm and feSqrAsm use only baseline amd64 (MULQ/ADCQ);
// feMulADX needs BMI2 and ADX and is chosen at init when CPUID has them.

//go:noescape
func feMulAsm(z, x, y *fe)

//go:noescape
func feSqrAsm(z, x *fe)

//go:noescape
func feMulADX(z, x, y *fe)

//go:noescape
func feSqrADX(z, x *fe)

func cpuHasADX() bool

// useADX selects the MULX/ADCX/ADOX multiply where the CPU has it.
var useADX = cpuHasADX()

// mul sets z = x·y.
func (z *fe) mul(x, y *fe) {
	if useADX {
		feMulADX(z, x, y)
		return
	}
	feMulAsm(z, x, y)
}

// sqr sets z = x².
func (z *fe) sqr(x *fe) {
	if useADX {
		feSqrADX(z, x)
		return
	}
	feSqrAsm(z, x)
}
