// Package bech32 encodes and decodes BIP-173 bech32 strings (the original
// checksum constant 1, not bech32m), the text form Cosmos-style clients use
// for addresses: the same 20 bytes as an 0x address under a
// human-readable prefix such as "chain" or "chainvaloper".
package bech32

import (
	"errors"
	"fmt"
	"strings"
)

// The chain's human-readable prefixes: accounts, validator operators and
// validators' consensus keys. Every interface that shows or takes bech32
// addresses uses these.
const (
	AccountPrefix   = "chain"
	ValidatorPrefix = "chainvaloper"
	ConsensusPrefix = "chainvalcons"
)

const charset = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"

// MaxLength is the longest string Decode accepts. BIP-173 allows 90
// characters; Cosmos chains decode up to 1023, which still bounds the work
// an attacker can ask for.
const MaxLength = 1023

var charsetRev = func() (t [128]int8) {
	for i := range t {
		t[i] = -1
	}
	for i, c := range charset {
		t[c] = int8(i)
	}
	return t
}()

// Errors Decode returns; each wraps one of these so callers can test the
// kind of fault.
var (
	ErrLength    = errors.New("bech32: invalid length")
	ErrMixedCase = errors.New("bech32: mixed case")
	ErrChar      = errors.New("bech32: invalid character")
	ErrSeparator = errors.New("bech32: missing separator")
	ErrChecksum  = errors.New("bech32: invalid checksum")
	ErrPadding   = errors.New("bech32: invalid padding")
	ErrPrefix    = errors.New("bech32: wrong prefix")
)

var generator = [5]uint32{0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3}

func polymod(chk uint32, values []byte) uint32 {
	for _, v := range values {
		b := chk >> 25
		chk = (chk&0x1ffffff)<<5 ^ uint32(v)
		for i := range 5 {
			if b>>i&1 == 1 {
				chk ^= generator[i]
			}
		}
	}
	return chk
}

// hrpChecksumStart is the polymod state after the expanded prefix: the
// high bits of each character, a zero, then the low bits.
func hrpChecksumStart(hrp string) uint32 {
	chk := uint32(1)
	for i := 0; i < len(hrp); i++ {
		chk = polymod(chk, []byte{hrp[i] >> 5})
	}
	chk = polymod(chk, []byte{0})
	for i := 0; i < len(hrp); i++ {
		chk = polymod(chk, []byte{hrp[i] & 31})
	}
	return chk
}

// Encode writes data (8-bit bytes) under the prefix hrp, which must be
// lower case ASCII 33-126.
func Encode(hrp string, data []byte) (string, error) {
	if hrp == "" {
		return "", fmt.Errorf("%w: empty prefix", ErrLength)
	}
	for i := 0; i < len(hrp); i++ {
		if c := hrp[i]; c < 33 || c > 126 || (c >= 'A' && c <= 'Z') {
			return "", fmt.Errorf("%w: %q in prefix", ErrChar, c)
		}
	}
	five := ConvertBits(data, 8, 5, true)
	return EncodeWords(hrp, five)
}

// EncodeWords writes 5-bit words under the prefix hrp.
func EncodeWords(hrp string, words []byte) (string, error) {
	if len(hrp)+1+len(words)+6 > MaxLength {
		return "", ErrLength
	}
	chk := polymod(hrpChecksumStart(hrp), words)
	chk = polymod(chk, make([]byte, 6)) ^ 1
	var b strings.Builder
	b.Grow(len(hrp) + 1 + len(words) + 6)
	b.WriteString(hrp)
	b.WriteByte('1')
	for _, w := range words {
		if w > 31 {
			return "", fmt.Errorf("%w: word %d", ErrChar, w)
		}
		b.WriteByte(charset[w])
	}
	for i := range 6 {
		b.WriteByte(charset[chk>>(5*(5-i))&31])
	}
	return b.String(), nil
}

// DecodeWords checks s and returns its lower-case prefix and its 5-bit
// data words (checksum removed).
func DecodeWords(s string) (hrp string, words []byte, err error) {
	if len(s) < 8 || len(s) > MaxLength {
		return "", nil, fmt.Errorf("%w: %d characters", ErrLength, len(s))
	}
	lower, upper := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 33 || c > 126 {
			return "", nil, fmt.Errorf("%w: byte 0x%02x at %d", ErrChar, c, i)
		}
		lower = lower || (c >= 'a' && c <= 'z')
		upper = upper || (c >= 'A' && c <= 'Z')
	}
	if lower && upper {
		return "", nil, ErrMixedCase
	}
	s = strings.ToLower(s)
	sep := strings.LastIndexByte(s, '1')
	if sep < 1 || sep+7 > len(s) {
		return "", nil, ErrSeparator
	}
	hrp = s[:sep]
	data := s[sep+1:]
	words = make([]byte, len(data))
	for i := 0; i < len(data); i++ {
		v := charsetRev[data[i]]
		if v < 0 {
			return "", nil, fmt.Errorf("%w: %q at %d", ErrChar, data[i], sep+1+i)
		}
		words[i] = byte(v)
	}
	if polymod(hrpChecksumStart(hrp), words) != 1 {
		return "", nil, ErrChecksum
	}
	return hrp, words[:len(words)-6], nil
}

// Decode checks s and returns its prefix and its data as 8-bit bytes.
func Decode(s string) (hrp string, data []byte, err error) {
	hrp, words, err := DecodeWords(s)
	if err != nil {
		return "", nil, err
	}
	data, err = convertStrict(words)
	if err != nil {
		return "", nil, err
	}
	return hrp, data, nil
}

// DecodePrefix decodes s and checks that its prefix is hrp.
func DecodePrefix(hrp, s string) ([]byte, error) {
	got, data, err := Decode(s)
	if err != nil {
		return nil, err
	}
	if got != hrp {
		return nil, fmt.Errorf("%w: want %q, got %q", ErrPrefix, hrp, got)
	}
	return data, nil
}

// ConvertBits regroups data from groups of from bits to groups of to
// bits, most significant first; pad fills the last group with zeros.
// Without pad, leftover bits are dropped (see Decode for the strict form).
func ConvertBits(data []byte, from, to uint, pad bool) []byte {
	var acc uint32
	var bits uint
	out := make([]byte, 0, (len(data)*int(from)+int(to)-1)/int(to))
	maxv := uint32(1)<<to - 1
	for _, v := range data {
		acc = acc<<from | uint32(v)
		bits += from
		for bits >= to {
			bits -= to
			out = append(out, byte(acc>>bits&maxv))
		}
	}
	if pad && bits > 0 {
		out = append(out, byte(acc<<(to-bits)&maxv))
	}
	return out
}

// convertStrict turns 5-bit words into bytes, refusing more than four
// leftover bits or leftover bits that are not zero: such a string was not
// made by Encode.
func convertStrict(words []byte) ([]byte, error) {
	var acc uint32
	var bits uint
	out := make([]byte, 0, len(words)*5/8)
	for _, v := range words {
		acc = acc<<5 | uint32(v)
		bits += 5
		if bits >= 8 {
			bits -= 8
			out = append(out, byte(acc>>bits))
		}
	}
	if bits >= 5 || acc&(1<<bits-1) != 0 {
		return nil, ErrPadding
	}
	return out, nil
}
