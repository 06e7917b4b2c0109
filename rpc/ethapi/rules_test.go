package ethapi_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/chaind/chaind/rpc"
)

// Every invalid-params shape of every method answers -32602 with a message
// that names the argument at fault. The table is the rule applied method by
// method, not a copy of one vector.
func TestInvalidParamsNameTheArgument(t *testing.T) {
	fx := newFixture(t)
	addr := quote(fx.contract.Hex())
	long := quote("0x" + strings.Repeat("11", 33))
	future := fmt.Sprintf(`"0x%x"`, fx.n.Chain.Head().Number()+1000)
	for _, tc := range []struct {
		method, params string
		arg            int
	}{
		// Storage keys: bad hex, too long, not a string — in every method
		// that takes them.
		{"eth_getStorageAt", `[` + addr + `,"0xasdf","latest"]`, 1},
		{"eth_getStorageAt", `[` + addr + `,` + long + `,"latest"]`, 1},
		{"eth_getStorageAt", `[` + addr + `,5,"latest"]`, 1},
		{"eth_getProof", `[` + addr + `,["0xasdf"],"latest"]`, 1},
		{"eth_getProof", `[` + addr + `,[` + long + `],"latest"]`, 1},
		{"eth_getStorageValues", `[{` + addr + `:["0xasdf"]},"latest"]`, 0},
		{"eth_getStorageValues", `[{` + addr + `:[` + long + `]},"latest"]`, 0},
		// ... and as state-override slots of every call that takes them.
		{"eth_call", `[{"to":` + addr + `},"latest",{` + addr + `:{"state":{` + long + `:"0x00"}}}]`, 2},
		{"eth_call", `[{"to":` + addr + `},"latest",{` + addr + `:{"stateDiff":{"0xasdf":"0x00"}}}]`, 2},
		{"eth_estimateGas", `[{"to":` + addr + `},"latest",{` + addr + `:{"state":{` + long + `:"0x00"}}}]`, 2},
		{"eth_createAccessList", `[{"to":` + addr + `},"latest",{` + addr + `:{"state":{` + long + `:"0x00"}}}]`, 2},
		{"eth_simulateV1", `[{"blockStateCalls":[{"stateOverrides":{` + addr + `:{"state":{` + long + `:"0x00"}}}}]},"latest"]`, 0},
		// A call object whose fields contradict each other, in every method
		// that takes one.
		{"eth_call", `[{"to":` + addr + `,"gasPrice":"0x1","maxFeePerGas":"0x1"},"latest"]`, 0},
		{"eth_estimateGas", `[{"to":` + addr + `,"gasPrice":"0x1","maxPriorityFeePerGas":"0x1"}]`, 0},
		{"eth_createAccessList", `[{"to":` + addr + `,"gasPrice":"0x1","maxFeePerGas":"0x1"}]`, 0},
		{"eth_call", `[{"to":` + addr + `,"data":"0x12","input":"0x34"},"latest"]`, 0},
		{"eth_estimateGas", `[{"to":` + addr + `,"data":"0x12","input":"0x34"}]`, 0},
		{"eth_createAccessList", `[{"to":` + addr + `,"data":"0x12","input":"0x34"}]`, 0},
		{"eth_simulateV1", `[{"blockStateCalls":[{"calls":[{"to":` + addr + `,"data":"0x12","input":"0x34"}]}]},"latest"]`, 0},
		{"eth_sendTransaction", `[{"from":` + quote(fx.acct0.Hex()) + `,"to":` + addr + `,"data":"0x12","input":"0x34"}]`, 0},
		{"eth_signTransaction", `[{"from":` + quote(fx.acct0.Hex()) + `,"to":` + addr + `,"data":"0x12","input":"0x34"}]`, 0},
		// An empty request names no slot at all.
		{"eth_getStorageValues", `[{},"latest"]`, 0},
		{"eth_getStorageValues", `[{` + addr + `:[]},"latest"]`, 0},
		// Ranges are checked against the head, at either end.
		{"eth_getLogs", `[{"fromBlock":"0x0","toBlock":` + future + `}]`, 0},
		{"eth_getLogs", `[{"fromBlock":` + future + `}]`, 0},
		{"eth_getLogs", `[{"fromBlock":"0x2","toBlock":"0x1"}]`, 0},
		{"eth_feeHistory", `["0x4",` + future + `,[]]`, 1},
		{"eth_getLogs", `[{"blockHash":"0x` + strings.Repeat("00", 32) + `","fromBlock":"0x0"}]`, 0},
		// Plain decoding failures.
		{"eth_getBalance", `["0x1234","latest"]`, 0},
		{"eth_getBalance", `[` + addr + `,"lastest"]`, 1},
		{"eth_getCode", `[` + addr + `,12]`, 1},
		{"eth_getTransactionCount", `[` + addr + `,{"blockHash":"0x12"}]`, 1},
		{"eth_call", `[{"to":"0x12"},"latest"]`, 0},
		{"eth_estimateGas", `[{"gas":"zz"}]`, 0},
		{"eth_getBlockByNumber", `["latest","yes"]`, 1},
		{"eth_getBlockByHash", `["0x12",false]`, 0},
		{"eth_feeHistory", `["0x1","latest",["x"]]`, 2},
		{"eth_feeHistory", `["0x1","latest",[50,10]]`, 2},
		{"eth_feeHistory", `["0x1","latest",[101]]`, 2},
		{"eth_newFilter", `[{"blockHash":"0x` + strings.Repeat("00", 32) + `"}]`, 0},
		{"eth_simulateV1", `[{"blockStateCalls":[]},"latest"]`, 0},
		{"eth_simulateV1", `[{"blockStateCalls":[{"calls":[{"gasPrice":"0x1","maxFeePerGas":"0x1"}]}]},"latest"]`, 0},
		{"testing_buildBlockV1", `[` + quote(fx.genesis.Hex()) + `,{"timestamp":"0x0","prevRandao":"0x` + strings.Repeat("00", 32) + `","suggestedFeeRecipient":"0x` + strings.Repeat("00", 20) + `","withdrawals":[],"parentBeaconBlockRoot":"0x` + strings.Repeat("00", 32) + `"},[]]`, 1},
		{"testing_buildBlockV1", `[` + quote(fx.genesis.Hex()) + `,{"timestamp":"0xffffffff","prevRandao":"0x` + strings.Repeat("00", 32) + `","suggestedFeeRecipient":"0x` + strings.Repeat("00", 20) + `","withdrawals":[],"parentBeaconBlockRoot":"0x` + strings.Repeat("00", 32) + `"},["0x01"]]`, 2},
	} {
		t.Run(tc.method+" "+tc.params, func(t *testing.T) {
			r := fx.call(t, tc.method, tc.params)
			if r.Error == nil {
				t.Fatalf("result %s, want invalid params", r.Result)
			}
			if r.Error.Code != rpc.CodeInvalidParams {
				t.Fatalf("error %d %q, want %d", r.Error.Code, r.Error.Message, rpc.CodeInvalidParams)
			}
			if want := fmt.Sprintf("invalid argument %d", tc.arg); !strings.HasPrefix(r.Error.Message, want) {
				t.Fatalf("message %q does not name the argument (%q)", r.Error.Message, want)
			}
		})
	}
}

