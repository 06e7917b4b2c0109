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

// The pending block holds what the pool would put in the next block: a
// transaction sent to a node that is not producing blocks shows up in it,
// by every method that takes the "pending" tag, while "latest" stays the
// sealed head.
func TestPendingBlockFromPool(t *testing.T) {
	key, _ := crypto.GenerateKey()
	from := types.Address(crypto.PubkeyToAddress(key.PubKey()))
	n, err := node.New(node.Config{Genesis: chain.DevGenesis(8118, []types.Address{from}, uint64(time.Now().Unix())-10), HTTPPort: -1, WSPort: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	call := func(method, params string) json.RawMessage {
		t.Helper()
		out := n.RPC.HandleMessage(context.Background(), []byte(`{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":`+params+`}`))
		var r rpcResponse
		if err := json.Unmarshal(out, &r); err != nil || r.Error != nil {
			t.Fatalf("%s %s: %s", method, params, out)
		}
		return r.Result
	}
	to := types.Address{0x42}
	tx := types.MustSignNewTx(key, types.LatestSigner(8118), &types.DynamicFeeTx{ChainID: *uint256.NewInt(8118), Nonce: 0,
		GasTipCap: *uint256.NewInt(1e9), GasFeeCap: *uint256.NewInt(1e11), Gas: 21000, To: &to, Value: *uint256.NewInt(7)})
	raw, _ := tx.MarshalBinary()
	call("eth_sendRawTransaction", `["`+types.EncodeBytes(raw)+`"]`)

	var pending struct {
		Hash         *types.Hash    `json:"hash"`
		Number       string         `json:"number"`
		Transactions []types.Hash   `json:"transactions"`
		Miner        *types.Address `json:"miner"`
	}
	if err := json.Unmarshal(call("eth_getBlockByNumber", `["pending",false]`), &pending); err != nil {
		t.Fatal(err)
	}
	if pending.Hash != nil || pending.Miner != nil || pending.Number != "0x1" {
		t.Fatalf("pending block: hash %v miner %v number %s; want null, null, 0x1", pending.Hash, pending.Miner, pending.Number)
	}
	if len(pending.Transactions) != 1 || pending.Transactions[0] != tx.Hash() {
		t.Fatalf("pending block holds %v, want [%s]", pending.Transactions, tx.Hash())
	}
	if got := string(call("eth_getBlockTransactionCountByNumber", `["pending"]`)); got != `"0x1"` {
		t.Errorf("pending transaction count %s, want 0x1", got)
	}
	if got := string(call("eth_getBlockTransactionCountByNumber", `["latest"]`)); got != `"0x0"` {
		t.Errorf("latest transaction count %s, want 0x0", got)
	}
	var ptx struct {
		Hash      types.Hash  `json:"hash"`
		BlockHash *types.Hash `json:"blockHash"`
	}
	if err := json.Unmarshal(call("eth_getTransactionByBlockNumberAndIndex", `["pending","0x0"]`), &ptx); err != nil {
		t.Fatal(err)
	}
	if ptx.Hash != tx.Hash() || ptx.BlockHash != nil {
		t.Errorf("pending transaction 0: %s in block %v; want %s with no block", ptx.Hash, ptx.BlockHash, tx.Hash())
	}
}
