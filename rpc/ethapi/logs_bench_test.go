package ethapi_test

import (
	"encoding/json"
	"testing"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
	"github.com/chaind/chaind/rpc/ethapi"
	"github.com/holiman/uint256"
)

// logChain is a Backend over a chain store of synthetic blocks: every
// 1,000th block holds one transaction whose receipt has a log of the
// watched address; the rest are empty.
type logChain struct {
	ethapi.Backend // methods a log query never calls
	cfg            *chain.Config
	db             *chain.DB
	head           *types.Block
}

func (c *logChain) ChainID() uint64    { return c.cfg.ChainID }
func (c *logChain) Head() *types.Block { return c.head }
func (c *logChain) BlockByNumber(n uint64) (*types.Block, error) {
	h, ok := c.db.CanonicalHash(n)
	if !ok {
		return nil, backend.ErrNotFound
	}
	return c.db.Block(h)
}
func (c *logChain) Receipts(b *types.Block) (types.Receipts, error) {
	rs, err := c.db.Receipts(b.Hash())
	if err != nil {
		return nil, err
	}
	h := b.HeaderRef()
	return rs, types.DeriveReceiptFields(rs, b.Hash(), h.Number, h.Time, h.BaseFee, nil, b.Transactions(), c.cfg.Signer(h.Number, h.Time))
}
func (c *logChain) BloomScanner() func(uint64) (types.Bloom, bool, error) {
	return c.db.NewBloomReader().Bloom
}

var watched = types.Address{0xee, 0x01}

func buildLogChain(tb testing.TB, blocks uint64) *logChain {
	cfg := chain.AllForks(8118)
	db := chain.NewDB(store.NewMem())
	key, _ := crypto.GenerateKey()
	signer := cfg.Signer(1, 1)
	var parent types.Hash
	var head *types.Block
	for n := uint64(0); n < blocks; n++ {
		h := &types.Header{ParentHash: parent, Number: n, Time: n, GasLimit: 30_000_000}
		var body types.Body
		var rs types.Receipts
		if n%1000 == 500 {
			to := types.Address{1}
			tx := types.MustSignNewTx(key, signer, &types.DynamicFeeTx{ChainID: *uint256.NewInt(8118), Nonce: n, Gas: 30000, To: &to,
				GasFeeCap: *uint256.NewInt(1)})
			l := &types.Log{Address: watched, Topics: []types.Hash{{byte(n)}}}
			rc := &types.Receipt{Type: tx.Type(), Status: 1, CumulativeGasUsed: 30000, Logs: []*types.Log{l}}
			rc.Bloom = types.LogsBloom(rc.Logs)
			h.Bloom, h.GasUsed = rc.Bloom, 30000
			body.Transactions, rs = []*types.Transaction{tx}, types.Receipts{rc}
		}
		head = types.NewBlock(h, &body)
		if err := db.WriteBlock(head, rs); err != nil {
			tb.Fatal(err)
		}
		parent = head.Hash()
	}
	return &logChain{cfg: cfg, db: db, head: head}
}

func getLogs(tb testing.TB, s *rpc.Server, from, to uint64) []map[string]any {
	resp := s.HandleMessage(nil, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_getLogs","params":[{"fromBlock":"`+
		types.EncodeUint64(from)+`","toBlock":"`+types.EncodeUint64(to)+`","address":"`+watched.Hex()+`"}]}`))
	var out struct {
		Result []map[string]any
		Error  *struct{ Message string }
	}
	if err := jsonUnmarshal(resp, &out); err != nil || out.Error != nil {
		tb.Fatalf("eth_getLogs: %s", resp)
	}
	return out.Result
}

// TestLogsAcrossBloomGroups checks that the packed bloom table finds every
// log, across group boundaries and in the unpacked tail.
func TestLogsAcrossBloomGroups(t *testing.T) {
	c := buildLogChain(t, 3_100)
	s := rpc.NewServer(nil)
	ethapi.RegisterEth(s, c, ethapi.EthOptions{})
	logs := getLogs(t, s, 0, 3_099)
	if len(logs) != 3 {
		t.Fatalf("%d logs, want 3", len(logs))
	}
	for i, l := range logs {
		if want := types.EncodeUint64(uint64(i*1000 + 500)); l["blockNumber"] != want {
			t.Fatalf("log %d in block %v, want %s", i, l["blockNumber"], want)
		}
	}
	if logs := getLogs(t, s, 501, 1499); len(logs) != 0 {
		t.Fatalf("range without matches returned %d logs", len(logs))
	}
}

// BenchmarkGetLogs100k is eth_getLogs over 100,000 blocks with a
// selective address filter (the node's default range cap is lifted for it).
func BenchmarkGetLogs100k(b *testing.B) {
	c := buildLogChain(b, 100_000)
	s := rpc.NewServer(nil)
	ethapi.RegisterEth(s, c, ethapi.EthOptions{LogRange: 100_000})
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if logs := getLogs(b, s, 0, 99_999); len(logs) != 100 {
			b.Fatalf("%d logs", len(logs))
		}
	}
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }
