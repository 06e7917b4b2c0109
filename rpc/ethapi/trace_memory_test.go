package ethapi_test

import (
	"encoding/json"
	"regexp"
	"testing"

	"github.com/chaind/chaind/internal/types"
)

// The struct logger's memory is a list of 0x-prefixed 32-byte words when
// enableMemory asks for it, and absent otherwise and while memory is
// still empty; the same rule holds for a transaction and for every
// transaction of a traced block.
func TestTraceMemoryWords(t *testing.T) {
	_, key, addr := devNode(t)
	// Runtime code: PUSH1 0x2a PUSH1 0 MSTORE STOP.
	runtime := "602a60005200"
	h := sendTx(t, addr, key, 0, nil, mustHex("6006600c60003960066000f3"+runtime), 200000)
	contract := types.MustAddress(waitReceipt(t, addr, h)["contractAddress"].(string))
	h2 := sendTx(t, addr, key, 1, &contract, nil, 100000)
	blockNum := waitReceipt(t, addr, h2)["blockNumber"].(string)

	word := regexp.MustCompile(`^0x[0-9a-f]{64}$`)
	type step struct {
		Op     string           `json:"op"`
		Memory *json.RawMessage `json:"memory"`
	}
	check := func(name string, logs []step, enabled bool) {
		t.Helper()
		if len(logs) != 4 {
			t.Fatalf("%s: %d steps", name, len(logs))
		}
		for i, l := range logs {
			written := i == 3 // after MSTORE, at STOP
			if !enabled || !written {
				if l.Memory != nil {
					t.Errorf("%s: step %d (%s) has memory %s", name, i, l.Op, *l.Memory)
				}
				continue
			}
			var words []string
			if l.Memory == nil || json.Unmarshal(*l.Memory, &words) != nil || len(words) != 1 || !word.MatchString(words[0]) ||
				words[0] != "0x000000000000000000000000000000000000000000000000000000000000002a" {
				got := "absent"
				if l.Memory != nil {
					got = string(*l.Memory)
				}
				t.Errorf("%s: step %d (%s) memory %s", name, i, l.Op, got)
			}
		}
	}
	for _, enabled := range []bool{true, false} {
		cfg := map[string]any{"enableMemory": enabled}
		r := call(t, addr, "debug_traceTransaction", h2, cfg)
		if r.Error != nil {
			t.Fatal(r.Error.Message)
		}
		var tx struct {
			StructLogs []step `json:"structLogs"`
		}
		if err := json.Unmarshal(r.Result, &tx); err != nil {
			t.Fatal(err)
		}
		check("debug_traceTransaction", tx.StructLogs, enabled)

		r = call(t, addr, "debug_traceBlockByNumber", blockNum, cfg)
		if r.Error != nil {
			t.Fatal(r.Error.Message)
		}
		var blk []struct {
			TxHash types.Hash `json:"txHash"`
			Result struct {
				StructLogs []step `json:"structLogs"`
			} `json:"result"`
		}
		if err := json.Unmarshal(r.Result, &blk); err != nil {
			t.Fatal(err)
		}
		found := false
		for _, tr := range blk {
			if tr.TxHash == h2 {
				found = true
				check("debug_traceBlockByNumber", tr.Result.StructLogs, enabled)
			}
		}
		if !found {
			t.Errorf("block %s has no trace of %s", blockNum, h2)
		}
	}
}