// A stored filter whose range runs past the head is refused when its logs
// are asked for, as eth_getLogs refuses the same range.
func TestFilterRangeBeyondHead(t *testing.T) {
	fx := newFixture(t)
	future := fmt.Sprintf(`"0x%x"`, fx.n.Chain.Head().Number()+1000)
	r := fx.call(t, "eth_newFilter", `[{"fromBlock":"0x0","toBlock":`+future+`}]`)
	if r.Error != nil {
		t.Fatalf("eth_newFilter: %s", r.Error.Message)
	}
	r = fx.call(t, "eth_getFilterLogs", `[`+string(r.Result)+`]`)
	if r.Error == nil || r.Error.Code != rpc.CodeInvalidParams {
		t.Fatalf("eth_getFilterLogs over a range past the head: %s %+v", r.Result, r.Error)
	}
}

// Every stored block object carries totalDifficulty (0x0 on a
// proof-of-stake chain from genesis), by number, tag and hash; the pending
// block is the one the pool would build next, with hash, nonce and miner
// null, wherever "pending" names a block.
func TestBlockObjectsDifficultyAndPending(t *testing.T) {
	fx := newFixture(t)
	for _, tc := range []struct{ method, params string }{
		{"eth_getBlockByNumber", `["0x0",false]`},
		{"eth_getBlockByNumber", `["latest",true]`},
		{"eth_getBlockByHash", `[` + quote(fx.block1.Hex()) + `,false]`},
		{"eth_getBlockByHash", `[` + quote(fx.genesis.Hex()) + `,true]`},
	} {
		r := fx.call(t, tc.method, tc.params)
		var blk map[string]any
		if r.Error != nil || json.Unmarshal(r.Result, &blk) != nil {
			t.Fatalf("%s %s: %s %+v", tc.method, tc.params, r.Result, r.Error)
		}
		if blk["totalDifficulty"] != "0x0" {
			t.Errorf("%s %s: totalDifficulty %v, want 0x0", tc.method, tc.params, blk["totalDifficulty"])
		}
	}
	head := fx.n.Chain.Head().Number()
	r := fx.call(t, "eth_getBlockByNumber", `["pending",true]`)
	var pending map[string]any
	if r.Error != nil || json.Unmarshal(r.Result, &pending) != nil {
		t.Fatalf("pending block: %s %+v", r.Result, r.Error)
	}
	for _, k := range []string{"hash", "nonce", "miner"} {
		if v, ok := pending[k]; !ok || v != nil {
			t.Errorf("pending block: %s = %v, want null", k, v)
		}
	}
	if _, ok := pending["totalDifficulty"]; ok {
		t.Error("pending block carries totalDifficulty")
	}
	num, _ := pending["number"].(string)
	var n uint64
	if _, err := fmt.Sscanf(num, "0x%x", &n); err != nil || n <= head {
		t.Errorf("pending block number %q, want above the head %d", num, head)
	}
	if r := fx.call(t, "eth_getBlockTransactionCountByNumber", `["pending"]`); r.Error != nil {
		t.Errorf("eth_getBlockTransactionCountByNumber pending: %s", r.Error.Message)
	}
	// The pending block's receipts are those of its own transactions (none
	// from an empty pool), not the head's.
	txs, _ := pending["transactions"].([]any)
	var receipts []any
	r = fx.call(t, "eth_getBlockReceipts", `["pending"]`)
	if r.Error != nil || json.Unmarshal(r.Result, &receipts) != nil || receipts == nil {
		t.Fatalf("eth_getBlockReceipts pending: %s %+v", r.Result, r.Error)
	}
	if len(receipts) != len(txs) {
		t.Errorf("eth_getBlockReceipts pending: %d receipts for %d pending transactions", len(receipts), len(txs))
	}
}

