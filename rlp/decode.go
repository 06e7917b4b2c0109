// Package rlp implements Ethereum's Recursive Length Prefix encoding.
//
// The decoder is zero-copy and canonical-strict: Split and its friends
// return sub-slices of the input and reject every non-minimal form with a
// distinct error value, so consensus code can tell bad input apart from a
// bug. The encoder appends to caller-owned buffers; types encode themselves
// through explicit methods rather than reflection.
package rlp

import (
	"errors"
	"math/big"

	"github.com/holiman/uint256"
)

// Kind is the kind of an RLP item.
type Kind uint8

const (
	Byte   Kind = iota // a single byte below 0x80, encoded as itself
	String             // a byte string with a length prefix
	List               // a list with a length prefix
)

func (k Kind) String() string {
	switch k {
	case Byte:
		return "Byte"
	case String:
		return "String"
	case List:
		return "List"
	}
	return "Kind?"
}

// Errors returned by the decoder. Each names exactly one way an input can be
// malformed so that callers and tests can match on it with errors.Is.
var (
	ErrEmptyInput        = errors.New("rlp: empty input")
	ErrValueTooLarge     = errors.New("rlp: value size exceeds available input length")
	ErrCanonSize         = errors.New("rlp: non-canonical size information")
	ErrSingleByteWrapped = errors.New("rlp: single byte below 0x80 encoded as a string")
	ErrLengthLeadingZero = errors.New("rlp: length of length has leading zero bytes")
	ErrCanonInt          = errors.New("rlp: non-canonical integer (leading zero bytes)")
	ErrTrailingBytes     = errors.New("rlp: input contains more than one value")
	ErrExpectedString    = errors.New("rlp: expected string or byte")
	ErrExpectedList      = errors.New("rlp: expected list")
	ErrUintOverflow      = errors.New("rlp: integer too large for target type")
	ErrLengthOverflow    = errors.New("rlp: length does not fit in an int")
	ErrInvalidBool       = errors.New("rlp: invalid boolean value")
)

// Split returns the kind of the first item in b, its content, and the bytes
// that follow it. The content of a Byte item is the byte itself.
func Split(b []byte) (k Kind, content, rest []byte, err error) {
	k, ts, cs, err := readKind(b)
	if err != nil {
		return 0, nil, b, err
	}
	return k, b[ts : ts+cs], b[ts+cs:], nil
}

// SplitRaw splits b into the complete encoding of its first item (header
// included) and the rest, for callers that keep an item as a raw value.
func SplitRaw(b []byte) (item, rest []byte, err error) {
	_, ts, cs, err := readKind(b)
	if err != nil {
		return nil, b, err
	}
	return b[:ts+cs], b[ts+cs:], nil
}

// SplitString splits b into the content of a string item and the rest.
func SplitString(b []byte) (content, rest []byte, err error) {
	k, content, rest, err := Split(b)
	if err != nil {
		return nil, b, err
	}
	if k == List {
		return nil, b, ErrExpectedString
	}
	return content, rest, nil
}

// SplitList splits b into the content of a list item and the rest.
func SplitList(b []byte) (content, rest []byte, err error) {
	k, content, rest, err := Split(b)
	if err != nil {
		return nil, b, err
	}
	if k != List {
		return nil, b, ErrExpectedList
	}
	return content, rest, nil
}

// SplitUint64 decodes an unsigned integer at the start of b.
func SplitUint64(b []byte) (x uint64, rest []byte, err error) {
	content, rest, err := SplitString(b)
	if err != nil {
		return 0, b, err
	}
	x, err = ParseUint64(content)
	if err != nil {
		return 0, b, err
	}
	return x, rest, nil
}

// ParseUint64 interprets the content of a string item as a canonical
// big-endian integer.
func ParseUint64(content []byte) (uint64, error) {
	switch {
	case len(content) == 0:
		return 0, nil
	case len(content) > 8:
		return 0, ErrUintOverflow
	case content[0] == 0:
		return 0, ErrCanonInt
	}
	var x uint64
	for _, c := range content {
		x = x<<8 | uint64(c)
	}
	return x, nil
}

// SplitUint256 decodes an unsigned 256-bit integer at the start of b into z.
func SplitUint256(b []byte, z *uint256.Int) (rest []byte, err error) {
	content, rest, err := SplitString(b)
	if err != nil {
		return b, err
	}
	if err := ParseUint256(content, z); err != nil {
		return b, err
	}
	return rest, nil
}

