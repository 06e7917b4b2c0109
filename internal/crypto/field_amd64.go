//go:build amd64 && !purego

package crypto

// The Go compiler schedules all sixteen 64×64 multiplies of a field product
// ahead of the carry chains and spills most of them; the assembly version
// (product scanning with a three-register accumulator) needs half the
// instructions. It uses only baseline amd64 instructions (MULQ/ADCQ).

//go:noescape
func feMulAsm(z, x, y *fe)

//go:noescape
func feSqrAsm(z, x *fe)

// mul sets z = x·y.
func (z *fe) mul(x, y *fe) { feMulAsm(z, x, y) }

// sqr sets z = x².
func (z *fe) sqr(x *fe) { feSqrAsm(z, x) }
