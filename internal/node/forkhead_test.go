package node

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/chaind/chaind/internal/pos"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/node/fork"
	"github.com/chaind/chaind/internal/types"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// A fork continues on the fork block itself, as anvil's do: right after
// forking block N, N is the head and every read of block N answers the
// upstream's block; the first block made is N+1, a child of the upstream's
// block N; the state at N is the upstream's with the dev accounts funded.
func TestForkHeadIsTheForkBlock(t *testing.T) {
	u := startUpstream(t)
	n, err := startFork(t, u, &u.N, "", func(c *Config) { c.DevTools = true; c.HTTPPort = 0; c.Explorer = true })
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	atN, next := devload.Hex(u.N), devload.Hex(u.N+1)
	hashN := u.n.Chain.GetHash(u.N)
	dev := devload.Address(devload.Keys("fork-dev", 1)[0])
	funded := mustCall(t, n, "eth_getBalance", dev, "latest")
	if funded == `"0x0"` || funded == mustCall(t, u.n, "eth_getBalance", dev, atN) {
		t.Fatalf("dev account's balance on the fork %s: not funded", funded)
	}
	upBlockN := mustCall(t, u.n, "eth_getBlockByNumber", atN, false)

	type check struct {
		name   string
		method string
		params []any
		want   func() string // the answer wanted; compared as JSON values
	}
	const (
		fresh  = iota // right after forking
		mined         // after one block
		undone        // after reverting to a snapshot taken at the fork block
	)
	checks := map[int][]check{
		fresh: {
			{"block number", "eth_blockNumber", nil, func() string { return `"` + atN + `"` }},
			{"block N", "eth_getBlockByNumber", []any{atN, false}, func() string { return upBlockN }},
			{"latest block", "eth_getBlockByNumber", []any{"latest", false}, func() string { return upBlockN }},
			{"block N by hash", "eth_getBlockByHash", []any{hashN, false}, func() string { return upBlockN }},
			{"its transactions by hash", "eth_getBlockTransactionCountByHash", []any{hashN}, func() string { return `"0x1"` }},
			{"latest's transactions", "eth_getBlockTransactionCountByNumber", []any{"latest"}, func() string { return `"0x1"` }},
			{"state at N", "eth_getBalance", []any{dev, atN}, func() string { return funded }},
			{"no block N+1", "eth_getBlockByNumber", []any{next, false}, func() string { return "null" }},
			{"latest's logs", "eth_getLogs", []any{map[string]any{"fromBlock": "latest", "toBlock": "latest"}}, func() string {
				return mustCall(t, u.n, "eth_getLogs", map[string]any{"fromBlock": atN, "toBlock": atN})
			}},
			{"logs with no range", "eth_getLogs", []any{map[string]any{}}, func() string {
				return mustCall(t, u.n, "eth_getLogs", map[string]any{"fromBlock": atN, "toBlock": atN})
			}},
			{"block N's receipts", "eth_getBlockReceipts", []any{atN}, func() string {
				return mustCall(t, u.n, "eth_getBlockReceipts", atN)
			}},
		},
		mined: {
			{"block number", "eth_blockNumber", nil, func() string { return `"` + next + `"` }},
			{"block N+1's parent", "eth_getBlockByNumber", []any{next, false}, func() string {
				var b struct {
					ParentHash types.Hash `json:"parentHash"`
				}
				json.Unmarshal([]byte(mustCall(t, n, "eth_getBlockByNumber", next, false)), &b)
				if b.ParentHash != hashN {
					return `"parent ` + b.ParentHash.Hex() + `"`
				}
				return mustCall(t, n, "eth_getBlockByNumber", next, false)
			}},
			{"block N", "eth_getBlockByNumber", []any{atN, false}, func() string { return upBlockN }},
			{"state at N", "eth_getBalance", []any{dev, atN}, func() string { return funded }},
		},
		undone: {
			{"block number", "eth_blockNumber", nil, func() string { return `"` + atN + `"` }},
			{"latest block", "eth_getBlockByNumber", []any{"latest", false}, func() string { return upBlockN }},
		},
	}
	run := func(stage int) {
		t.Helper()
		for _, c := range checks[stage] {
			got := mustCall(t, n, c.method, c.params...)
			if !sameJSON(got, c.want()) {
				t.Errorf("stage %d, %s: %s answered %.200s, want %.200s", stage, c.name, c.method, got, c.want())
			}
		}
	}
	if logs := mustCall(t, u.n, "eth_getLogs", map[string]any{"fromBlock": atN, "toBlock": atN}); logs == "[]" {
		t.Fatal("the upstream's block N has no logs to compare")
	}
	run(fresh)
	readBlockNElsewhere(t, n, u.n, u.N)
	snap := mustCall(t, n, "evm_snapshot")
	mustCall(t, n, "evm_mine")
	run(mined)
	var id any
	json.Unmarshal([]byte(snap), &id)
	if got := mustCall(t, n, "evm_revert", id); got != "true" {
		t.Fatalf("evm_revert to the fork block answered %s", got)
	}
	run(undone)
}

