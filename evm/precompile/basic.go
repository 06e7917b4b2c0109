package precompile

import (
	"crypto/sha256"

	"github.com/chaind/chaind/internal/crypto"
)

// secp256k1 group order n, big-endian. r and s must lie in [1, n-1].
var secp256k1N = [32]byte{
	0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe,
	0xba, 0xae, 0xdc, 0xe6, 0xaf, 0x48, 0xa0, 0x3b, 0xbf, 0xd2, 0x5e, 0x8c, 0xd0, 0x36, 0x41, 0x41,
}

// ecrecover (0x01) recovers the signer's address of a secp256k1 signature.
// Input: hash || v || r || s, 32 bytes each, zero-padded to 128 bytes.
type ecrecover struct{}

func (ecrecover) RequiredGas([]byte) uint64 { return 3000 }

func (ecrecover) Run(input []byte) ([]byte, error) {
	var in [128]byte
	copy(in[:], input)
	// v is a full word that must equal 27 or 28.
	for _, b := range in[32:63] {
		if b != 0 {
			return nil, nil
		}
	}
	v := in[63]
	if v != 27 && v != 28 {
		return nil, nil
	}
	if !scalarInRange(in[64:96], &secp256k1N) || !scalarInRange(in[96:128], &secp256k1N) {
		return nil, nil
	}
	var sig [65]byte
	copy(sig[:64], in[64:128])
	sig[64] = v - 27
	var digest [32]byte
	copy(digest[:], in[:32])
	addr, err := crypto.RecoverAddress(digest, sig[:])
	if err != nil {
		return nil, nil
	}
	out := make([]byte, 32)
	copy(out[12:], addr[:])
	return out, nil
}

// scalarInRange reports whether the 32-byte big-endian x satisfies 0 < x < n.
func scalarInRange(x []byte, n *[32]byte) bool {
	zero := true
	for _, b := range x {
		if b != 0 {
			zero = false
			break
		}
	}
	if zero {
		return false
	}
	for i := range 32 {
		if x[i] != n[i] {
			return x[i] < n[i]
		}
	}
	return false // x == n
}

// sha256Hash (0x02).
type sha256Hash struct{}

func (sha256Hash) RequiredGas(input []byte) uint64 { return 60 + 12*words(len(input)) }

func (c sha256Hash) Run(input []byte) ([]byte, error) { return runFresh(c, input) }

func (sha256Hash) RunInto(s *Scratch, input []byte) ([]byte, error) {
	s.out = sha256.Sum256(input)
	return s.out[:], nil
}

// ripemd160Hash (0x03) returns the 20-byte digest left-padded to 32 bytes.
type ripemd160Hash struct{}

func (ripemd160Hash) RequiredGas(input []byte) uint64 { return 600 + 120*words(len(input)) }

func (c ripemd160Hash) Run(input []byte) ([]byte, error) { return runFresh(c, input) }

func (ripemd160Hash) RunInto(s *Scratch, input []byte) ([]byte, error) {
	d := crypto.Ripemd160(input)
	s.out = [32]byte{}
	copy(s.out[12:], d[:])
	return s.out[:], nil
}

// identity (0x04) returns its input.
type identity struct{}

func (identity) RequiredGas(input []byte) uint64 { return 15 + 3*words(len(input)) }

func (identity) Run(input []byte) ([]byte, error) {
	// A copy, so the caller may hand out input and output independently.
	return append([]byte(nil), input...), nil
}
