package bn254

import "errors"

// Errors for malformed precompile input.
var (
	ErrFieldElement  = errors.New("bn254: coordinate not below the field modulus")
	ErrNotOnCurve    = errors.New("bn254: point not on curve")
	ErrNotInSubgroup = errors.New("bn254: G2 point not in the prime-order subgroup")
	ErrPairingLength = errors.New("bn254: pairing input length not a multiple of 192")
)

// Encoded sizes (EIP-196/197).
const (
	fieldLen    = 32
	g1Len       = 2 * fieldLen
	g2Len       = 4 * fieldLen
	pairLen     = g1Len + g2Len
	addInputLen = 2 * g1Len
	mulInputLen = g1Len + 32
)

// decodeG1 reads a G1 point: x || y, 32-byte big-endian each; (0, 0) is
// the point at infinity.
func decodeG1(p *g1Aff, in []byte) error {
	if !feFromBytes(&p.x, in[0:32]) || !feFromBytes(&p.y, in[32:64]) {
		return ErrFieldElement
	}
	if p.x.isZero() && p.y.isZero() {
		p.inf = true
		return nil
	}
	p.inf = false
	if !p.onCurve() {
		return ErrNotOnCurve
	}
	return nil
}

// decodeG2 reads a G2 point. EIP-197 writes an Fp2 element a·i + b as
// a || b, imaginary part first: x_i || x_r || y_i || y_r.
func decodeG2(p *g2Aff, in []byte) error {
	if !feFromBytes(&p.x.c1, in[0:32]) || !feFromBytes(&p.x.c0, in[32:64]) ||
		!feFromBytes(&p.y.c1, in[64:96]) || !feFromBytes(&p.y.c0, in[96:128]) {
		return ErrFieldElement
	}
	if p.x.isZero() && p.y.isZero() {
		p.inf = true
		return nil
	}
	p.inf = false
	if !p.onCurve() {
		return ErrNotOnCurve
	}
	if !p.inSubgroup() {
		return ErrNotInSubgroup
	}
	return nil
}

func encodeG1(p *g1Jac) []byte {
	out := make([]byte, g1Len)
	var a g1Aff
	p.toAffine(&a)
	if !a.inf {
		feToBytes(out[0:32], &a.x)
		feToBytes(out[32:64], &a.y)
	}
	return out
}

// padInput returns in extended with zeros (or cut) to n bytes, as the EIPs
// read missing input as zeros and ignore extra bytes.
func padInput(in []byte, n int) []byte {
	if len(in) >= n {
		return in[:n]
	}
	out := make([]byte, n)
	copy(out, in)
	return out
}

// Add implements precompile 0x06: the sum of two G1 points.
func Add(input []byte) ([]byte, error) {
	in := padInput(input, addInputLen)
	var a, b g1Aff
	if err := decodeG1(&a, in[0:64]); err != nil {
		return nil, err
	}
	if err := decodeG1(&b, in[64:128]); err != nil {
		return nil, err
	}
	var ja, jb g1Jac
	ja.fromAffine(&a)
	jb.fromAffine(&b)
	ja.add(&ja, &jb)
	return encodeG1(&ja), nil
}

// ScalarMul implements precompile 0x07: a G1 point times a 256-bit
// scalar.
func ScalarMul(input []byte) ([]byte, error) {
	in := padInput(input, mulInputLen)
	var a g1Aff
	if err := decodeG1(&a, in[0:64]); err != nil {
		return nil, err
	}
	var k [32]byte
	copy(k[:], in[64:96])
	var j g1Jac
	j.fromAffine(&a)
	j.scalarMul(&j, &k)
	return encodeG1(&j), nil
}

// PairingCheck implements precompile 0x08: it returns the 32-byte word 1
// if the product of the pairings of all (G1, G2) pairs is one, else 0.
// Empty input is the empty product: 1.
func PairingCheck(input []byte) ([]byte, error) {
	if len(input)%pairLen != 0 {
		return nil, ErrPairingLength
	}
	n := len(input) / pairLen
	pairs := make([]millerPair, 0, n)
	for i := range n {
		in := input[i*pairLen:]
		var p g1Aff
		var q g2Aff
		if err := decodeG1(&p, in[0:g1Len]); err != nil {
			return nil, err
		}
		if err := decodeG2(&q, in[g1Len:pairLen]); err != nil {
			return nil, err
		}
		// A pair with either point at infinity contributes 1, but both
		// points are still validated above.
		if p.inf || q.inf {
			continue
		}
		pairs = append(pairs, millerPair{xP: p.x, yP: p.y, q: q})
	}
	out := make([]byte, 32)
	if pairingIsOne(pairs) {
		out[31] = 1
	}
	return out, nil
}

func pairingIsOne(pairs []millerPair) bool {
	if len(pairs) == 0 {
		return true
	}
	f := millerLoop(pairs)
	// When the easy part already gives 1, so does the hard part: this
	// happens whenever the Miller values cancel up to conjugation, e.g.
	// for e(P, Q)·e(-P, Q), and skips about a third of the work.
	finalExpEasy(&f, &f)
	if f.isOne() {
		return true
	}
	finalExpHard(&f, &f)
	return f.isOne()
}
