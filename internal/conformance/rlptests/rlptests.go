// Package rlptests runs ethereum-tests/RLPTests against the rlp package:
// valid cases must encode to the expected bytes and decode back to them,
// INVALID cases must be rejected, VALID (random) cases must decode.
package rlptests

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"path/filepath"
	"strings"

	"github.com/chaind/chaind/internal/conformance"
	"github.com/chaind/chaind/rlp"
)

type testCase struct {
	In  json.RawMessage `json:"in"`
	Out string          `json:"out"`
}

// Run runs every JSON file below dir.
func Run(dir string, r *conformance.Report) error {
	return conformance.EachCase(dir, func(path, name string, tc testCase) error {
		id := filepath.Base(path) + "/" + name
		if err := runCase(tc); err != nil {
			r.Fail(id, "%v", err)
		} else {
			r.Pass(id)
		}
		return nil
	})
}

func runCase(tc testCase) error {
	out, err := parseHex(tc.Out)
	if err != nil {
		return fmt.Errorf("bad out %q: %v", tc.Out, err)
	}
	var marker string
	if json.Unmarshal(tc.In, &marker) == nil {
		switch marker {
		case "INVALID":
			if _, err := rlp.DecodeItem(out); err == nil {
				return errors.New("invalid input decoded without error")
			}
			if err := rlp.Validate(out); err == nil {
				return errors.New("invalid input passed Validate")
			}
			return nil
		case "VALID":
			return decodeReencode(out)
		}
	}
	dec := json.NewDecoder(bytes.NewReader(tc.In))
	dec.UseNumber()
	var in any
	if err := dec.Decode(&in); err != nil {
		return fmt.Errorf("bad in: %v", err)
	}
	it, err := toItem(in)
	if err != nil {
		return err
	}
	if enc := it.Encode(); !bytes.Equal(enc, out) {
		return fmt.Errorf("encode: got %x, want %x", enc, out)
	}
	return decodeReencode(out)
}

func decodeReencode(out []byte) error {
	if err := rlp.Validate(out); err != nil {
		return fmt.Errorf("validate: %v", err)
	}
	it, err := rlp.DecodeItem(out)
	if err != nil {
		return fmt.Errorf("decode: %v", err)
	}
	if enc := it.Encode(); !bytes.Equal(enc, out) {
		return fmt.Errorf("re-encode: got %x, want %x", enc, out)
	}
	return nil
}

// toItem converts the JSON form of a test input into an rlp.Item.
func toItem(v any) (rlp.Item, error) {
	switch x := v.(type) {
	case string:
		if strings.HasPrefix(x, "#") {
			n, ok := new(big.Int).SetString(x[1:], 10)
			if !ok || n.Sign() < 0 {
				return rlp.Item{}, fmt.Errorf("bad big integer %q", x)
			}
			return rlp.StringItem(n.Bytes()), nil
		}
		return rlp.StringItem([]byte(x)), nil
	case json.Number:
		n, ok := new(big.Int).SetString(x.String(), 10)
		if !ok || n.Sign() < 0 {
			return rlp.Item{}, fmt.Errorf("bad integer %q", x)
		}
		return rlp.StringItem(n.Bytes()), nil
	case []any:
		items := make([]rlp.Item, len(x))
		for i, e := range x {
			it, err := toItem(e)
			if err != nil {
				return rlp.Item{}, err
			}
			items[i] = it
		}
		return rlp.ListItem(items...), nil
	}
	return rlp.Item{}, fmt.Errorf("unsupported input %T", v)
}

// parseHex accepts the spellings the vectors use: with or without 0x, any
// case, possibly empty.
func parseHex(s string) ([]byte, error) {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	return hex.DecodeString(s)
}
