package precompile

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"math/big"
)

// p256Verify (0x100, EIP-7951) verifies an ECDSA signature over the NIST
// P-256 curve. Input (160 bytes): hash || r || s || qx || qy. A valid
// signature returns the word 1; anything else, including a wrong input
// length, is a successful call with empty output.
type p256Verify struct{}

const p256VerifyGas = 6900

func (p256Verify) RequiredGas([]byte) uint64 { return p256VerifyGas }

var (
	p256Params = elliptic.P256().Params()
	p256True   = func() []byte { b := make([]byte, 32); b[31] = 1; return b }()
)

func (p256Verify) Run(input []byte) ([]byte, error) {
	if len(input) != 160 {
		return nil, nil
	}
	r := new(big.Int).SetBytes(input[32:64])
	s := new(big.Int).SetBytes(input[64:96])
	x := new(big.Int).SetBytes(input[96:128])
	y := new(big.Int).SetBytes(input[128:160])
	n, p := p256Params.N, p256Params.P
	if r.Sign() == 0 || r.Cmp(n) >= 0 || s.Sign() == 0 || s.Cmp(n) >= 0 {
		return nil, nil
	}
	// The point must be an affine point of the curve; (0,0), the usual
	// encoding of infinity, is not on it.
	if x.Cmp(p) >= 0 || y.Cmp(p) >= 0 || !p256Params.IsOnCurve(x, y) {
		return nil, nil
	}
	pub := &ecdsa.PublicKey{Curve: elliptic.P256(), X: x, Y: y}
	// The hash is used whole: it is exactly as long as the group order.
	if !ecdsa.Verify(pub, input[:32], r, s) {
		return nil, nil
	}
	return append([]byte(nil), p256True...), nil
}
