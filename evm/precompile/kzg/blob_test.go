package kzg

import (
	"errors"
	"math/big"
	"testing"

	"github.com/chaind/chaind/evm/precompile/bls12381"
	"github.com/chaind/chaind/evm/precompile/bls12381/fr"
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
	initDomain()
	poly := make([]fr.Element, FieldElementsPerBlob)
	for i := range poly {
		poly[i] = *blobRoot(i)
	}
	var minus2 fr.Element
	minus2.SetUint64(2)
	minus2.Neg(&minus2)
	for _, z := range []fr.Element{*new(fr.Element).SetUint64(3), *new(fr.Element).SetUint64(123456789), minus2} {
		if got := evaluate(poly, &z); got != z {
			t.Fatalf("x at %x evaluates to %x", z.Bytes(), got.Bytes())
		}
	}
	if got := evaluate(poly, blobRoot(17)); got != *blobRoot(17) {
		t.Fatal("evaluation on the domain is not the stored value")
	}
	// ω^8192 = 1 and ω^4096 = -1 (blob domain index 1, bit-reversed): the
	// root is primitive.
	var sum, wrap fr.Element
	one := fr.One()
	sum.Add(blobRoot(1), &one)
	wrap.Mul(&extRoots[FieldElementsPerExtBlob-1], &extRoots[1])
	if !sum.IsZero() || wrap != one {
		t.Fatal("ω is not a primitive 8192nd root of unity")
	}
}

// Real blob proofs (go-eth-kzg's, in testdata/cell_proofs.hex) verify, and
// fail with a bit of the blob, the commitment or the proof flipped, or
// with another blob's proof.
func TestVerifyBlobProofBenchSet(t *testing.T) {
	s := cellBenchSet(t, 6)
	for b := range s.blobs {
		if err := VerifyBlobProof(s.blobs[b], s.commitments[b], s.blobProofs[b]); err != nil {
			t.Fatalf("blob %d: %v", b, err)
		}
	}
	for _, f := range []struct {
		blob int
		at   *byte
	}{{1, &s.blobs[1][4095*32+31]}, {2, &s.commitments[2][47]}, {3, &s.blobProofs[3][47]}} {
		*f.at ^= 1
		if VerifyBlobProof(s.blobs[f.blob], s.commitments[f.blob], s.blobProofs[f.blob]) == nil {
			t.Errorf("blob %d accepted with a flipped bit", f.blob)
		}
		*f.at ^= 1
	}
	if err := VerifyBlobProof(s.blobs[0], s.commitments[0], s.blobProofs[1]); !errors.Is(err, ErrVerificationFailed) {
		t.Errorf("another blob's proof: %v", err)
	}
}

func BenchmarkVerifyBlobProof(b *testing.B) {
	s := cellBenchSet(b, 1)
	for i := 0; i < b.N; i++ {
		if err := VerifyBlobProof(s.blobs[0], s.commitments[0], s.blobProofs[0]); err != nil {
			b.Fatal(err)
		}
	}
}
