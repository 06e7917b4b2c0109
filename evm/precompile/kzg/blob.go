package kzg

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"

	"github.com/chaind/chaind/evm/precompile/bls12381/fr"
)

// Blob proofs (EIP-4844's verify_blob_kzg_proof): a blob is a polynomial
// given by its values at the 4096th roots of unity (in bit-reversed
// order); its proof opens the commitment at a challenge point derived from
// the blob and the commitment by Fiat-Shamir, and checking it takes one
// evaluation of the polynomial there (barycentric formula) and one point
// evaluation check.

// BlobLength is the size of a blob in bytes.
const BlobLength = FieldElementsPerBlob * 32

// Errors of blob proof verification.
var (
	ErrBlobLength       = errors.New("kzg: blob is not 131072 bytes")
	ErrBlobFieldElement = errors.New("kzg: blob holds a value not below the BLS modulus")
)

// fiatShamirDomain separates blob challenges from every other use of the
// hash.
var fiatShamirDomain = []byte("FSBLOBVERIFY_V1_")

// VerifyBlobProof checks that commitment commits to blob and that proof
// opens it at the blob's challenge point (verify_blob_kzg_proof).
func VerifyBlobProof(blob, commitment, proof []byte) error {
	if len(blob) != BlobLength {
		return ErrBlobLength
	}
	if len(commitment) != 48 {
		return ErrInvalidCommitment
	}
	if len(proof) != 48 {
		return ErrInvalidProof
	}
	initDomain()
	// blob_to_polynomial
	poly := make([]fr.Element, FieldElementsPerBlob)
	for i := range poly {
		if !poly[i].SetBytes((*[32]byte)(blob[32*i : 32*i+32])) {
			return ErrBlobFieldElement
		}
	}
	z := challenge(blob, commitment)
	y := evaluate(poly, &z)
	zb, yb := z.Bytes(), y.Bytes()
	return VerifyProof(commitment, proof, &zb, &yb)
}

// challenge is compute_challenge: hash(domain || degree (16 bytes) || blob
// || commitment) reduced modulo r.
func challenge(blob, commitment []byte) fr.Element {
	h := sha256.New()
	h.Write(fiatShamirDomain)
	var degree [16]byte
	binary.BigEndian.PutUint64(degree[8:], FieldElementsPerBlob)
	h.Write(degree[:])
	h.Write(blob)
	h.Write(commitment)
	var z fr.Element
	z.SetBytesReduce((*[32]byte)(h.Sum(nil)))
	return z
}

// evaluate is evaluate_polynomial_in_evaluation_form: the polynomial with
// values poly on the blob domain (bit-reversed), at z, by the barycentric
// formula (z^n - 1)/n · Σ poly[i]·ω_i/(z - ω_i), or poly[i] when z is ω_i.
func evaluate(poly []fr.Element, z *fr.Element) fr.Element {
	n := len(poly)
	den := make([]fr.Element, n)
	for i := range den {
		w := blobRoot(i)
		if z.Equal(w) {
			return poly[i]
		}
		den[i].Sub(z, w)
	}
	fr.BatchInverse(den)
	var sum, t fr.Element
	for i := range poly {
		t.Mul(&poly[i], blobRoot(i))
		t.Mul(&t, &den[i])
		sum.Add(&sum, &t)
	}
	zn := *z // z^4096 by twelve squarings
	for i := 0; i < 12; i++ {
		zn.Square(&zn)
	}
	one := fr.One()
	zn.Sub(&zn, &one)
	sum.Mul(&sum, &zn)
	return *sum.Mul(&sum, &invPow2[12])
}
