package kzg

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"math/big"
	"sync"
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

var (
	modulus = new(big.Int).SetBytes(blsModulus[:])

	rootsOnce sync.Once
	rootsBRP  []*big.Int // the 4096th roots of unity, bit-reversed
)

// rootsOfUnity returns the evaluation domain in bit-reversed order. The
// primitive root is 7^((r-1)/4096), 7 generating the multiplicative group.
func rootsOfUnity() []*big.Int {
	rootsOnce.Do(func() {
		exp := new(big.Int).Sub(modulus, big.NewInt(1))
		exp.Div(exp, big.NewInt(FieldElementsPerBlob))
		w := new(big.Int).Exp(big.NewInt(7), exp, modulus)
		roots := make([]*big.Int, FieldElementsPerBlob)
		x := big.NewInt(1)
		for i := range roots {
			roots[i] = new(big.Int).Set(x)
			x.Mul(x, w).Mod(x, modulus)
		}
		rootsBRP = make([]*big.Int, FieldElementsPerBlob)
		for i := range roots {
			rootsBRP[i] = roots[reverseBits(uint32(i), 12)]
		}
	})
	return rootsBRP
}

func reverseBits(x uint32, bits int) uint32 {
	var r uint32
	for i := 0; i < bits; i++ {
		r = r<<1 | x&1
		x >>= 1
	}
	return r
}

// VerifyBlobProof checks that commitment commits to blob and that proof
// opens it at the blob's challenge point.
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
	poly := make([]*big.Int, FieldElementsPerBlob)
	for i := range poly {
		v := (*[32]byte)(blob[32*i : 32*i+32])
		if !belowModulus(v) {
			return ErrBlobFieldElement
		}
		poly[i] = new(big.Int).SetBytes(v[:])
	}
	z := challenge(blob, commitment)
	y := evaluate(poly, z)
	var zb, yb [32]byte
	z.FillBytes(zb[:])
	y.FillBytes(yb[:])
	return VerifyProof(commitment, proof, &zb, &yb)
}

// challenge is hash(domain || degree (16 bytes) || blob || commitment)
// reduced modulo r.
func challenge(blob, commitment []byte) *big.Int {
	h := sha256.New()
	h.Write(fiatShamirDomain)
	var degree [16]byte
	binary.BigEndian.PutUint64(degree[8:], FieldElementsPerBlob)
	h.Write(degree[:])
	h.Write(blob)
	h.Write(commitment)
	z := new(big.Int).SetBytes(h.Sum(nil))
	return z.Mod(z, modulus)
}

// evaluate returns the polynomial with values poly on the domain at z:
// (z^n - 1)/n · Σ poly[i]·ω_i/(z - ω_i), or poly[i] when z is ω_i.
func evaluate(poly []*big.Int, z *big.Int) *big.Int {
	roots := rootsOfUnity()
	n := len(poly)
	den := make([]*big.Int, n)
	for i, w := range roots {
		if z.Cmp(w) == 0 {
			return new(big.Int).Set(poly[i])
		}
		d := new(big.Int).Sub(z, w)
		den[i] = d.Mod(d, modulus)
	}
	inv := batchInverse(den)
	sum := new(big.Int)
	t := new(big.Int)
	for i := range poly {
		t.Mul(poly[i], roots[i])
		t.Mod(t, modulus)
		t.Mul(t, inv[i])
		sum.Add(sum, t)
	}
	sum.Mod(sum, modulus)
	zn := new(big.Int).Exp(z, big.NewInt(int64(n)), modulus)
	zn.Sub(zn, big.NewInt(1))
	sum.Mul(sum, zn)
	sum.Mod(sum, modulus)
	nInv := new(big.Int).ModInverse(big.NewInt(int64(n)), modulus)
	sum.Mul(sum, nInv)
	return sum.Mod(sum, modulus)
}

// batchInverse inverts every (non-zero) element with one modular
// inversion (Montgomery's trick).
func batchInverse(xs []*big.Int) []*big.Int {
	prefix := make([]*big.Int, len(xs))
	acc := big.NewInt(1)
	for i, x := range xs {
		prefix[i] = new(big.Int).Set(acc)
		acc.Mul(acc, x)
		acc.Mod(acc, modulus)
	}
	inv := new(big.Int).ModInverse(acc, modulus)
	out := make([]*big.Int, len(xs))
	for i := len(xs) - 1; i >= 0; i-- {
		out[i] = new(big.Int).Mul(inv, prefix[i])
		out[i].Mod(out[i], modulus)
		inv.Mul(inv, xs[i])
		inv.Mod(inv, modulus)
	}
	return out
}
