package ethapi_test

import (
	"strings"
	"testing"

	"github.com/chaind/chaind/rpc"
	"github.com/chaind/chaind/rpc/ethapi"
)

// eth_call answers return data up to the limit and refuses more with a
// -32005 error that names the limit, whatever the call's gas allows.
func TestCallReturnDataLimit(t *testing.T) {
	_, _, addr := devNode(t)
	const target = "0x00000000000000000000000000000000000000aa"
	for _, tc := range []struct {
		code string // returns that many zero bytes: PUSH3 n PUSH1 0 RETURN
		n    int
		ok   bool
	}{
		{"0x62100000" + "6000f3", ethapi.DefaultReturnDataLimit, true},
		{"0x62100001" + "6000f3", ethapi.DefaultReturnDataLimit + 1, false},
	} {
		r := call(t, addr, "eth_call", map[string]any{"to": target, "gas": "0x1000000"}, "latest",
			map[string]any{target: map[string]any{"code": tc.code}})
		if tc.ok {
			if r.Error != nil || len(r.Result) != 2+2+2*tc.n {
				t.Fatalf("%d bytes: error %+v, %d result bytes", tc.n, r.Error, len(r.Result))
			}
			continue
		}
		if r.Error == nil || r.Error.Code != rpc.CodeLimitExceeded || !strings.Contains(r.Error.Message, "1048576-byte eth_call return data limit") {
			t.Fatalf("%d bytes: %+v", tc.n, r.Error)
		}
	}
}
