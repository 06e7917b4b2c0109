package chain

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"

	"github.com/holiman/uint256"
)

// Genesis files in the wild spell numbers as JSON numbers, "0x" hex
// strings or decimal strings; go-ethereum accepts all three, so do we.

// parseNum parses a JSON number or a hex/decimal string into a big.Int.
func parseNum(input []byte) (*big.Int, error) {
	input = bytes.TrimSpace(input)
	s := string(input)
	if len(s) >= 2 && s[0] == '"' {
		if err := json.Unmarshal(input, &s); err != nil {
			return nil, err
		}
	}
	v := new(big.Int)
	ok := false
	switch {
	case strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X"):
		if len(s) == 2 {
			return v, nil
		}
		_, ok = v.SetString(s[2:], 16)
	default:
		_, ok = v.SetString(s, 10)
	}
	if !ok || v.Sign() < 0 {
		return nil, fmt.Errorf("invalid number %s", input)
	}
	return v, nil
}

// Uint64 is a uint64 read from any of the three spellings.
type Uint64 uint64

// UnmarshalJSON implements json.Unmarshaler.
func (x *Uint64) UnmarshalJSON(input []byte) error {
	v, err := parseNum(input)
	if err != nil {
		return err
	}
	if !v.IsUint64() {
		return fmt.Errorf("number %s does not fit in 64 bits", v)
	}
	*x = Uint64(v.Uint64())
	return nil
}

// MarshalJSON writes a hex string.
func (x Uint64) MarshalJSON() ([]byte, error) { return json.Marshal(fmt.Sprintf("0x%x", uint64(x))) }

// U256 is a 256-bit unsigned integer read from any of the three spellings.
type U256 struct{ uint256.Int }

// UnmarshalJSON implements json.Unmarshaler.
func (x *U256) UnmarshalJSON(input []byte) error {
	v, err := parseNum(input)
	if err != nil {
		return err
	}
	if x.SetFromBig(v) {
		return fmt.Errorf("number %s does not fit in 256 bits", v)
	}
	return nil
}

// MarshalJSON writes a hex string.
func (x U256) MarshalJSON() ([]byte, error) { return json.Marshal(x.Hex()) }

// BigInt is an arbitrary-size non-negative integer (terminal total
// difficulty is written as a bare, sometimes huge, JSON number).
type BigInt big.Int

// UnmarshalJSON implements json.Unmarshaler.
func (x *BigInt) UnmarshalJSON(input []byte) error {
	v, err := parseNum(input)
	if err != nil {
		return err
	}
	(*big.Int)(x).Set(v)
	return nil
}

// MarshalJSON writes a JSON number, as go-ethereum does.
func (x *BigInt) MarshalJSON() ([]byte, error) { return []byte((*big.Int)(x).String()), nil }

// Bytes is hex data with an optional 0x prefix.
type Bytes []byte

// UnmarshalJSON implements json.Unmarshaler.
func (b *Bytes) UnmarshalJSON(input []byte) error {
	var s string
	if err := json.Unmarshal(input, &s); err != nil {
		return err
	}
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	d, err := hex.DecodeString(s)
	if err != nil {
		return fmt.Errorf("invalid hex data: %v", err)
	}
	*b = d
	return nil
}

// MarshalJSON writes 0x-prefixed hex.
func (b Bytes) MarshalJSON() ([]byte, error) { return json.Marshal("0x" + hex.EncodeToString(b)) }