// readBlockNElsewhere reads block n of a fork whose head it is through
// GraphQL and the explorer, and compares it with the upstream's.
func readBlockNElsewhere(t *testing.T, fork, up *Node, n uint64) {
	t.Helper()
	var want struct {
		Hash         types.Hash   `json:"hash"`
		Transactions []types.Hash `json:"transactions"`
	}
	if err := json.Unmarshal([]byte(mustCall(t, up, "eth_getBlockByNumber", devload.Hex(n), false)), &want); err != nil {
		t.Fatal(err)
	}
	if len(want.Transactions) == 0 {
		t.Fatal("the upstream's block N has no transactions to compare")
	}
	type gqlBlock struct {
		Hash             types.Hash `json:"hash"`
		TransactionCount string     `json:"transactionCount"` // a Long: hex
		Transactions     []struct {
			Hash types.Hash `json:"hash"`
		} `json:"transactions"`
	}
	url := "http://" + fork.Addr("http")
	for _, sel := range []string{fmt.Sprintf("block(number: %d)", n), "block"} {
		var got struct {
			Block gqlBlock `json:"block"`
		}
		postGQL(t, url, "{ "+sel+" { hash transactionCount transactions { hash } } }", &got)
		var hashes []types.Hash
		for _, tx := range got.Block.Transactions {
			hashes = append(hashes, tx.Hash)
		}
		if got.Block.Hash != want.Hash || got.Block.TransactionCount != devload.Hex(uint64(len(want.Transactions))) || !reflect.DeepEqual(hashes, want.Transactions) {
			t.Errorf("GraphQL %s: %+v, want hash %s and transactions %v", sel, got.Block, want.Hash, want.Transactions)
		}
	}
	x := &explorerNode{n: fork, base: "http://" + fork.Addr("explorer")}
	for _, id := range []string{strconv.FormatUint(n, 10), want.Hash.Hex(), "latest"} {
		blk, _ := x.get(t, "/api/block/"+id, http.StatusOK)["block"].(map[string]any)
		var hashes []types.Hash
		txs, _ := blk["transactions"].([]any)
		for _, tx := range txs {
			var h types.Hash
			s, _ := tx.(map[string]any)["hash"].(string)
			h.UnmarshalText([]byte(s))
			hashes = append(hashes, h)
		}
		if blk["hash"] != want.Hash.Hex() || blk["transactionCount"] != float64(len(want.Transactions)) || !reflect.DeepEqual(hashes, want.Transactions) {
			t.Errorf("explorer block %s: hash %v, %v transactions %v; want %s, %v", id, blk["hash"], blk["transactionCount"], hashes, want.Hash, want.Transactions)
		}
	}
	tx := want.Transactions[0]
	if got := x.get(t, "/api/transaction/"+tx.Hex(), http.StatusOK)["transaction"].(map[string]any); got["hash"] != tx.Hex() || got["blockNumber"] != float64(n) {
		t.Errorf("explorer transaction %s: %v", tx, got)
	}
}

func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return a == b
	}
	return reflect.DeepEqual(x, y)
}

