// Package eip712 hashes typed structured data (EIP-712): the digest a
// wallet signs for eth_signTypedData_v4, from the JSON document of types,
// primary type, domain and message that clients send.
package eip712

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/chaind/chaind/internal/crypto"
)

// Field is one member of a struct type.
type Field struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// TypedData is the document eth_signTypedData_v4 takes.
type TypedData struct {
	Types       map[string][]Field `json:"types"`
	PrimaryType string             `json:"primaryType"`
	Domain      map[string]any     `json:"domain"`
	Message     map[string]any     `json:"message"`
}

const domainType = "EIP712Domain"

// Parse decodes a typed-data document, keeping numbers exact.
func Parse(data []byte) (*TypedData, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var td TypedData
	if err := dec.Decode(&td); err != nil {
		return nil, fmt.Errorf("typed data: %w", err)
	}
	if td.PrimaryType == "" {
		return nil, errors.New("typed data: primaryType is missing")
	}
	if _, ok := td.Types[td.PrimaryType]; !ok {
		return nil, fmt.Errorf("typed data: primaryType %q has no type definition", td.PrimaryType)
	}
	if _, ok := td.Types[domainType]; !ok {
		return nil, fmt.Errorf("typed data: %s has no type definition", domainType)
	}
	return &td, nil
}

// Digest is keccak256("\x19\x01" ‖ domainSeparator ‖ hashStruct(message)),
// or without the message when the primary type is the domain itself.
func (td *TypedData) Digest() ([32]byte, error) {
	domain, err := td.HashStruct(domainType, td.Domain)
	if err != nil {
		return [32]byte{}, fmt.Errorf("domain: %w", err)
	}
	if td.PrimaryType == domainType {
		return crypto.Keccak256([]byte{0x19, 0x01}, domain[:]), nil
	}
	msg, err := td.HashStruct(td.PrimaryType, td.Message)
	if err != nil {
		return [32]byte{}, fmt.Errorf("message: %w", err)
	}
	return crypto.Keccak256([]byte{0x19, 0x01}, domain[:], msg[:]), nil
}

// HashStruct is keccak256(typeHash ‖ encodeData(data)).
func (td *TypedData) HashStruct(typ string, data map[string]any) ([32]byte, error) {
	enc, err := td.encodeData(typ, data, 0)
	if err != nil {
		return [32]byte{}, err
	}
	return crypto.Keccak256(enc), nil
}

// EncodeType is the type's signature followed by those of the struct
// types it references, sorted by name.
func (td *TypedData) EncodeType(typ string) (string, error) {
	deps := map[string]bool{}
	if err := td.dependencies(typ, deps); err != nil {
		return "", err
	}
	delete(deps, typ)
	names := []string{typ}
	var rest []string
	for d := range deps {
		rest = append(rest, d)
	}
	slices.Sort(rest)
	names = append(names, rest...)
	var b strings.Builder
	for _, n := range names {
		b.WriteString(n)
		b.WriteByte('(')
		for i, f := range td.Types[n] {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(f.Type + " " + f.Name)
		}
		b.WriteByte(')')
	}
	return b.String(), nil
}

func (td *TypedData) dependencies(typ string, seen map[string]bool) error {
	if seen[typ] {
		return nil
	}
	fields, ok := td.Types[typ]
	if !ok {
		return fmt.Errorf("unknown type %q", typ)
	}
	seen[typ] = true
	for _, f := range fields {
		base := baseType(f.Type)
		if _, isStruct := td.Types[base]; isStruct {
			if err := td.dependencies(base, seen); err != nil {
				return err
			}
		}
	}
	return nil
}

// baseType strips array suffixes: "Person[][2]" → "Person".
func baseType(t string) string {
	if i := strings.IndexByte(t, '['); i >= 0 {
		return t[:i]
	}
	return t
}

// maxDepth bounds struct nesting, so a self-referencing type with deeply
// nested data cannot exhaust the stack.
const maxDepth = 64

func (td *TypedData) encodeData(typ string, data map[string]any, depth int) ([]byte, error) {
	if depth > maxDepth {
		return nil, errors.New("structs nested too deeply")
	}
	sig, err := td.EncodeType(typ)
	if err != nil {
		return nil, err
	}
	th := crypto.Keccak256([]byte(sig))
	out := append([]byte(nil), th[:]...)
	for _, f := range td.Types[typ] {
		v, ok := data[f.Name]
		if !ok || v == nil {
			return nil, fmt.Errorf("%s.%s is missing", typ, f.Name)
		}
		word, err := td.encodeValue(f.Type, v, depth)
		if err != nil {
			return nil, fmt.Errorf("%s.%s: %w", typ, f.Name, err)
		}
		out = append(out, word[:]...)
	}
	return out, nil
}

