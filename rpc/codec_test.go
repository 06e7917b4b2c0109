package rpc

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

var codecSeeds = []string{
	`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`,
	` { "jsonrpc" : "2.0" , "id" : "abc" , "method" : "eth_call" , "params" : [ {"to":"0x01","data":"0x"} , "latest" ] } `,
	`{"jsonrpc":"2.0","method":"eth_subscribe","params":["newHeads"]}`,
	`{"jsonrpc":"2.0","id":null,"method":"m"}`,
	`{"jsonrpc":"2.0","id":-1.5e+3,"method":"m","params":null}`,
	`{}`,
	`{"Method":"x","jsonrpc":"2.0","id":1}`,
	`{"method":"a","method":"b","jsonrpc":"2.0","id":1}`,
	`{"jsonrpc":"2.0","id":1,"method":"a\u0062"}`,
	`{"jsonrpc":"2.0","id":1,"method":"é"}`,
	`{"jsonrpc":2,"id":1,"method":"m"}`,
	`{"jsonrpc":"2.0","id":[1],"method":"m"}`,
	`{"jsonrpc":"2.0","id":01,"method":"m"}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":[1,]}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":["\x01"]}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":["\ud800\"\\\/\b\f\n\r\t"]}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":[tru]}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":[1.]}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":[-]}`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":[{"b":null}]}}`,
	`{"jsonrpc":"2.0","id":1,"method":"m"} x`,
	`{"jsonrpc":"2.0","id":1,"method":"m",}`,
	`{"jsonrpc":"2.0","id":1 "method":"m"}`,
	`{"jsonrpc":"2.0","extra":true,"id":1,"method":"m"}`,
	`[1,2]`,
	`"str"`,
	`{"jsonrpc":"2.0","id":1,"method":"m","params":[` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `]}`,
}

// The fast envelope decoder must agree with encoding/json on every input it
// accepts, and its validator must agree with json.Valid.
func FuzzDecodeRequest(f *testing.F) {
	for _, s := range codecSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkDecodeAgrees(t, b)
	})
}

func TestDecodeRequestAgrees(t *testing.T) {
	for _, s := range codecSeeds {
		checkDecodeAgrees(t, []byte(s))
	}
	// The common shapes must take the fast path.
	for _, s := range codecSeeds[:5] {
		var r request
		if !decodeRequestFast([]byte(s), &r) {
			t.Errorf("slow path for %s", s)
		}
	}
}

func checkDecodeAgrees(t *testing.T, b []byte) {
	t.Helper()
	var fast, slow request
	slowErr := json.Unmarshal(b, &slow)
	if decodeRequestFast(b, &fast) {
		if slowErr != nil {
			t.Fatalf("%q: fast path accepted what encoding/json rejects: %v", b, slowErr)
		}
		if fast.JSONRPC != slow.JSONRPC || fast.Method != slow.Method ||
			!bytes.Equal(fast.ID, slow.ID) || !bytes.Equal(fast.Params, slow.Params) ||
			(fast.ID == nil) != (slow.ID == nil) || (fast.Params == nil) != (slow.Params == nil) {
			t.Fatalf("%q: fast %+v, encoding/json %+v", b, fast, slow)
		}
	}
	if end, ok := skipValue(b, skipSpace(b, 0), 0); ok && skipSpace(b, end) == len(b) {
		if !json.Valid(b) {
			t.Fatalf("%q: validator accepted invalid JSON", b)
		}
	} else if json.Valid(b) && depthOf(b) <= maxFastDepth {
		t.Fatalf("%q: validator rejected valid JSON", b)
	}
	if p, ok := splitArray(b); ok {
		var want []json.RawMessage
		if err := json.Unmarshal(b, &want); err != nil {
			t.Fatalf("%q: split an invalid array", b)
		}
		if len(p) != len(want) {
			t.Fatalf("%q: %d elements, encoding/json %d", b, len(p), len(want))
		}
		for i := range p {
			if !bytes.Equal(p[i], want[i]) {
				t.Fatalf("%q: element %d is %q, encoding/json %q", b, i, p[i], want[i])
			}
		}
	}
}

// depthOf is the nesting depth of valid JSON (brackets inside strings are
// not counted).
func depthOf(b []byte) int {
	depth, best, inStr, esc := 0, 0, false, false
	for _, c := range b {
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case !inStr && (c == '[' || c == '{'):
			depth++
			best = max(best, depth)
		case !inStr && (c == ']' || c == '}'):
			depth--
		}
	}
	return best
}

type quoteMe string

func (q quoteMe) MarshalText() ([]byte, error) { return []byte(q), nil }

func TestAppendResultMatchesEncodingJSON(t *testing.T) {
	var nilU256 *types.HexU256
	for _, v := range []any{
		types.HexUint64(0), types.HexUint64(1 << 60), (*types.HexU256)(uint256.NewInt(12345)), nilU256,
		types.Hash{1}, types.Address{2}, types.HexBytes{}, quoteMe(`a"b`), quoteMe("<&>"), quoteMe("é"),
		"plain", nil, true, json.RawMessage(` {"a" : 1} `), []int{1, 2}, map[string]int{"b": 1, "a": 2},
	} {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendResult([]byte("x"), v)
		if err != nil || string(got) != "x"+string(want) {
			t.Errorf("%T %v: got %s (%v), want x%s", v, v, got, err, want)
		}
	}
}

// decodeParam must give what json.Unmarshal gives: the value and the error.
func TestDecodeParamMatchesEncodingJSON(t *testing.T) {
	inputs := []string{`"0x00000000000000000000000000000000000e2c20"`, ` "0x0000000000000000000000000000000000000E2c20" `,
		`"0x1"`, `"0x"`, `"0x01"`, `"latest"`, `"0xzz"`, `null`, `1`, `"\u0030x1"`, `"é"`, `""`, `"0x` + strings.Repeat("f", 64) + `"`,
		`"0x` + strings.Repeat("f", 65) + `"`, ` {"to":"0x0000000000000000000000000000000000000002","data":"0x01"} `, `{"gas":1}`,
		`{"gas":"0x1","gas":"0x2"}`, `[1]`, `{"blockHash":"0x` + strings.Repeat("a", 64) + `"}`, `"earliest"`, `"0x10"`}
	for _, in := range inputs {
		for _, mk := range []func() any{
			func() any { return new(types.Address) }, func() any { return new(types.Hash) },
			func() any { return new(types.HexUint64) }, func() any { return new(types.HexU256) },
			func() any { return new(types.HexBytes) }, func() any { return new(string) },
			func() any { return new(json.RawMessage) }, func() any { return new(strictObject) },
		} {
			got, want := mk(), mk()
			gotErr := decodeParam([]byte(in), got)
			wantErr := json.Unmarshal([]byte(in), want)
			if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
				t.Errorf("%s into %T: error %v, encoding/json %v", in, got, gotErr, wantErr)
			}
			g, _ := json.Marshal(got)
			w, _ := json.Marshal(want)
			if !bytes.Equal(g, w) {
				t.Errorf("%s into %T: %s, encoding/json %s", in, got, g, w)
			}
		}
	}
}

// strictObject decodes itself, as the Ethereum parameter objects do, and
// turns down anything but an object.
type strictObject map[string]json.RawMessage

func (o *strictObject) UnmarshalJSON(b []byte) error {
	if len(b) == 0 || b[0] != '{' {
		return errors.New("not an object")
	}
	type plain strictObject
	return json.Unmarshal(b, (*plain)(o))
}
