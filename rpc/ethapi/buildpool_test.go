package ethapi_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/node"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// testing_buildBlockV1's transaction list decides where the block's
// transactions come from: a list is used as it is (an empty one builds an
// empty block), null or no list takes the pool's pending transactions as
// a proposer would, leaving out those that cannot run yet. Building never
// changes the head or the pool.
func TestBuildBlockTransactionsSource(t *testing.T) {
	key, _ := crypto.GenerateKey()
	from := types.Address(crypto.PubkeyToAddress(key.PubKey()))
	g := chain.DevGenesis(8118, []types.Address{from}, uint64(time.Now().Unix()))
	// No validator: nothing takes the pool's transactions into a block.
	n, err := node.New(node.Config{Genesis: g, HTTPPort: -1, WSPort: -1, ClientVersion: "chaind/test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	rpcCall := func(method string, params ...any) (json.RawMessage, string) {
		t.Helper()
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
		var r struct {
			Result json.RawMessage
			Error  *struct{ Message string }
		}
		if err := json.Unmarshal(n.RPC.HandleMessage(context.Background(), body), &r); err != nil {
			t.Fatal(err)
		}
		if r.Error != nil {
			return nil, r.Error.Message
		}
		return r.Result, ""
	}
	to := types.MustAddress("0xc100000000000000000000000000000000000000")
	tip := uint64(2e9)
	mk := func(nonce uint64) (string, types.Hash) {
		tx := types.MustSignNewTx(key, types.LatestSigner(8118), &types.DynamicFeeTx{ChainID: *uint256.NewInt(8118), Nonce: nonce,
			GasTipCap: *uint256.NewInt(tip), GasFeeCap: *uint256.NewInt(1e11), Gas: 21000, To: &to, Value: *uint256.NewInt(1)})
		raw, _ := tx.MarshalBinary()
		return types.EncodeBytes(raw), tx.Hash()
	}
	var pending []types.Hash
	for _, nonce := range []uint64{0, 1, 7} { // 7 waits behind a gap
		raw, h := mk(nonce)
		if _, msg := rpcCall("eth_sendRawTransaction", raw); msg != "" {
			t.Fatalf("send nonce %d: %s", nonce, msg)
		}
		if nonce < 7 {
			pending = append(pending, h)
		}
	}
	head := n.Chain.Head()
	attrs := map[string]any{"timestamp": hexU(head.Time() + 12), "prevRandao": types.Hash{}, "suggestedFeeRecipient": types.Address{},
		"withdrawals": []any{}, "parentBeaconBlockRoot": types.Hash{}}
	listed, _ := mk(0)
	for _, tc := range []struct {
		name   string
		params []any
		want   int // transactions in the block
	}{
		{"null takes the pool's pending transactions", []any{head.Hash(), attrs, nil, "0x"}, len(pending)},
		{"no list takes the pool's pending transactions", []any{head.Hash(), attrs}, len(pending)},
		{"an empty list builds an empty block", []any{head.Hash(), attrs, []string{}, "0x"}, 0},
		{"a list is used as it is", []any{head.Hash(), attrs, []string{listed}, "0x"}, 1},
	} {
		res, msg := rpcCall("testing_buildBlockV1", tc.params...)
		if msg != "" {
			t.Errorf("%s: %s", tc.name, msg)
			continue
		}
		var env struct {
			ExecutionPayload struct {
				GasUsed      types.HexUint64  `json:"gasUsed"`
				Transactions []types.HexBytes `json:"transactions"`
			} `json:"executionPayload"`
			BlockValue types.HexU256 `json:"blockValue"`
		}
		if err := json.Unmarshal(res, &env); err != nil {
			t.Fatal(err)
		}
		p := env.ExecutionPayload
		if len(p.Transactions) != tc.want || uint64(p.GasUsed) != uint64(tc.want)*21000 {
			t.Errorf("%s: %d transactions, gas %d; want %d", tc.name, len(p.Transactions), p.GasUsed, tc.want)
			continue
		}
		if tc.want == len(pending) {
			for i, raw := range p.Transactions {
				tx := new(types.Transaction)
				if err := tx.UnmarshalBinary(raw); err != nil || tx.Hash() != pending[i] {
					t.Errorf("%s: transaction %d is not pending nonce %d", tc.name, i, i)
				}
			}
		}
		// Each transaction pays its full tip: the base fee is far below
		// the fee cap.
		if want := uint64(tc.want) * 21000 * tip; env.BlockValue.Int().Uint64() != want {
			t.Errorf("%s: block value %s, want %d", tc.name, env.BlockValue.Int(), want)
		}
	}
	if n.Chain.Head().Hash() != head.Hash() {
		t.Error("building a block moved the head")
	}
	if res, _ := rpcCall("txpool_status"); string(res) != `{"pending":"0x2","queued":"0x1"}` {
		t.Errorf("pool after building: %s", res)
	}
}
