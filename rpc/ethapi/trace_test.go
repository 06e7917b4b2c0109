package ethapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/types"
)

func TestTrace(t *testing.T) {
	_, key, addr := devNode(t)
	// Runtime code: PUSH1 1 PUSH1 0 SSTORE STOP, deployed by an init code
	// that copies it to memory and returns it.
	runtime := "600160005500"
	initCode := mustHex("6006600c60003960066000f3" + runtime)
	h := sendTx(t, addr, key, 0, nil, initCode, 200000)
	rc := waitReceipt(t, addr, h)
	contract := types.MustAddress(rc["contractAddress"].(string))
	h2 := sendTx(t, addr, key, 1, &contract, nil, 100000)
	waitReceipt(t, addr, h2)

	r := call(t, addr, "debug_traceTransaction", h2)
	if r.Error != nil {
		t.Fatal(r.Error.Message)
	}
	var sl struct {
		Gas        uint64 `json:"gas"`
		Failed     bool   `json:"failed"`
		StructLogs []struct {
			Op      string            `json:"op"`
			Depth   int               `json:"depth"`
			Stack   []string          `json:"stack"`
			Storage map[string]string `json:"storage"`
		} `json:"structLogs"`
	}
	if err := json.Unmarshal(r.Result, &sl); err != nil {
		t.Fatal(err)
	}
	ops := ""
	for _, l := range sl.StructLogs {
		ops += l.Op + " "
	}
	if ops != "PUSH1 PUSH1 SSTORE STOP " || sl.Failed || sl.Gas == 0 {
		t.Fatalf("struct logs: %s", r.Result)
	}
	if st := sl.StructLogs[2]; len(st.Stack) != 2 || st.Storage["0x0000000000000000000000000000000000000000000000000000000000000000"] != "0x0000000000000000000000000000000000000000000000000000000000000001" {
		t.Errorf("SSTORE step: %+v", st)
	}

	r = call(t, addr, "debug_traceTransaction", h2, map[string]any{"tracer": "callTracer"})
	if r.Error != nil {
		t.Fatal(r.Error.Message)
	}
	var cf struct {
		Type    string          `json:"type"`
		To      types.Address   `json:"to"`
		GasUsed types.HexUint64 `json:"gasUsed"`
	}
	if err := json.Unmarshal(r.Result, &cf); err != nil {
		t.Fatal(err)
	}
	if cf.Type != "CALL" || cf.To != contract || uint64(cf.GasUsed) != sl.Gas {
		t.Errorf("call frame: %s", r.Result)
	}

	for _, tc := range []struct {
		method string
		param  any
	}{
		{"debug_traceTransaction", types.Hash{1}},
		{"debug_traceBlockByNumber", "0x0"},
		{"debug_traceBlockByHash", types.Hash{1}},
		{"debug_traceBlockByNumber", "0xffffff"},
	} {
		if r := call(t, addr, tc.method, tc.param); r.Error == nil {
			t.Errorf("%s(%v): no error", tc.method, tc.param)
		}
	}
	for _, tc := range []struct{ tracer, want string }{
		{"{step: function() {}, result: function() { return 1 }}", "JavaScript tracers are out of scope"},
		{"opcountTracer", "JavaScript tracers are out of scope"},
		{"noSuchTracer", "tracer not found"},
	} {
		r := call(t, addr, "debug_traceTransaction", h2, map[string]any{"tracer": tc.tracer})
		if r.Error == nil || !strings.Contains(r.Error.Message, tc.want) {
			t.Errorf("tracer %q: error %+v, want %q", tc.tracer, r.Error, tc.want)
		}
	}
}
