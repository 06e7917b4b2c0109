package ethapi_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

type simCall = map[string]any

func simulate(t *testing.T, addr string, opts map[string]any) rpcResp {
	t.Helper()
	return call(t, addr, "eth_simulateV1", opts, "latest")
}

func TestSimulateErrors(t *testing.T) {
	_, _, addr := devNode(t)
	rich := "0xc000000000000000000000000000000000000000"
	fund := map[string]any{rich: map[string]any{"balance": "0x3e8"}}
	for _, tc := range []struct {
		name string
		opts map[string]any
		code int
	}{
		{"empty input", map[string]any{"blockStateCalls": []any{}}, -32602},
		{"numbers out of order", map[string]any{"blockStateCalls": []any{
			map[string]any{"blockOverrides": map[string]any{"number": "0x10"}},
			map[string]any{"blockOverrides": map[string]any{"number": "0x10"}},
		}}, -38020},
		{"timestamps out of order", map[string]any{"blockStateCalls": []any{
			map[string]any{"blockOverrides": map[string]any{"time": "0xffffffff"}},
			map[string]any{"blockOverrides": map[string]any{"time": "0xfffffffe"}},
		}}, -38021},
		{"insufficient funds", map[string]any{"blockStateCalls": []any{
			map[string]any{"calls": []simCall{{"from": rich, "to": rich, "value": "0x3e8"}}},
		}}, -38014},
		{"intrinsic gas", map[string]any{"blockStateCalls": []any{
			map[string]any{"calls": []simCall{{"from": rich, "to": rich, "gas": "0x0"}}},
		}}, -38013},
		{"nonce too low with validation", map[string]any{"validation": true, "blockStateCalls": []any{
			map[string]any{"stateOverrides": map[string]any{rich: map[string]any{"nonce": "0x5", "balance": "0xffffffffffffffffffff"}},
				"calls": []simCall{{"from": rich, "to": rich, "nonce": "0x1", "maxFeePerGas": "0xffffffffff"}}},
		}}, -38010},
		{"block gas limit", map[string]any{"blockStateCalls": []any{
			map[string]any{"stateOverrides": fund, "blockOverrides": map[string]any{"gasLimit": "0x5208"},
				"calls": []simCall{{"from": rich, "to": rich, "gas": "0x5209"}}},
		}}, -38015},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := simulate(t, addr, tc.opts)
			if r.Error == nil {
				t.Fatalf("no error; result %s", r.Result)
			}
			if r.Error.Code != tc.code {
				t.Fatalf("code %d (%s), want %d", r.Error.Code, r.Error.Message, tc.code)
			}
		})
	}
}

type simBlockResult struct {
	Number     types.HexUint64 `json:"number"`
	Timestamp  types.HexUint64 `json:"timestamp"`
	Hash       types.Hash      `json:"hash"`
	ParentHash types.Hash      `json:"parentHash"`
	GasUsed    types.HexUint64 `json:"gasUsed"`
	Calls      []struct {
		ReturnData types.HexBytes  `json:"returnData"`
		GasUsed    types.HexUint64 `json:"gasUsed"`
		Status     types.HexUint64 `json:"status"`
		Logs       []struct {
			Address types.Address `json:"address"`
			Topics  []types.Hash  `json:"topics"`
			Data    types.HexBytes
		} `json:"logs"`
		Error *struct {
			Code int    `json:"code"`
			Data string `json:"data"`
		} `json:"error"`
	} `json:"calls"`
	Transactions []json.RawMessage `json:"transactions"`
}

