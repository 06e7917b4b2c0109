//go:build !amd64 || purego

package bn254

// feMul sets z = x·y·2^-256 mod p (Montgomery multiplication).
func feMul(z, x, y *fe) { feMulGeneric(z, x, y) }

// mulWide sets t = x·y without reduction.
func mulWide(t *wide, x, y *fe) { mulWideGeneric(t, x, y) }

// montReduce sets z = t·2^-256 mod p for t < p·2^256, fully reduced.
func montReduce(z *fe, t *wide) { montReduceGeneric(z, t) }

func fe2Add(z, x, y *fe2) { fe2AddGeneric(z, x, y) }

func fe2Sub(z, x, y *fe2) { fe2SubGeneric(z, x, y) }

func fe2Double(z, x *fe2) { fe2DoubleGeneric(z, x) }

// fe2MulXi multiplies by the non-residue ξ = 9 + i.
func fe2MulXi(z, x *fe2) { fe2MulXiGeneric(z, x) }

func fe2Mul(z, x, y *fe2) { fe2MulGeneric(z, x, y) }

func fe2Square(z, x *fe2) { fe2SquareGeneric(z, x) }
