package types

import (
	"encoding/hex"
	"errors"
	"strconv"

	"github.com/holiman/uint256"
)

// The JSON-RPC hex forms: a QUANTITY is 0x followed by the shortest hex of
// the number ("0x0" for zero), DATA is 0x followed by two digits per byte.
// Output is always canonical; input from users is read leniently (leading
// zeros, upper-case digits and 0X are accepted, as are plain JSON numbers
// for quantities).

// Errors of hex parsing.
var (
	ErrHexPrefix   = errors.New("types: hex string without 0x prefix")
	ErrHexEmpty    = errors.New("types: empty hex quantity")
	ErrHexOdd      = errors.New("types: hex data of odd length")
	ErrHexSyntax   = errors.New("types: invalid hex digit")
	ErrHexOverflow = errors.New("types: hex quantity too large")
	ErrJSONString  = errors.New("types: expected a JSON string")
)

const hexDigits = "0123456789abcdef"

// AppendHexUint64 appends x as a QUANTITY without quotes.
func AppendHexUint64(dst []byte, x uint64) []byte {
	dst = append(dst, '0', 'x')
	return strconv.AppendUint(dst, x, 16)
}

// EncodeUint64 returns x as a QUANTITY.
func EncodeUint64(x uint64) string { return string(AppendHexUint64(nil, x)) }

// AppendHexU256 appends x as a QUANTITY without quotes.
func AppendHexU256(dst []byte, x *uint256.Int) []byte {
	if x.IsUint64() {
		return AppendHexUint64(dst, x.Uint64())
	}
	var buf [32]byte
	x.WriteToArray32(&buf)
	i := 0
	for buf[i] == 0 {
		i++
	}
	dst = append(dst, '0', 'x')
	if buf[i] < 0x10 {
		dst = append(dst, hexDigits[buf[i]])
		i++
	}
	return hex.AppendEncode(dst, buf[i:])
}

// EncodeU256 returns x as a QUANTITY.
func EncodeU256(x *uint256.Int) string { return string(AppendHexU256(nil, x)) }

// AppendHexBytes appends b as DATA without quotes.
func AppendHexBytes(dst, b []byte) []byte {
	dst = append(dst, '0', 'x')
	return hex.AppendEncode(dst, b)
}

// EncodeBytes returns b as DATA.
func EncodeBytes(b []byte) string { return string(AppendHexBytes(nil, b)) }

func stripHexPrefix(s []byte) ([]byte, error) {
	if len(s) < 2 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') {
		return nil, ErrHexPrefix
	}
	return s[2:], nil
}

