// Package crypto holds the hashing and signature primitives Ethereum is
// built on: keccak256 and recoverable secp256k1 signatures.
//
// Signing and key handling use github.com/decred/dcrd/dcrec/secp256k1.
// The two operations a node runs for every transaction and trie node have
// their own code: HashInto is an allocation-free keccak256, and sender
// recovery (RecoverAddress, RecoverPubkey) uses a 64-bit-limb field with
// amd64 assembly, a GLV/wNAF double multiplication and safegcd inversion
// (see ecrecover.go); both are cross-checked against the libraries in the
// tests.
package crypto

import (
	"errors"
	"hash"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/decred/dcrd/dcrec/secp256k1/v4/ecdsa"
	"golang.org/x/crypto/sha3"
)

// KeccakState is a keccak256 hasher that can also read its digest out
// without allocating.
type KeccakState interface {
	hash.Hash
	Read([]byte) (int, error)
}

// NewKeccak returns a new keccak256 hasher.
func NewKeccak() KeccakState { return sha3.NewLegacyKeccak256().(KeccakState) }

// Keccak256 returns the keccak256 hash of the concatenated inputs.
func Keccak256(data ...[]byte) (h [32]byte) {
	HashInto(&h, data...)
	return h
}

var (
	ErrInvalidSignature  = errors.New("crypto: invalid signature")
	ErrInvalidRecoveryID = errors.New("crypto: invalid recovery id")
	ErrInvalidKey        = errors.New("crypto: invalid private key")
)

// Sign signs a 32-byte digest and returns the signature as R || S || V with
// V in {0, 1}. S is always in the lower half of the curve order (EIP-2).
func Sign(digest [32]byte, key *secp256k1.PrivateKey) [65]byte {
	compact := ecdsa.SignCompact(key, digest[:], false) // [27+v] R S
	var sig [65]byte
	copy(sig[:64], compact[1:])
	sig[64] = compact[0] - 27
	return sig
}

// RecoverPubkey returns the uncompressed public key (65 bytes, 0x04 prefix)
// that produced sig (R || S || V, V in {0, 1}) over digest.
func RecoverPubkey(digest [32]byte, sig []byte) ([]byte, error) {
	x, y, err := recoverPoint(&digest, sig)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 65)
	out[0] = 0x04
	x.putBytes(out[1:33])
	y.putBytes(out[33:])
	return out, nil
}

// RecoverPublicKey is RecoverPubkey returning the key as a value.
func RecoverPublicKey(digest [32]byte, sig []byte) (*secp256k1.PublicKey, error) {
	x, y, err := recoverPoint(&digest, sig)
	if err != nil {
		return nil, err
	}
	var xb, yb [32]byte
	x.putBytes(xb[:])
	y.putBytes(yb[:])
	var fx, fy secp256k1.FieldVal
	fx.SetBytes(&xb)
	fy.SetBytes(&yb)
	return secp256k1.NewPublicKey(&fx, &fy), nil
}

// RecoverAddress returns the address of the key that produced sig over
// digest. It does not allocate.
func RecoverAddress(digest [32]byte, sig []byte) (addr [20]byte, err error) {
	x, y, err := recoverPoint(&digest, sig)
	if err != nil {
		return addr, err
	}
	var xy [64]byte
	x.putBytes(xy[:32])
	y.putBytes(xy[32:])
	var h [32]byte
	HashInto(&h, xy[:])
	copy(addr[:], h[12:])
	return addr, nil
}

// PubkeyToAddress derives the Ethereum address of a public key: the last 20
// bytes of keccak256 of its 64-byte uncompressed form.
func PubkeyToAddress(pub *secp256k1.PublicKey) (addr [20]byte) {
	var j secp256k1.JacobianPoint
	pub.AsJacobian(&j)
	var xy [64]byte
	j.X.PutBytesUnchecked(xy[:32])
	j.Y.PutBytesUnchecked(xy[32:])
	var h [32]byte
	HashInto(&h, xy[:])
	copy(addr[:], h[12:])
	return addr
}

// ToPrivateKey parses a 32-byte private key, rejecting zero and values not
// below the curve order.
func ToPrivateKey(b []byte) (*secp256k1.PrivateKey, error) {
	if len(b) != 32 {
		return nil, ErrInvalidKey
	}
	var s secp256k1.ModNScalar
	if overflow := s.SetByteSlice(b); overflow || s.IsZero() {
		return nil, ErrInvalidKey
	}
	return secp256k1.NewPrivateKey(&s), nil
}
