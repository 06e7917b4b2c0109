package types

import (
	"encoding/hex"
	"errors"
	"strings"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/rlp"
)

// ErrBadChecksum reports a mixed-case address whose EIP-55 checksum does
// not match.
var ErrBadChecksum = errors.New("types: address checksum (EIP-55) mismatch")

// ErrBadHex reports a string that is not the expected hex form.
var ErrBadHex = errors.New("types: invalid hex")

// Hex returns the EIP-55 mixed-case checksum form, 0x-prefixed.
func (a Address) Hex() string {
	var buf [42]byte
	a.appendChecksum(buf[:0])
	return string(buf[:])
}

// String implements fmt.Stringer with the checksum form.
func (a Address) String() string { return a.Hex() }

// appendChecksum writes the EIP-55 form: a hex letter is upper case when the
// matching nibble of keccak256(lower-case hex) is 8 or more.
func (a Address) appendChecksum(dst []byte) []byte {
	var lower [40]byte
	hex.Encode(lower[:], a[:])
	h := crypto.Keccak256(lower[:])
	for i, c := range lower {
		if c >= 'a' {
			nib := h[i/2]
			if i%2 == 0 {
				nib >>= 4
			}
			if nib&0xf >= 8 {
				lower[i] = c - 32
			}
		}
	}
	dst = append(dst, '0', 'x')
	return append(dst, lower[:]...)
}

// ParseAddress parses a 0x-prefixed (or bare) 40-digit hex address. All
// lower-case or all upper-case input is accepted as is; mixed case must
// carry a valid EIP-55 checksum.
func ParseAddress(s string) (Address, error) {
	var a Address
	digits := strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	if len(digits) != 40 {
		return a, ErrBadHex
	}
	if _, err := hex.Decode(a[:], []byte(digits)); err != nil {
		return a, ErrBadHex
	}
	hasLower, hasUpper := false, false
	for _, c := range digits {
		switch {
		case c >= 'a' && c <= 'f':
			hasLower = true
		case c >= 'A' && c <= 'F':
			hasUpper = true
		}
	}
	if hasLower && hasUpper && a.Hex()[2:] != digits {
		return Address{}, ErrBadChecksum
	}
	return a, nil
}

// CreateAddress returns the address of a contract created by from with
// the given nonce: keccak256(rlp([from, nonce]))[12:].
func CreateAddress(from Address, nonce uint64) Address {
	var buf [32]byte
	content := addressSize + rlp.Uint64Size(nonce)
	enc := rlp.AppendListHeader(buf[:0], content)
	enc = appendAddress(enc, &from)
	enc = rlp.AppendUint64(enc, nonce)
	h := crypto.Keccak256(enc)
	return BytesToAddress(h[12:])
}

// CreateAddress2 returns the CREATE2 address (EIP-1014):
// keccak256(0xff || from || salt || initCodeHash)[12:].
func CreateAddress2(from Address, salt Hash, initCodeHash Hash) Address {
	h := crypto.Keccak256([]byte{0xff}, from[:], salt[:], initCodeHash[:])
	return BytesToAddress(h[12:])
}