func hexNibble(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// ParseUint64 reads a QUANTITY leniently.
func ParseUint64(s string) (uint64, error) { return parseUint64([]byte(s)) }

func parseUint64(s []byte) (uint64, error) {
	d, err := stripHexPrefix(s)
	if err != nil {
		return 0, err
	}
	if len(d) == 0 {
		return 0, ErrHexEmpty
	}
	var x uint64
	for _, c := range d {
		n, ok := hexNibble(c)
		if !ok {
			return 0, ErrHexSyntax
		}
		if x>>60 != 0 {
			return 0, ErrHexOverflow
		}
		x = x<<4 | uint64(n)
	}
	return x, nil
}

// ParseU256 reads a QUANTITY of up to 256 bits leniently.
func ParseU256(s string) (*uint256.Int, error) {
	z := new(uint256.Int)
	return z, parseU256([]byte(s), z)
}

func parseU256(s []byte, z *uint256.Int) error {
	d, err := stripHexPrefix(s)
	if err != nil {
		return err
	}
	if len(d) == 0 {
		return ErrHexEmpty
	}
	for len(d) > 1 && d[0] == '0' {
		d = d[1:]
	}
	if len(d) > 64 {
		return ErrHexOverflow
	}
	var buf [32]byte
	for i := 0; i < len(d); i++ {
		n, ok := hexNibble(d[len(d)-1-i])
		if !ok {
			return ErrHexSyntax
		}
		buf[31-i/2] |= n << (4 * (i % 2))
	}
	z.SetBytes32(buf[:])
	return nil
}

// ParseBytes reads DATA leniently (0x required; "0x" is empty).
func ParseBytes(s string) ([]byte, error) { return parseBytes([]byte(s)) }

func parseBytes(s []byte) ([]byte, error) {
	d, err := stripHexPrefix(s)
	if err != nil {
		return nil, err
	}
	if len(d)%2 == 1 {
		return nil, ErrHexOdd
	}
	out := make([]byte, len(d)/2)
	if _, err := hex.Decode(out, d); err != nil {
		return nil, ErrHexSyntax
	}
	return out, nil
}

// unquote returns the content of a JSON string, or reports that input is a
// bare JSON number (for the lenient quantity readers).
func unquote(input []byte) (s []byte, number bool, err error) {
	if len(input) >= 2 && input[0] == '"' && input[len(input)-1] == '"' {
		return input[1 : len(input)-1], false, nil
	}
	if len(input) > 0 && input[0] >= '0' && input[0] <= '9' {
		return input, true, nil
	}
	return nil, false, ErrJSONString
}

// HexUint64 is a uint64 in JSON-RPC QUANTITY form.
type HexUint64 uint64

// MarshalText implements encoding.TextMarshaler.
func (x HexUint64) MarshalText() ([]byte, error) { return AppendHexUint64(nil, uint64(x)), nil }

// UnmarshalJSON reads a quoted QUANTITY or a plain decimal JSON number.
func (x *HexUint64) UnmarshalJSON(input []byte) error {
	s, number, err := unquote(input)
	if err != nil {
		return err
	}
	var v uint64
	if number {
		v, err = strconv.ParseUint(string(s), 10, 64)
	} else {
		v, err = parseUint64(s)
	}
	if err != nil {
		return err
	}
	*x = HexUint64(v)
	return nil
}

// UnmarshalText reads a QUANTITY.
func (x *HexUint64) UnmarshalText(s []byte) error {
	v, err := parseUint64(s)
	*x = HexUint64(v)
	return err
}

// HexU256 is a 256-bit integer in JSON-RPC QUANTITY form.
type HexU256 uint256.Int

// Int returns x as a *uint256.Int (sharing memory).
func (x *HexU256) Int() *uint256.Int { return (*uint256.Int)(x) }

// MarshalText implements encoding.TextMarshaler.
func (x HexU256) MarshalText() ([]byte, error) {
	u := uint256.Int(x)
	return AppendHexU256(nil, &u), nil
}

// UnmarshalJSON reads a quoted QUANTITY or a plain decimal JSON number.
func (x *HexU256) UnmarshalJSON(input []byte) error {
	s, number, err := unquote(input)
	if err != nil {
		return err
	}
	if number {
		return (*uint256.Int)(x).SetFromDecimal(string(s))
	}
	return parseU256(s, (*uint256.Int)(x))
}

// UnmarshalText reads a QUANTITY.
func (x *HexU256) UnmarshalText(s []byte) error { return parseU256(s, (*uint256.Int)(x)) }

// HexBytes is a byte string in JSON-RPC DATA form.
type HexBytes []byte

// MarshalText implements encoding.TextMarshaler.
func (b HexBytes) MarshalText() ([]byte, error) { return AppendHexBytes(nil, b), nil }

// UnmarshalText reads DATA.
func (b *HexBytes) UnmarshalText(s []byte) error {
	v, err := parseBytes(s)
	if err != nil {
		return err
	}
	*b = v
	return nil
}

// ---- Hash and Address as JSON strings ----

// MarshalText renders the hash as 0x-prefixed lower-case hex.
func (h Hash) MarshalText() ([]byte, error) { return AppendHexBytes(nil, h[:]), nil }

// UnmarshalText reads a 0x-prefixed 64-digit hex hash.
func (h *Hash) UnmarshalText(s []byte) error {
	d, err := stripHexPrefix(s)
	if err != nil {
		return err
	}
	if len(d) != 64 {
		return errHexLength
	}
	if _, err := hex.Decode(h[:], d); err != nil {
		return ErrHexSyntax
	}
	return nil
}

// MarshalText renders the address in lower case, as go-ethereum's JSON-RPC
// does and as the execution-apis vectors compare it; Hex gives the EIP-55
// form for people.
func (a Address) MarshalText() ([]byte, error) { return AppendHexBytes(nil, a[:]), nil }

// UnmarshalText reads a 0x-prefixed address; mixed case must carry a
// valid EIP-55 checksum.
func (a *Address) UnmarshalText(s []byte) error {
	if _, err := stripHexPrefix(s); err != nil {
		return err
	}
	v, err := ParseAddress(string(s))
	if err != nil {
		return err
	}
	*a = v
	return nil
}

// MarshalText renders the bloom as DATA.
func (b Bloom) MarshalText() ([]byte, error) { return AppendHexBytes(nil, b[:]), nil }

// UnmarshalText reads a 256-byte bloom.
func (b *Bloom) UnmarshalText(s []byte) error {
	v, err := parseBytes(s)
	if err != nil {
		return err
	}
	if len(v) != BloomLength {
		return ErrBloomLength
	}
	copy(b[:], v)
	return nil
}

// MarshalText renders the nonce as 8 bytes of DATA.
func (n BlockNonce) MarshalText() ([]byte, error) { return AppendHexBytes(nil, n[:]), nil }

// UnmarshalText reads an 8-byte nonce.
func (n *BlockNonce) UnmarshalText(s []byte) error {
	v, err := parseBytes(s)
	if err != nil {
		return err
	}
	if len(v) != 8 {
		return ErrNonceLength
	}
	copy(n[:], v)
	return nil
}