// SplitBigInt decodes an unsigned integer of any size at the start of b.
func SplitBigInt(b []byte) (x *big.Int, rest []byte, err error) {
	content, rest, err := SplitString(b)
	if err != nil {
		return nil, b, err
	}
	if len(content) > 0 && content[0] == 0 {
		return nil, b, ErrCanonInt
	}
	return new(big.Int).SetBytes(content), rest, nil
}

// SplitBool decodes a boolean (0x80 false, 0x01 true).
func SplitBool(b []byte) (v bool, rest []byte, err error) {
	x, rest, err := SplitUint64(b)
	if err != nil {
		return false, b, err
	}
	if x > 1 {
		return false, b, ErrInvalidBool
	}
	return x == 1, rest, nil
}

// CountValues counts the items encoded back to back in b.
func CountValues(b []byte) (int, error) {
	n := 0
	for ; len(b) > 0; n++ {
		_, ts, cs, err := readKind(b)
		if err != nil {
			return 0, err
		}
		b = b[ts+cs:]
	}
	return n, nil
}

// Validate checks that b holds exactly one well-formed item, descending into
// lists so that every nested item is canonical too. It walks nested lists
// with an explicit stack, so hostile nesting depth cannot exhaust the
// goroutine stack.
func Validate(b []byte) error {
	k, content, rest, err := Split(b)
	if err != nil {
		return err
	}
	if len(rest) != 0 {
		return ErrTrailingBytes
	}
	if k == List {
		return validateList(content)
	}
	return nil
}

func validateList(b []byte) error {
	stack := [][]byte{b}
	for len(stack) > 0 {
		top := &stack[len(stack)-1]
		if len(*top) == 0 {
			stack = stack[:len(stack)-1]
			continue
		}
		k, content, rest, err := Split(*top)
		if err != nil {
			return err
		}
		*top = rest
		if k == List && len(content) > 0 {
			stack = append(stack, content)
		}
	}
	return nil
}

// ParseUint256 interprets the content of a string item as a canonical
// big-endian integer of at most 256 bits.
func ParseUint256(content []byte, z *uint256.Int) error {
	if len(content) > 32 {
		return ErrUintOverflow
	}
	if len(content) > 0 && content[0] == 0 {
		return ErrCanonInt
	}
	z.SetBytes(content)
	return nil
}

// readKind parses the header of the first item in buf and returns its kind,
// the header size and the content size.
func readKind(buf []byte) (k Kind, tagsize, contentsize uint64, err error) {
	if len(buf) == 0 {
		return 0, 0, 0, ErrEmptyInput
	}
	b := buf[0]
	switch {
	case b < 0x80:
		k, tagsize, contentsize = Byte, 0, 1
	case b < 0xB8:
		k, tagsize, contentsize = String, 1, uint64(b-0x80)
		// A single byte below 0x80 must be encoded as itself.
		if contentsize == 1 && len(buf) > 1 && buf[1] < 0x80 {
			return 0, 0, 0, ErrSingleByteWrapped
		}
	case b < 0xC0:
		k, tagsize = String, uint64(b-0xB7)+1
		contentsize, err = readSize(buf[1:], b-0xB7)
	case b < 0xF8:
		k, tagsize, contentsize = List, 1, uint64(b-0xC0)
	default:
		k, tagsize = List, uint64(b-0xF7)+1
		contentsize, err = readSize(buf[1:], b-0xF7)
	}
	if err != nil {
		return 0, 0, 0, err
	}
	if contentsize > uint64(len(buf))-tagsize {
		return 0, 0, 0, ErrValueTooLarge
	}
	return k, tagsize, contentsize, nil
}

func readSize(b []byte, slen byte) (uint64, error) {
	if int(slen) > len(b) {
		return 0, ErrValueTooLarge
	}
	if slen > 8 {
		return 0, ErrLengthOverflow
	}
	if b[0] == 0 {
		return 0, ErrLengthLeadingZero
	}
	var s uint64
	for _, c := range b[:slen] {
		s = s<<8 | uint64(c)
	}
	// Long form is only allowed for sizes of 56 and above.
	if s < 56 {
		return 0, ErrCanonSize
	}
	if s > uint64(^uint(0)>>1) {
		return 0, ErrLengthOverflow
	}
	return s, nil
}
