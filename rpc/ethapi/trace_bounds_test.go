package ethapi_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/node"
	"github.com/chaind/chaind/internal/types"
)

// A trace is bounded in size and time. The transaction here grows memory
// to 64 KiB and then loops until its 100,000 gas run out: some 20,000
// steps, each of which would carry the whole memory with enableMemory
// (gigabytes of JSON; the node used to build them). Without memory the
// trace fits; with it the answer is an error naming the size limit, as
// it is past the request's own time cap. The struct logger's limit keeps
// the first entries only.
func TestTraceBounds(t *testing.T) {
	_, key, addr := devNode(t)
	// Runtime: PUSH1 1 PUSH2 0xffe0 MSTORE; JUMPDEST PUSH1 6 JUMP (forever).
	runtime := "600161ffe0525b600656"
	h := sendTx(t, addr, key, 0, nil, mustHex("600a600c600039600a6000f3"+runtime), 200000)
	contract := types.MustAddress(waitReceipt(t, addr, h)["contractAddress"].(string))
	h2 := sendTx(t, addr, key, 1, &contract, nil, 100000)
	waitReceipt(t, addr, h2)

	type trace struct {
		StructLogs []struct {
			Op     string           `json:"op"`
			Stack  *json.RawMessage `json:"stack"`
			Memory *json.RawMessage `json:"memory"`
		} `json:"structLogs"`
	}
	for _, tc := range []struct {
		name     string
		cfg      map[string]any
		err      string // "" : a trace
		steps    int    // 0: any number over 1,000
		noStack  bool
		noMemory bool
	}{
		{name: "default: no memory, under the cap", cfg: map[string]any{}, noMemory: true},
		{name: "memory past the cap", cfg: map[string]any{"enableMemory": true}, err: "trace exceeds the node's limit of 26214400 bytes"},
		{name: "memory off by the legacy option", cfg: map[string]any{"enableMemory": true, "disableMemory": true}, noMemory: true},
		{name: "limit keeps the first entries", cfg: map[string]any{"enableMemory": true, "limit": 5}, steps: 5},
		{name: "no stack", cfg: map[string]any{"disableStack": true}, noStack: true, noMemory: true},
		{name: "past the time cap", cfg: map[string]any{"timeout": "1ns"}, err: "execution aborted (timeout = 1ns)"},
		{name: "callTracer past the time cap", cfg: map[string]any{"tracer": "callTracer", "timeout": "1ns"}, err: "execution aborted (timeout = 1ns)"},
		{name: "prestateTracer past the time cap", cfg: map[string]any{"tracer": "prestateTracer", "timeout": "1ns"}, err: "execution aborted (timeout = 1ns)"},
		{name: "flatCallTracer past the time cap", cfg: map[string]any{"tracer": "flatCallTracer", "timeout": "1ns"}, err: "execution aborted (timeout = 1ns)"},
		{name: "4byteTracer past the time cap", cfg: map[string]any{"tracer": "4byteTracer", "timeout": "1ns"}, err: "execution aborted (timeout = 1ns)"},
		{name: "muxTracer past the time cap", cfg: map[string]any{"tracer": "muxTracer", "tracerConfig": map[string]any{"noopTracer": map[string]any{}}, "timeout": "1ns"}, err: "execution aborted (timeout = 1ns)"},
		{name: "noopTracer past the time cap", cfg: map[string]any{"tracer": "noopTracer", "timeout": "1ns"}, err: "execution aborted (timeout = 1ns)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := call(t, addr, "debug_traceTransaction", h2, tc.cfg)
			if tc.err != "" {
				if r.Error == nil || !strings.Contains(r.Error.Message, tc.err) {
					t.Fatalf("got %.200s, %+v; want the error %q", r.Result, r.Error, tc.err)
				}
				return
			}
			if r.Error != nil {
				t.Fatal(r.Error.Message)
			}
			if len(r.Result) > 25<<20 {
				t.Fatalf("a %d-byte trace", len(r.Result))
			}
			var tr trace
			if err := json.Unmarshal(r.Result, &tr); err != nil {
				t.Fatal(err)
			}
			if n := len(tr.StructLogs); tc.steps != 0 && n != tc.steps || tc.steps == 0 && n < 1000 {
				t.Fatalf("%d steps, want %d", n, tc.steps)
			}
			for i, l := range tr.StructLogs {
				if (l.Stack == nil) != tc.noStack || (l.Memory == nil) != (tc.noMemory || i < 3) {
					t.Fatalf("step %d (%s): stack %v memory %v", i, l.Op, l.Stack != nil, l.Memory != nil)
				}
			}
		})
	}
	if r := call(t, addr, "debug_traceTransaction", h2, map[string]any{"timeout": "soon"}); r.Error == nil || r.Error.Code != -32602 {
		t.Fatalf("a bad timeout: %+v", r.Error)
	}
}

// The size cap follows the node's response cap (--limits.response) and
// holds for the callTracer too: a call whose input alone is past the cap
// is refused with the limit named, and the struct logger likewise.
func TestTraceSizeCapFollowsResponseCap(t *testing.T) {
	key, _ := crypto.GenerateKey()
	from := types.Address(crypto.PubkeyToAddress(key.PubKey()))
	cfg := node.Config{Genesis: chain.DevGenesis(8118, []types.Address{from}, uint64(time.Now().Unix())),
		HTTPPort: 0, WSPort: -1, Validator: key}
	cfg.Ops.Limits.ResponseBytes = 16 << 10
	n, err := node.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	addr := n.Addr("http")
	to := types.Address{0xaa}
	small := sendTx(t, addr, key, 0, &to, nil, 21000)
	big := sendTx(t, addr, key, 1, &to, make([]byte, 12<<10), 300000) // 24 KiB of hex
	waitReceipt(t, addr, small)
	waitReceipt(t, addr, big)
	for _, tc := range []struct {
		h      types.Hash
		tracer string
		err    bool
	}{
		{small, "callTracer", false},
		{big, "callTracer", true},
		{small, "", false},
		{big, "flatCallTracer", true},
		{big, "muxTracer", true},
		{big, "4byteTracer", false}, // a selector and a size, whatever the input
		{big, "prestateTracer", false},
		{small, "trace_transaction", false},
		{big, "trace_transaction", true},
	} {
		var r rpcResp
		switch tc.tracer {
		case "trace_transaction":
			r = call(t, addr, "trace_transaction", tc.h)
		case "muxTracer":
			r = call(t, addr, "debug_traceTransaction", tc.h, map[string]any{"tracer": tc.tracer, "tracerConfig": map[string]any{"callTracer": map[string]any{}}})
		default:
			r = call(t, addr, "debug_traceTransaction", tc.h, map[string]any{"tracer": tc.tracer})
		}
		const want = "trace exceeds the node's limit of 16384 bytes"
		switch {
		case tc.err && (r.Error == nil || !strings.Contains(r.Error.Message, want)):
			t.Errorf("%q of a 12 KiB call: %.100s %+v, want %q", tc.tracer, r.Result, r.Error, want)
		case !tc.err && r.Error != nil:
			t.Errorf("%q of a transfer: %s", tc.tracer, r.Error.Message)
		}
	}
}