var arrayRe = regexp.MustCompile(`^(.*)\[(\d*)\]$`)

func (td *TypedData) encodeValue(typ string, v any, depth int) ([32]byte, error) {
	var w [32]byte
	if m := arrayRe.FindStringSubmatch(typ); m != nil {
		items, ok := v.([]any)
		if !ok {
			return w, fmt.Errorf("want an array for %s", typ)
		}
		if m[2] != "" {
			if n, _ := strconv.Atoi(m[2]); n != len(items) {
				return w, fmt.Errorf("want %s elements for %s, got %d", m[2], typ, len(items))
			}
		}
		var buf []byte
		for i, it := range items {
			e, err := td.encodeValue(m[1], it, depth)
			if err != nil {
				return w, fmt.Errorf("element %d: %w", i, err)
			}
			buf = append(buf, e[:]...)
		}
		return crypto.Keccak256(buf), nil
	}
	if _, isStruct := td.Types[typ]; isStruct {
		obj, ok := v.(map[string]any)
		if !ok {
			return w, fmt.Errorf("want an object for %s", typ)
		}
		enc, err := td.encodeData(typ, obj, depth+1)
		if err != nil {
			return w, err
		}
		return crypto.Keccak256(enc), nil
	}
	switch {
	case typ == "string":
		s, ok := v.(string)
		if !ok {
			return w, errors.New("want a string")
		}
		return crypto.Keccak256([]byte(s)), nil
	case typ == "bytes":
		b, err := hexBytes(v)
		if err != nil {
			return w, err
		}
		return crypto.Keccak256(b), nil
	case typ == "bool":
		b, ok := v.(bool)
		if !ok {
			return w, errors.New("want true or false")
		}
		if b {
			w[31] = 1
		}
		return w, nil
	case typ == "address":
		b, err := hexBytes(v)
		if err != nil || len(b) != 20 {
			return w, fmt.Errorf("want a 20-byte address, got %v", v)
		}
		copy(w[12:], b)
		return w, nil
	case strings.HasPrefix(typ, "bytes"):
		n, err := strconv.Atoi(typ[5:])
		if err != nil || n < 1 || n > 32 {
			return w, fmt.Errorf("unknown type %q", typ)
		}
		b, err := hexBytes(v)
		if err != nil || len(b) > n {
			return w, fmt.Errorf("want at most %d bytes for %s", n, typ)
		}
		copy(w[:], b)
		return w, nil
	case strings.HasPrefix(typ, "uint"), strings.HasPrefix(typ, "int"):
		return encodeInt(typ, v)
	}
	return w, fmt.Errorf("unknown type %q", typ)
}

func encodeInt(typ string, v any) ([32]byte, error) {
	var w [32]byte
	signed := strings.HasPrefix(typ, "int")
	bits := 256
	if rest := strings.TrimPrefix(strings.TrimPrefix(typ, "u"), "int"); rest != "" {
		n, err := strconv.Atoi(rest)
		if err != nil || n < 8 || n > 256 || n%8 != 0 {
			return w, fmt.Errorf("unknown type %q", typ)
		}
		bits = n
	}
	var x *big.Int
	switch t := v.(type) {
	case json.Number:
		x, _ = new(big.Int).SetString(string(t), 10)
	case string:
		if strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0X") {
			x, _ = new(big.Int).SetString(t[2:], 16)
		} else if strings.HasPrefix(t, "-0x") {
			if x, _ = new(big.Int).SetString(t[3:], 16); x != nil {
				x.Neg(x)
			}
		} else {
			x, _ = new(big.Int).SetString(t, 10)
		}
	case float64:
		x, _ = big.NewFloat(t).Int(nil)
	}
	if x == nil {
		return w, fmt.Errorf("want an integer for %s, got %v", typ, v)
	}
	lo, hi := new(big.Int), new(big.Int).Lsh(big.NewInt(1), uint(bits))
	if signed {
		hi.Rsh(hi, 1)
		lo.Neg(hi)
	}
	if x.Cmp(lo) < 0 || x.Cmp(hi) >= 0 {
		return w, fmt.Errorf("%s out of range for %s", x, typ)
	}
	if x.Sign() < 0 { // two's complement in 256 bits
		x = new(big.Int).Add(x, new(big.Int).Lsh(big.NewInt(1), 256))
	}
	x.FillBytes(w[:])
	return w, nil
}

func hexBytes(v any) ([]byte, error) {
	s, ok := v.(string)
	if !ok || !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
		return nil, fmt.Errorf("want 0x-prefixed hex, got %v", v)
	}
	return hex.DecodeString(s[2:])
}
