package kzg

import (
	"errors"
	"math/big"
	"testing"

	"github.com/chaind/chaind/evm/precompile/bls12381"
)

// constantBlob holds c at every point: the constant polynomial c, whose
// commitment is [c]G1 and whose opening proof anywhere is the point at
// infinity (the quotient is zero).
func constantBlob(c uint64) (blob, commitment, proof []byte) {
	blob = make([]byte, BlobLength)
	var k [32]byte
	new(big.Int).SetUint64(c).FillBytes(k[:])
	for i := 0; i < FieldElementsPerBlob; i++ {
		copy(blob[32*i:], k[:])
	}
	g := bls12381.G1Generator()
	var cg bls12381.G1
	cg.ScalarMult(&g, &k)
	cc := bls12381.CompressG1(&cg)
	inf := make([]byte, 48)
	inf[0] = 0xc0
	return blob, cc[:], inf
}

func TestVerifyBlobProof(t *testing.T) {
	zero, zc, zp := constantBlob(0)
	five, fc, fp := constantBlob(5)
	_, sixC, _ := constantBlob(6)
	gen := bls12381.G1Generator()
	g := bls12381.CompressG1(&gen)
	outside := append([]byte(nil), five...)
	copy(outside[:32], blsModulus[:])
	for _, tc := range []struct {
		name                    string
		blob, commitment, proof []byte
		want                    error
	}{
		{"zero blob", zero, zc, zp, nil},
		{"constant blob", five, fc, fp, nil},
		{"commitment to another blob", five, sixC, fp, ErrVerificationFailed},
		{"wrong proof", five, fc, g[:], ErrVerificationFailed},
		{"value not below the modulus", outside, fc, fp, ErrBlobFieldElement},
		{"short blob", five[:100], fc, fp, ErrBlobLength},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := VerifyBlobProof(tc.blob, tc.commitment, tc.proof)
			if tc.want == nil && err != nil || tc.want != nil && !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
}

// The barycentric evaluation agrees with the values it interpolates and
// with a polynomial evaluated directly: x itself, whose values on the
// domain are the roots.
func TestEvaluate(t *testing.T) {
	roots := rootsOfUnity()
	poly := make([]*big.Int, FieldElementsPerBlob)
	for i := range poly {
		poly[i] = new(big.Int).Set(roots[i])
	}
	for _, z := range []*big.Int{big.NewInt(3), big.NewInt(123456789), new(big.Int).Sub(modulus, big.NewInt(2))} {
		if got := evaluate(poly, z); got.Cmp(z) != 0 {
			t.Fatalf("x at %s evaluates to %s", z, got)
		}
	}
	if got := evaluate(poly, roots[17]); got.Cmp(roots[17]) != 0 {
		t.Fatal("evaluation on the domain is not the stored value")
	}
	// ω^4096 = 1 and ω^2048 = -1: the root is primitive.
	w := roots[1] // bit-reversed index 1 is ω^2048
	if new(big.Int).Mod(new(big.Int).Add(w, big.NewInt(1)), modulus).Sign() != 0 {
		t.Fatal("ω^2048 is not -1")
	}
}
