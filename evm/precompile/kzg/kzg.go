// Package kzg implements the EIP-4844 point evaluation precompile (address
// 0x0a): it verifies a KZG proof that a blob commitment opens to y at z,
// against the Ethereum KZG ceremony's trusted setup.
package kzg

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"

	"github.com/chaind/chaind/evm/precompile/bls12381"
	"github.com/chaind/chaind/evm/precompile/bls12381/fr"
)

const (
	// InputLength is versioned_hash | z | y | commitment | proof.
	InputLength = 32 + 32 + 32 + 48 + 48
	// Gas is the fixed price of one point evaluation.
	Gas = 50000
	// FieldElementsPerBlob is returned by the precompile on success.
	FieldElementsPerBlob = 4096
	// VersionedHashVersion is the version byte of KZG versioned hashes.
	VersionedHashVersion = 0x01
)

// Errors of the point evaluation precompile; any of them makes the call
// fail and consume its gas.
var (
	ErrInvalidInputLength = errors.New("kzg: invalid input length")
	ErrVersionedHash      = errors.New("kzg: versioned hash does not match the commitment")
	ErrScalarRange        = errors.New("kzg: field element not below the BLS modulus")
	ErrInvalidCommitment  = errors.New("kzg: invalid commitment")
	ErrInvalidProof       = errors.New("kzg: invalid proof encoding")
	ErrVerificationFailed = errors.New("kzg: proof verification failed")
)

// blsModulus is r, the order of G1, big-endian.
var blsModulus = fr.Modulus

// tauG2Hex is [τ]G2 from the ceremony output (g2_monomial[1]), compressed.
const tauG2Hex = "b5bfd7dd8cdeb128843bc287230af38926187075cbfbefa81009a2ce615ac53d" +
	"2914e5870cb452d2afaaab24f3499f72185cbfee53492714734429b7b38608e2" +
	"3926c911cceceac9a36851477ba4c60b087041de621000edc98edada20c1def2"

var (
	// g2Lines and tauLines are the Miller-loop lines of G2 and -[τ]G2,
	// computed once: the precompile only ever pairs against these two.
	g2Lines     *bls12381.G2Prepared
	negTauLines *bls12381.G2Prepared
	g1Gen       = bls12381.G1Generator()
	negG1       = *new(bls12381.G1).Neg(&g1Gen)
)

func init() {
	b, err := hex.DecodeString(tauG2Hex)
	if err != nil {
		panic(err)
	}
	tau, err := bls12381.DecompressG2(b)
	if err != nil {
		panic("kzg: trusted setup point does not decode: " + err.Error())
	}
	tau.Neg(&tau)
	negTauLines = bls12381.PrepareG2(&tau)
	g := bls12381.G2Generator()
	g2Lines = bls12381.PrepareG2(&g)
}

// VersionedHash returns 0x01 || sha256(commitment)[1:].
func VersionedHash(commitment []byte) [32]byte {
	h := sha256.Sum256(commitment)
	h[0] = VersionedHashVersion
	return h
}

// PointEvaluation runs the precompile: on success it returns
// FIELD_ELEMENTS_PER_BLOB and BLS_MODULUS as two 32-byte big-endian words.
func PointEvaluation(input []byte) ([]byte, error) {
	if len(input) != InputLength {
		return nil, ErrInvalidInputLength
	}
	var z, y [32]byte
	copy(z[:], input[32:64])
	copy(y[:], input[64:96])
	commitment := input[96:144]
	proof := input[144:192]
	if vh := VersionedHash(commitment); [32]byte(input[:32]) != vh {
		return nil, ErrVersionedHash
	}
	if err := VerifyProof(commitment, proof, &z, &y); err != nil {
		return nil, err
	}
	out := make([]byte, 64)
	out[30] = FieldElementsPerBlob >> 8
	out[31] = FieldElementsPerBlob & 0xff
	copy(out[32:], blsModulus[:])
	return out, nil
}

// VerifyProof checks that the polynomial committed to by commitment takes
// the value y at z, given the opening proof π:
//
//	e(C - [y]G1, G2) = e(π, [τ]G2 - [z]G2)
//
// evaluated as e(C - [y]G1 + [z]π, G2) · e(π, -[τ]G2) = 1, which moves the
// scalar multiplication to G1 and lets both G2 arguments be precomputed.
func VerifyProof(commitment, proof []byte, z, y *[32]byte) error {
	if !belowModulus(z) || !belowModulus(y) {
		return ErrScalarRange
	}
	c, err := bls12381.DecompressG1(commitment)
	if err != nil {
		return errors.Join(ErrInvalidCommitment, err)
	}
	pi, err := bls12381.DecompressG1(proof)
	if err != nil {
		return errors.Join(ErrInvalidProof, err)
	}
	// C - [y]G1 + [z]π, both products sharing one doubling chain.
	lhs := bls12381.MultiScalarMultSubgroup([]bls12381.G1{negG1, pi}, [][32]byte{*y, *z})
	lhs.Add(&lhs, &c)
	if !bls12381.PairingCheck([]bls12381.G1{lhs, pi}, []*bls12381.G2Prepared{g2Lines, negTauLines}) {
		return ErrVerificationFailed
	}
	return nil
}

func belowModulus(v *[32]byte) bool {
	for i := 0; i < 32; i++ {
		if v[i] != blsModulus[i] {
			return v[i] < blsModulus[i]
		}
	}
	return false
}