func TestSimulateBlocks(t *testing.T) {
	n, _, addr := devNode(t)
	head := n.Chain.Head()
	a, b := "0xc000000000000000000000000000000000000000", "0xc100000000000000000000000000000000000000"
	// PUSH1 0 PUSH1 0 REVERT: always reverts with empty data.
	reverter := "0xc200000000000000000000000000000000000000"
	r := simulate(t, addr, map[string]any{
		"traceTransfers": true,
		"blockStateCalls": []any{
			map[string]any{
				"stateOverrides": map[string]any{a: map[string]any{"balance": "0x3e8"}, reverter: map[string]any{"code": "0x60006000fd"}},
				"calls":          []simCall{{"from": a, "to": b, "value": "0x3e8"}, {"from": b, "to": reverter}},
			},
			map[string]any{"blockOverrides": map[string]any{"number": hexU(head.Number() + 3)}},
		},
	})
	if r.Error != nil {
		t.Fatal(r.Error.Message)
	}
	var blocks []simBlockResult
	if err := json.Unmarshal(r.Result, &blocks); err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 3 { // the gap to number head+3 is filled with an empty block
		t.Fatalf("%d blocks, want 3", len(blocks))
	}
	for i, blk := range blocks {
		if uint64(blk.Number) != head.Number()+uint64(i)+1 || uint64(blk.Timestamp) != head.Time()+12*uint64(i+1) {
			t.Errorf("block %d: number %d time %d", i, blk.Number, blk.Timestamp)
		}
		if i > 0 && blk.ParentHash != blocks[i-1].Hash {
			t.Errorf("block %d does not link to block %d", i, i-1)
		}
	}
	if blocks[0].ParentHash != head.Hash() {
		t.Error("first block does not link to the base")
	}
	calls := blocks[0].Calls
	if len(calls) != 2 || calls[0].Status != 1 || calls[0].GasUsed != 21000 {
		t.Fatalf("transfer call: %+v", calls)
	}
	if len(calls[0].Logs) != 1 || calls[0].Logs[0].Address != types.MustAddress("0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee") || len(calls[0].Logs[0].Topics) != 3 {
		t.Errorf("transfer log: %+v", calls[0].Logs)
	}
	if calls[1].Status != 0 || calls[1].Error == nil || calls[1].Error.Code != 3 || len(calls[1].Logs) != 0 {
		t.Errorf("reverting call: %+v", calls[1])
	}
	if len(blocks[0].Transactions) != 2 || uint64(blocks[0].GasUsed) != 21000+uint64(calls[1].GasUsed) {
		t.Errorf("block 0: %d txs, gas used %d", len(blocks[0].Transactions), blocks[0].GasUsed)
	}
	// The simulation must not touch the chain.
	if n.Chain.Head().Hash() != head.Hash() {
		t.Error("head moved")
	}
}

func hexU(v uint64) string { return string(types.AppendHexUint64(nil, v)) }

