package crypto

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// ErrInvalidPubkey reports bytes that are not a point on secp256k1.
var ErrInvalidPubkey = errors.New("crypto: invalid public key")

// GenerateKey returns a new private key drawn from crypto/rand.
func GenerateKey() (*secp256k1.PrivateKey, error) { return GenerateKeyFrom(rand.Reader) }

// GenerateKeyFrom draws a private key from r, retrying the (astronomically
// rare) draws that are zero or not below the curve order rather than reducing
// them, so that every valid key is equally likely.
func GenerateKeyFrom(r io.Reader) (*secp256k1.PrivateKey, error) {
	var b [32]byte
	for {
		if _, err := io.ReadFull(r, b[:]); err != nil {
			return nil, fmt.Errorf("crypto: reading randomness: %w", err)
		}
		k, err := ToPrivateKey(b[:])
		clear(b[:])
		if err == nil {
			return k, nil
		}
	}
}

// FromPrivateKey returns the 32-byte big-endian form of a private key.
func FromPrivateKey(k *secp256k1.PrivateKey) []byte {
	b := k.Key.Bytes()
	return b[:]
}

// PrivateKeyFromHex parses a private key written as 64 hex digits, with or
// without a 0x prefix.
func PrivateKeyFromHex(s string) (*secp256k1.PrivateKey, error) {
	b, err := decodeHex(s)
	if err != nil || len(b) != 32 {
		return nil, fmt.Errorf("%w: want 32 hex-encoded bytes", ErrInvalidKey)
	}
	return ToPrivateKey(b)
}

// PrivateKeyHex renders a private key as 0x followed by 64 lower-case hex digits.
func PrivateKeyHex(k *secp256k1.PrivateKey) string {
	return "0x" + hex.EncodeToString(FromPrivateKey(k))
}

// FromPubkey returns the 65-byte uncompressed form (0x04 || X || Y).
func FromPubkey(p *secp256k1.PublicKey) []byte { return p.SerializeUncompressed() }

// UnmarshalPubkey parses a 65-byte uncompressed public key and checks that it
// lies on the curve.
func UnmarshalPubkey(b []byte) (*secp256k1.PublicKey, error) {
	if len(b) != 65 || b[0] != 0x04 {
		return nil, fmt.Errorf("%w: want 65 bytes starting with 0x04", ErrInvalidPubkey)
	}
	p, err := secp256k1.ParsePubKey(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidPubkey, err)
	}
	return p, nil
}

// CompressPubkey returns the 33-byte compressed form (0x02/0x03 || X).
func CompressPubkey(p *secp256k1.PublicKey) []byte { return p.SerializeCompressed() }

// DecompressPubkey parses a 33-byte compressed public key.
func DecompressPubkey(b []byte) (*secp256k1.PublicKey, error) {
	if len(b) != 33 || (b[0] != 0x02 && b[0] != 0x03) {
		return nil, fmt.Errorf("%w: want 33 bytes starting with 0x02 or 0x03", ErrInvalidPubkey)
	}
	p, err := secp256k1.ParsePubKey(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidPubkey, err)
	}
	return p, nil
}

// AddressOf is the address of a private key's public key (the same as
// PrivkeyToAddress).
func AddressOf(k *secp256k1.PrivateKey) [20]byte { return PrivkeyToAddress(k) }

func decodeHex(s string) ([]byte, error) {
	if len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		s = s[2:]
	}
	return hex.DecodeString(s)
}