// eth_capabilities names the head it describes and what history is served
// from where: everything from genesis except state, which a pruning node
// keeps for a window of recent blocks.
func TestCapabilities(t *testing.T) {
	fx := newFixture(t)
	var caps struct {
		Head struct {
			Number string `json:"number"`
			Hash   string `json:"hash"`
		} `json:"head"`
		State struct {
			Disabled       bool   `json:"disabled"`
			OldestBlock    string `json:"oldestBlock"`
			DeleteStrategy *struct {
				Type            string `json:"type"`
				RetentionBlocks string `json:"retentionBlocks"`
			} `json:"deleteStrategy"`
		} `json:"state"`
		Blocks, Logs, Receipts, Tx struct {
			Disabled    bool   `json:"disabled"`
			OldestBlock string `json:"oldestBlock"`
		}
	}
	r := fx.call(t, "eth_capabilities", `[]`)
	if r.Error != nil || json.Unmarshal(r.Result, &caps) != nil {
		t.Fatalf("eth_capabilities: %s %+v", r.Result, r.Error)
	}
	blk := fx.call(t, "eth_getBlockByNumber", `[`+quote(caps.Head.Number)+`,false]`)
	if !strings.Contains(string(blk.Result), caps.Head.Hash) {
		t.Errorf("head %s %s is not the block of that number: %s", caps.Head.Number, caps.Head.Hash, blk.Result)
	}
	if caps.State.DeleteStrategy == nil || caps.State.DeleteStrategy.Type != "window" || caps.State.DeleteStrategy.RetentionBlocks != "0x80" {
		t.Errorf("state retention %+v, want a window of 128 blocks (the default)", caps.State.DeleteStrategy)
	}
	for name, res := range map[string]struct {
		Disabled    bool   `json:"disabled"`
		OldestBlock string `json:"oldestBlock"`
	}{"blocks": caps.Blocks, "logs": caps.Logs, "receipts": caps.Receipts, "tx": caps.Tx} {
		if res.Disabled || res.OldestBlock != "0x0" {
			t.Errorf("%s: %+v, want served from genesis", name, res)
		}
	}
}
