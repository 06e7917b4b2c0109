package bls12381

import "errors"

// The compressed point encoding of the Zcash BLS12-381 serialization, which
// EIP-4844 uses for KZG commitments and proofs: x big-endian (for G2 the
// imaginary part first) with three flag bits in the top of the first byte —
// 0x80 compressed, 0x40 point at infinity, 0x20 y is the larger root.

const (
	flagCompressed = 0x80
	flagInfinity   = 0x40
	flagLargerY    = 0x20
)

// Errors of the compressed encoding.
var (
	ErrCompressedFlags = errors.New("bls12381: invalid compressed point flags")
	ErrNoSquareRoot    = errors.New("bls12381: x is not the abscissa of a curve point")
)

// DecompressG1 decodes a 48-byte compressed G1 point and checks that it lies
// in the prime-order subgroup.
func DecompressG1(in []byte) (G1, error) {
	var p G1
	if len(in) != 48 {
		return p, ErrInvalidLength
	}
	flags := in[0] & 0xe0
	if flags&flagCompressed == 0 {
		return p, ErrCompressedFlags
	}
	var buf [48]byte
	copy(buf[:], in)
	buf[0] &= 0x1f
	if flags&flagInfinity != 0 {
		if flags&flagLargerY != 0 || !allZero(buf[:]) {
			return p, ErrCompressedFlags
		}
		return p, nil
	}
	var x, y, rhs fe
	if !x.setBytes(buf[:]) {
		return p, ErrFieldElementRange
	}
	square(&rhs, &x)
	mul(&rhs, &rhs, &x)
	var b fe
	b.setUint(4)
	add(&rhs, &rhs, &b)
	if !sqrt(&y, &rhs) {
		return p, ErrNoSquareRoot
	}
	if isLexLarger(&y) != (flags&flagLargerY != 0) {
		neg(&y, &y)
	}
	p.setAffine(&x, &y)
	if !p.InSubgroup() {
		return G1{}, ErrNotInSubgroup
	}
	return p, nil
}

// CompressG1 encodes p in 48 bytes.
func CompressG1(p *G1) [48]byte {
	var out [48]byte
	x, y, ok := p.affine()
	if !ok {
		out[0] = flagCompressed | flagInfinity
		return out
	}
	x.putBytes(out[:])
	out[0] |= flagCompressed
	if isLexLarger(&y) {
		out[0] |= flagLargerY
	}
	return out
}

// DecompressG2 decodes a 96-byte compressed G2 point and checks that it lies
// in the prime-order subgroup.
func DecompressG2(in []byte) (G2, error) {
	var p G2
	if len(in) != 96 {
		return p, ErrInvalidLength
	}
	flags := in[0] & 0xe0
	if flags&flagCompressed == 0 {
		return p, ErrCompressedFlags
	}
	var buf [96]byte
	copy(buf[:], in)
	buf[0] &= 0x1f
	if flags&flagInfinity != 0 {
		if flags&flagLargerY != 0 || !allZero(buf[:]) {
			return p, ErrCompressedFlags
		}
		return p, nil
	}
	var x, y, rhs, b fe2
	if !x[1].setBytes(buf[:48]) || !x[0].setBytes(buf[48:]) {
		return p, ErrFieldElementRange
	}
	square2(&rhs, &x)
	mul2(&rhs, &rhs, &x)
	b.setOne()
	mulByB2(&b, &b)
	add2(&rhs, &rhs, &b)
	if !sqrt2(&y, &rhs) {
		return p, ErrNoSquareRoot
	}
	if isLexLarger2(&y) != (flags&flagLargerY != 0) {
		neg2(&y, &y)
	}
	p.setAffine(&x, &y)
	if !p.InSubgroup() {
		return G2{}, ErrNotInSubgroup
	}
	return p, nil
}

// CompressG2 encodes p in 96 bytes.
func CompressG2(p *G2) [96]byte {
	var out [96]byte
	x, y, ok := p.affine()
	if !ok {
		out[0] = flagCompressed | flagInfinity
		return out
	}
	x[1].putBytes(out[:48])
	x[0].putBytes(out[48:])
	out[0] |= flagCompressed
	if isLexLarger2(&y) {
		out[0] |= flagLargerY
	}
	return out
}

func allZero(b []byte) bool {
	for _, v := range b {
		if v != 0 {
			return false
		}
	}
	return true
}