// A fork whose genesis is a local block above the fork block (made before
// forks continued on the fork block itself, or of an upstream whose
// header fields do not hash to its block hash) still opens and runs.
func TestForkOnLocalGenesisBlock(t *testing.T) {
	u := startUpstream(t)
	val, err := DevValidatorKey(0)
	if err != nil {
		t.Fatal(err)
	}
	dev := devload.Keys("fork-dev", 2)
	g := chain.DevGenesis(1, []types.Address{devload.Address(dev[0]), devload.Address(dev[1])}, uint64(time.Now().Unix()))
	if err := pos.SetDevStaking(g, []*secp256k1.PrivateKey{val}, "127.0.0.1"); err != nil {
		t.Fatal(err)
	}
	up, err := fork.Dial(context.Background(), u.url, &u.N)
	if err != nil {
		t.Fatal(err)
	}
	if up.Block.Header == nil {
		t.Fatal("the upstream's fork block header was not kept")
	}
	up.Block.Header = nil
	if err := fork.Genesis(context.Background(), g, up); err != nil {
		t.Fatal(err)
	}
	n, err := New(Config{Genesis: g, HTTPPort: -1, WSPort: -1, Validator: val, Accounts: dev, Fork: ForkConfig{Reset: true}})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	hashN := u.n.Chain.GetHash(u.N)
	if gb := n.Chain.Genesis(); gb.Number() != u.N+1 || gb.ParentHash() != hashN {
		t.Fatalf("genesis %d on %s, want %d on %s", gb.Number(), gb.ParentHash(), u.N+1, hashN)
	}
	k1 := devload.Address(u.keys[1])
	for _, c := range []struct{ method, param, want string }{
		{"eth_blockNumber", "", `"` + devload.Hex(u.N+1) + `"`},
		{"eth_getBalance", devload.Hex(u.N), mustCall(t, u.n, "eth_getBalance", k1, devload.Hex(u.N))},
		{"eth_getBalance", "latest", mustCall(t, u.n, "eth_getBalance", k1, devload.Hex(u.N))},
	} {
		var got string
		if c.param == "" {
			got = mustCall(t, n, c.method)
		} else {
			got = mustCall(t, n, c.method, k1, c.param)
		}
		if got != c.want {
			t.Errorf("%s %s: %s, want %s", c.method, c.param, got, c.want)
		}
	}
	if got := tokenBalance(t, n, u.x, "latest"); got != word(100) {
		t.Fatalf("X on the fork: %s", got)
	}
	mustCall(t, n, "anvil_reset")
	if h := n.Chain.Head(); h.Number() != u.N+1 {
		t.Fatalf("head after anvil_reset: %d", h.Number())
	}
}

// An upstream without the debug methods (as public endpoints often are)
// still gives the fork block whole, through eth_getBlockByNumber and
// eth_getBlockReceipts.
func TestForkBlockFromStandardMethods(t *testing.T) {
	u := startUpstream(t)
	var refused atomic.Int64
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var reqs []struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(body, &reqs) == nil && slices.ContainsFunc(reqs, func(q struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}) bool {
			return strings.HasPrefix(q.Method, "debug_")
		}) {
			refused.Add(1)
			var out []map[string]any
			for _, q := range reqs {
				out = append(out, map[string]any{"jsonrpc": "2.0", "id": q.ID, "error": map[string]any{"code": -32601, "message": "the method " + q.Method + " does not exist"}})
			}
			json.NewEncoder(w).Encode(out)
			return
		}
		resp, err := http.Post(u.url, "application/json", bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		io.Copy(w, resp.Body)
	}))
	defer proxy.Close()
	pu := *u
	pu.url = proxy.URL
	n, err := startFork(t, &pu, &u.N, "", func(c *Config) { c.HTTPPort = 0; c.Explorer = true })
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	readBlockNElsewhere(t, n, u.n, u.N)
	atN := devload.Hex(u.N)
	for _, method := range []string{"eth_getBlockReceipts", "eth_getBlockByNumber"} {
		params := []any{atN}
		if method == "eth_getBlockByNumber" {
			params = append(params, true)
		}
		if got, want := mustCall(t, n, method, params...), mustCall(t, u.n, method, params...); !sameJSON(got, want) {
			t.Errorf("%s: %.300s, want %.300s", method, got, want)
		}
	}
	if refused.Load() == 0 {
		t.Fatal("the fork never asked for the raw block")
	}
}

// A fork with a chain ID of its own still shows the fork block's
// transactions and receipts as the upstream does: their senders were
// signed for the upstream's chain ID.
func TestForkBlockKeepsUpstreamSenders(t *testing.T) {
	u := startUpstream(t)
	n, err := startFork(t, u, &u.N, "", func(c *Config) { c.Fork.ChainID = 31337 })
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	atN := devload.Hex(u.N)
	if got := mustCall(t, n, "eth_chainId"); got != `"0x7a69"` {
		t.Fatalf("chain ID %s, want 31337", got)
	}
	for _, c := range []struct {
		method string
		params []any
	}{
		{"eth_getBlockByNumber", []any{atN, true}},
		{"eth_getBlockByNumber", []any{"latest", true}},
		{"eth_getBlockReceipts", []any{atN}},
		{"eth_getLogs", []any{map[string]any{"fromBlock": atN, "toBlock": atN}}},
	} {
		want := mustCall(t, u.n, c.method, c.params...)
		if c.params[0] == "latest" {
			want = mustCall(t, u.n, c.method, atN, true)
		}
		if got := mustCall(t, n, c.method, c.params...); !sameJSON(got, want) {
			t.Errorf("%s %v: %.300s, want %.300s", c.method, c.params, got, want)
		}
	}
}
