package ethapi

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/chaind/chaind/rpc"
)

// The parameter objects decode through rpc.DecodeValue, which must give
// what json.Unmarshal gives: the value and the error.
func TestDecodeValueMatchesEncodingJSON(t *testing.T) {
	inputs := []string{`"0x00000000000000000000000000000000000e2c20"`, ` "0x0000000000000000000000000000000000000E2c20" `,
		`"0x1"`, `"0x"`, `"0x01"`, `"latest"`, `"0xzz"`, `null`, `1`, `"\u0030x1"`, `"é"`, `""`, `"0x` + strings.Repeat("f", 64) + `"`,
		`"0x` + strings.Repeat("f", 65) + `"`, ` {"to":"0x0000000000000000000000000000000000000002","data":"0x01"} `, `{"gas":1}`,
		`{"gas":"0x1","gas":"0x2"}`, `[1]`, `{"blockHash":"0x` + strings.Repeat("a", 64) + `"}`, `"earliest"`, `"0x10"`}
	for _, in := range inputs {
		for _, mk := range []func() any{
			func() any { return new(CallArgs) }, func() any { return new(BlockRef) },
		} {
			got, want := mk(), mk()
			gotErr := rpc.DecodeValue([]byte(in), got)
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

// CallArgs decoding must give what encoding/json gives without the method.
func FuzzCallArgsJSON(f *testing.F) {
	for _, s := range []string{
		`{"to":"0x00000000000000000000000000000000000e2c20","data":"0x70a08231"}`,
		`{"from":"0x0000000000000000000000000000000000000001","to":"0x0000000000000000000000000000000000000002","gas":"0x5208","gasPrice":"0x1","value":"0x10","nonce":"0x0","input":"0x","chainId":"0x1fb6","type":"0x2","maxFeePerGas":"0x2","maxPriorityFeePerGas":"0x1","maxFeePerBlobGas":"0x3"}`,
		`{}`, `null`, `{"to":null}`, `{"TO":"0x0000000000000000000000000000000000000002"}`, `{"to":"0x02","to":"0x03"}`,
		`{"gas":"0xzz"}`, `{"gas":5}`, `{"accessList":[]}`, `{"data":"0x01","input":"0x02"}`, `{"value":"0x` + strings.Repeat("f", 65) + `"}`,
		`{"to":"0x0000000000000000000000000000000000000002",}`, ` { "gas" : "0x1" } `, `{"gas":"0x1"}x`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		type plain CallArgs
		var got CallArgs
		var want plain
		gotErr := json.Unmarshal(b, &got)
		wantErr := json.Unmarshal(b, &want)
		if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Fatalf("%q: error %v, encoding/json %v", b, gotErr, wantErr)
		}
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(CallArgs(want))
		if !bytes.Equal(g, w) {
			t.Fatalf("%q: %s, encoding/json %s", b, g, w)
		}
	})
}
