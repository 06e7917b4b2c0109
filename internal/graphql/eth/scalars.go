package eth

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/chaind/chaind/internal/graphql"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// scalars are the EIP-1767 scalar types. Output is lower-case 0x hex,
// as go-ethereum and the execution-apis vectors render it. Inputs arrive
// as Go values: Bytes32 as types.Hash, Address as types.Address, Bytes as
// []byte, BigInt as *uint256.Int and Long as uint64.
var scalars = map[string]*graphql.Scalar{
	"Bytes32": stringInput("Bytes32", parseBytes32, func(x any) (any, error) {
		h, ok := x.(types.Hash)
		if !ok {
			return nil, fmt.Errorf("Bytes32 cannot represent %T", x)
		}
		return h.Hex(), nil
	}),
	"Address": stringInput("Address", parseAddress, func(x any) (any, error) {
		a, ok := x.(types.Address)
		if !ok {
			return nil, fmt.Errorf("Address cannot represent %T", x)
		}
		return "0x" + hex.EncodeToString(a[:]), nil
	}),
	"Bytes": stringInput("Bytes", parseBytes, func(x any) (any, error) {
		b, ok := x.([]byte)
		if !ok && x != nil {
			return nil, fmt.Errorf("Bytes cannot represent %T", x)
		}
		return "0x" + hex.EncodeToString(b), nil
	}),
	"BigInt": numberInput("BigInt", parseBigInt, func(x any) (any, error) {
		switch n := x.(type) {
		case *uint256.Int:
			return n.Hex(), nil
		case uint64:
			return "0x" + strconv.FormatUint(n, 16), nil
		}
		return nil, fmt.Errorf("BigInt cannot represent %T", x)
	}),
	"Long": numberInput("Long", parseLong, func(x any) (any, error) {
		switch n := x.(type) {
		case uint64:
			return "0x" + strconv.FormatUint(n, 16), nil
		case int:
			if n >= 0 {
				return "0x" + strconv.FormatUint(uint64(n), 16), nil
			}
		case uint:
			return "0x" + strconv.FormatUint(uint64(n), 16), nil
		}
		return nil, fmt.Errorf("Long cannot represent %v", x)
	}),
}

// stringInput is a scalar written as a string in queries and variables.
func stringInput(name string, parse func(string) (any, error), out func(any) (any, error)) *graphql.Scalar {
	return &graphql.Scalar{
		Literal: func(v *graphql.Value) (any, error) {
			if v.Kind != graphql.StringValue {
				return nil, fmt.Errorf("%s must be a string, found %s", name, v)
			}
			return parse(v.Raw)
		},
		Input: func(x any) (any, error) {
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("%s must be a string", name)
			}
			return parse(s)
		},
		Output: out,
	}
}

// numberInput is a scalar written as an integer or a string.
func numberInput(name string, parse func(string) (any, error), out func(any) (any, error)) *graphql.Scalar {
	return &graphql.Scalar{
		Literal: func(v *graphql.Value) (any, error) {
			if v.Kind != graphql.StringValue && v.Kind != graphql.IntValue {
				return nil, fmt.Errorf("%s must be an integer or a string, found %s", name, v)
			}
			return parse(v.Raw)
		},
		Input: func(x any) (any, error) {
			switch n := x.(type) {
			case string:
				return parse(n)
			case json.Number:
				return parse(n.String())
			}
			return nil, fmt.Errorf("%s must be an integer or a string", name)
		},
		Output: out,
	}
}

func decodeHex(name, s string) ([]byte, error) {
	body, ok := strings.CutPrefix(s, "0x")
	if !ok {
		body, ok = strings.CutPrefix(s, "0X")
	}
	if !ok {
		return nil, fmt.Errorf("%s %q: hex string without 0x prefix", name, s)
	}
	if len(body)%2 == 1 {
		body = "0" + body
	}
	b, err := hex.DecodeString(body)
	if err != nil {
		return nil, fmt.Errorf("%s %q: invalid hex", name, s)
	}
	return b, nil
}

func parseBytes(s string) (any, error) { return decodeHex("Bytes", s) }

// parseBytes32 accepts up to 32 bytes and pads them on the left, so that
// a storage slot may be written short ("0x4").
func parseBytes32(s string) (any, error) {
	b, err := decodeHex("Bytes32", s)
	if err != nil {
		return nil, err
	}
	if len(b) > 32 {
		return nil, fmt.Errorf("Bytes32 %q: %d bytes, want at most 32", s, len(b))
	}
	var h types.Hash
	copy(h[32-len(b):], b)
	return h, nil
}

func parseAddress(s string) (any, error) {
	b, err := decodeHex("Address", s)
	if err != nil {
		return nil, err
	}
	if len(b) != 20 {
		return nil, fmt.Errorf("Address %q: %d bytes, want 20", s, len(b))
	}
	var a types.Address
	copy(a[:], b)
	return a, nil
}

func parseBigInt(s string) (any, error) {
	n, ok := new(big.Int).SetString(s, 0)
	if strings.HasPrefix(s, "0") && !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
		n, ok = new(big.Int).SetString(s, 10) // no octal: "010" is ten
	}
	if !ok || n.Sign() < 0 {
		return nil, fmt.Errorf("BigInt %q: not an unsigned integer", s)
	}
	u, overflow := uint256.FromBig(n)
	if overflow {
		return nil, fmt.Errorf("BigInt %q: more than 256 bits", s)
	}
	return u, nil
}

func parseLong(s string) (any, error) {
	var n uint64
	var err error
	if body, ok := strings.CutPrefix(strings.ToLower(s), "0x"); ok {
		n, err = strconv.ParseUint(body, 16, 64)
	} else {
		n, err = strconv.ParseUint(s, 10, 64)
	}
	if err != nil || n > 1<<63-1 {
		return nil, fmt.Errorf("Long %q: not a non-negative 64-bit integer", s)
	}
	return n, nil
}
