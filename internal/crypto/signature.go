package crypto

import (
	"errors"
	"fmt"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// ErrHighS reports a signature whose s lies in the upper half of the curve
// order, which EIP-2 forbids for transactions since Homestead.
var ErrHighS = errors.New("crypto: signature s is in the upper half of the curve order")

// SignatureLength is the length of an R || S || V signature.
const SignatureLength = 65

// Big-endian curve order N and N/2, kept as byte arrays so that range checks
// are plain byte comparisons on the wire form.
var (
	curveOrder     = mustHex32("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141")
	curveHalfOrder = mustHex32("7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0")
)

// ValidateSignatureValues checks the components of a signature: v must be
// 0 or 1, r and s must lie in [1, N-1], and if lowS is set s must not exceed
// N/2 (EIP-2). r and s are 32-byte big-endian values.
func ValidateSignatureValues(v byte, r, s *[32]byte, lowS bool) error {
	if v > 1 {
		return fmt.Errorf("%w: v = %d", ErrInvalidRecoveryID, v)
	}
	if isZero32(r) || !less32(r, &curveOrder) {
		return fmt.Errorf("%w: r out of range", ErrInvalidSignature)
	}
	if isZero32(s) || !less32(s, &curveOrder) {
		return fmt.Errorf("%w: s out of range", ErrInvalidSignature)
	}
	if lowS && less32(&curveHalfOrder, s) {
		return ErrHighS
	}
	return nil
}

// ValidateSignature checks a 65-byte R || S || V signature with
// ValidateSignatureValues.
func ValidateSignature(sig []byte, lowS bool) error {
	if len(sig) != SignatureLength {
		return fmt.Errorf("%w: length %d, want %d", ErrInvalidSignature, len(sig), SignatureLength)
	}
	return ValidateSignatureValues(sig[64], (*[32]byte)(sig[:32]), (*[32]byte)(sig[32:64]), lowS)
}

// IsLowS reports whether s is at most N/2.
func IsLowS(s *[32]byte) bool { return !less32(&curveHalfOrder, s) }

// NormalizeS rewrites a valid signature so that s is in the lower half of the
// order, replacing s by N-s and flipping the recovery id. Both forms recover
// the same key; only the low form is accepted in transactions (EIP-2).
func NormalizeS(sig *[65]byte) {
	s := (*[32]byte)(sig[32:64])
	if IsLowS(s) {
		return
	}
	var n secp256k1.ModNScalar
	n.SetBytes(s)
	n.Negate()
	n.PutBytes(s)
	sig[64] ^= 1
}

func isZero32(a *[32]byte) bool {
	var acc byte
	for _, b := range a {
		acc |= b
	}
	return acc == 0
}

// less32 reports a < b for big-endian 256-bit values.
func less32(a, b *[32]byte) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

func mustHex32(s string) (out [32]byte) {
	b, err := decodeHex(s)
	if err != nil || len(b) != 32 {
		panic("crypto: bad constant " + s)
	}
	copy(out[:], b)
	return out
}
