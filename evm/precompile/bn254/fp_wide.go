package bn254

import "math/bits"

// Wide (512-bit) products and Montgomery reduction, so that Fp2
// multiplication can combine three products with only two reductions.

// wide is an unreduced 512-bit product, little-endian limbs.
type wide [8]uint64

// wideSub sets t = a - b, adding p·2^256 if the difference is negative
// (inputs below p², so the result stays below p·2^256).
func wideSub(t, a, b *wide) {
	var c uint64
	t[0], c = bits.Sub64(a[0], b[0], 0)
	t[1], c = bits.Sub64(a[1], b[1], c)
	t[2], c = bits.Sub64(a[2], b[2], c)
	t[3], c = bits.Sub64(a[3], b[3], c)
	t[4], c = bits.Sub64(a[4], b[4], c)
	t[5], c = bits.Sub64(a[5], b[5], c)
	t[6], c = bits.Sub64(a[6], b[6], c)
	t[7], c = bits.Sub64(a[7], b[7], c)
	if c != 0 {
		t[4], c = bits.Add64(t[4], p0, 0)
		t[5], c = bits.Add64(t[5], p1, c)
		t[6], c = bits.Add64(t[6], p2, c)
		t[7], _ = bits.Add64(t[7], p3, c)
	}
}

// wideSubNoBorrow sets t = a - b where a >= b is known.
func wideSubNoBorrow(t, a, b *wide) {
	var c uint64
	t[0], c = bits.Sub64(a[0], b[0], 0)
	t[1], c = bits.Sub64(a[1], b[1], c)
	t[2], c = bits.Sub64(a[2], b[2], c)
	t[3], c = bits.Sub64(a[3], b[3], c)
	t[4], c = bits.Sub64(a[4], b[4], c)
	t[5], c = bits.Sub64(a[5], b[5], c)
	t[6], c = bits.Sub64(a[6], b[6], c)
	t[7], _ = bits.Sub64(a[7], b[7], c)
}

// addNoReduce sets z = x + y without reduction (x, y < p, so z < 2^255).
func addNoReduce(z, x, y *fe) {
	var c uint64
	z[0], c = bits.Add64(x[0], y[0], 0)
	z[1], c = bits.Add64(x[1], y[1], c)
	z[2], c = bits.Add64(x[2], y[2], c)
	z[3], _ = bits.Add64(x[3], y[3], c)
}