func TestEthConfigAndStorageValues(t *testing.T) {
	_, _, addr := devNode(t)
	r := call(t, addr, "eth_config")
	if r.Error != nil {
		t.Fatal(r.Error.Message)
	}
	var cfg struct {
		Current struct {
			ChainID     types.HexUint64          `json:"chainId"`
			ForkID      types.HexBytes           `json:"forkId"`
			Precompiles map[string]types.Address `json:"precompiles"`
		} `json:"current"`
	}
	if err := json.Unmarshal(r.Result, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.Current.ChainID != 8118 || len(cfg.Current.ForkID) != 4 || cfg.Current.Precompiles["ECREC"] != types.BytesToAddress([]byte{1}) {
		t.Errorf("eth_config: %s", r.Result)
	}

	unknown := "0xc1cadaffffffffffffffffffffffffffffffffff"
	r = call(t, addr, "eth_getStorageValues", map[string]any{unknown: []string{"0x01", "0x02"}})
	if r.Error != nil {
		t.Fatal(r.Error.Message)
	}
	var vals map[types.Address][]types.Hash
	if err := json.Unmarshal(r.Result, &vals); err != nil {
		t.Fatal(err)
	}
	if got := vals[types.MustAddress(unknown)]; len(got) != 2 || got[0] != (types.Hash{}) {
		t.Errorf("storage values: %s", r.Result)
	}
	r = call(t, addr, "eth_getStorageValues", map[string]any{unknown: []string{"0x" + strings.Repeat("00", 33)}})
	if r.Error == nil || r.Error.Code != -32602 {
		t.Errorf("oversized key: %+v", r.Error)
	}
}

func TestBuildBlock(t *testing.T) {
	n, key, addr := devNode(t)
	head := n.Chain.Head()
	attrs := map[string]any{"timestamp": hexU(head.Time() + 12), "prevRandao": types.Hash{}, "suggestedFeeRecipient": types.Address{}, "withdrawals": []any{}}
	from := types.Address(crypto.PubkeyToAddress(key.PubKey()))
	to := types.MustAddress("0xc100000000000000000000000000000000000000")
	mk := func(nonce uint64) string {
		tx := types.MustSignNewTx(key, types.LatestSigner(8118), &types.DynamicFeeTx{ChainID: *uint256.NewInt(8118), Nonce: nonce,
			GasTipCap: *uint256.NewInt(1e9), GasFeeCap: *uint256.NewInt(1e11), Gas: 21000, To: &to, Value: *uint256.NewInt(1)})
		raw, _ := tx.MarshalBinary()
		return types.EncodeBytes(raw)
	}
	_ = from
	r := call(t, addr, "testing_buildBlockV1", head.Hash(), attrs, []string{mk(0)}, "0x")
	if r.Error != nil {
		t.Fatal(r.Error.Message)
	}
	var env struct {
		ExecutionPayload struct {
			BlockNumber  types.HexUint64 `json:"blockNumber"`
			GasUsed      types.HexUint64 `json:"gasUsed"`
			Transactions []string        `json:"transactions"`
		} `json:"executionPayload"`
		BlockValue types.HexU256 `json:"blockValue"`
	}
	if err := json.Unmarshal(r.Result, &env); err != nil {
		t.Fatal(err)
	}
	p := env.ExecutionPayload
	if uint64(p.BlockNumber) != head.Number()+1 || p.GasUsed != 21000 || len(p.Transactions) != 1 {
		t.Errorf("payload: %s", r.Result)
	}
	if env.BlockValue.Int().IsZero() {
		t.Error("block value is zero with a tipping transaction")
	}
	if r := call(t, addr, "testing_buildBlockV1", head.Hash(), attrs, []string{mk(999)}, "0x"); r.Error == nil || !strings.Contains(r.Error.Message, "nonce too high") {
		t.Errorf("nonce gap: %+v", r.Error)
	}
	if n.Chain.Head().Hash() != head.Hash() {
		t.Error("building a block moved the head")
	}
}

func TestSimulateMovePrecompile(t *testing.T) {
	_, _, addr := devNode(t)
	from, to := "0xc000000000000000000000000000000000000000", "0xc100000000000000000000000000000000000000"
	identity := "0x0000000000000000000000000000000000000004"
	r := simulate(t, addr, map[string]any{"blockStateCalls": []any{map[string]any{
		"stateOverrides": map[string]any{identity: map[string]any{"movePrecompileToAddress": to}},
		"calls":          []simCall{{"from": from, "to": to, "input": "0x1234"}, {"from": from, "to": identity, "input": "0x1234"}},
	}}})
	if r.Error != nil {
		t.Fatal(r.Error.Message)
	}
	var blocks []simBlockResult
	if err := json.Unmarshal(r.Result, &blocks); err != nil {
		t.Fatal(err)
	}
	if c := blocks[0].Calls; len(c) != 2 || string(c[0].ReturnData) != "\x12\x34" || len(c[1].ReturnData) != 0 {
		t.Errorf("moved identity: %s", r.Result)
	}
	r = simulate(t, addr, map[string]any{"blockStateCalls": []any{map[string]any{
		"stateOverrides": map[string]any{to: map[string]any{"movePrecompileToAddress": from}},
	}}})
	if r.Error == nil || r.Error.Code != -32000 {
		t.Errorf("moving a non-precompile: %+v", r.Error)
	}
}
