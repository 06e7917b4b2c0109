package node

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/conformance"
	"github.com/chaind/chaind/internal/devload"
)

// TestGraphQLMatchesJSONRPC reads every block, transaction, receipt and
// log of the shared vectors' chains through GraphQL and JSON-RPC and
// requires the same values: the two interfaces read one backend, and a
// field that drifts in one of them shows here.
func TestGraphQLMatchesJSONRPC(t *testing.T) {
	vec := conformance.VectorsDir("../..")
	if vec == "" {
		t.Skip("shared vectors absent (../shared/vectors beside the repository)")
	}
	for _, c := range []struct{ name, genesis, blocks string }{
		{"hive-graphql", "hive-graphql/init/testGenesis.json", "hive-graphql/init/testBlockchain.blocks"},
		{"execution-apis", "execution-apis/tests/genesis.json", "execution-apis/tests/chain.rlp"},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, err := chain.LoadGenesis(filepath.Join(vec, c.genesis))
			if err != nil {
				t.Fatal(err)
			}
			n, err := New(Config{Genesis: g, HTTPPort: -1, WSPort: -1})
			if err != nil {
				t.Fatal(err)
			}
			defer n.Close()
			if _, err := n.ImportFile(filepath.Join(vec, c.blocks), nil); err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(n.Handler())
			defer srv.Close()
			compareChain(t, srv.URL, n.Chain.Head().Number())
		})
	}
}

const gqlBlockFields = `number hash parent { hash } nonce transactionsRoot stateRoot receiptsRoot miner { address }
	extraData gasLimit gasUsed baseFeePerGas timestamp logsBloom mixHash difficulty ommerHash ommerCount
	withdrawalsRoot blobGasUsed excessBlobGas transactionCount
	withdrawals { index validator address amount }
	transactions { hash nonce index from { address } to { address } value gasPrice maxFeePerGas maxPriorityFeePerGas
	  maxFeePerBlobGas gas inputData block { hash } type r s v yParity accessList { address storageKeys } blobVersionedHashes
	  status gasUsed cumulativeGasUsed effectiveGasPrice blobGasUsed blobGasPrice createdContract { address }
	  logs { index account { address } topics data transaction { hash } } }`

func compareChain(t *testing.T, url string, head uint64) {
	txs, logs := 0, 0
	for n := uint64(0); n <= head; n++ {
		var g struct {
			Block map[string]any `json:"block"`
		}
		postGQL(t, url, fmt.Sprintf(`{ block(number: %d) { %s } }`, n, gqlBlockFields), &g)
		var rb map[string]any
		postRPC(t, url, "eth_getBlockByNumber", []any{fmt.Sprintf("0x%x", n), true}, &rb)
		var rr []map[string]any
		postRPC(t, url, "eth_getBlockReceipts", []any{fmt.Sprintf("0x%x", n)}, &rr)
		gb, where := g.Block, fmt.Sprintf("block %d", n)

		same(t, where, gb, rb, map[string]string{
			"number": "number", "hash": "hash", "nonce": "nonce", "transactionsRoot": "transactionsRoot",
			"stateRoot": "stateRoot", "receiptsRoot": "receiptsRoot", "extraData": "extraData", "gasLimit": "gasLimit",
			"gasUsed": "gasUsed", "baseFeePerGas": "baseFeePerGas", "timestamp": "timestamp", "logsBloom": "logsBloom",
			"mixHash": "mixHash", "difficulty": "difficulty", "ommerHash": "sha3Uncles", "withdrawalsRoot": "withdrawalsRoot",
			"blobGasUsed": "blobGasUsed", "excessBlobGas": "excessBlobGas",
		})
		if n > 0 {
			equal(t, where+" parent", gb["parent"].(map[string]any)["hash"], rb["parentHash"])
		}
		equal(t, where+" miner", gb["miner"].(map[string]any)["address"], rb["miner"])
		equal(t, where+" ommerCount", gb["ommerCount"], fmt.Sprintf("0x%x", len(rb["uncles"].([]any))))
		if ws, ok := rb["withdrawals"].([]any); ok {
			gws := gb["withdrawals"].([]any)
			if len(gws) != len(ws) {
				t.Fatalf("%s: %d withdrawals, JSON-RPC has %d", where, len(gws), len(ws))
			}
			for i := range ws {
				same(t, fmt.Sprintf("%s withdrawal %d", where, i), gws[i].(map[string]any), ws[i].(map[string]any),
					map[string]string{"index": "index", "validator": "validatorIndex", "address": "address", "amount": "amount"})
			}
		} else if gb["withdrawals"] != nil {
			t.Errorf("%s: withdrawals %v where JSON-RPC has none", where, gb["withdrawals"])
		}
		rtxs := rb["transactions"].([]any)
		gtxs := gb["transactions"].([]any)
		if len(gtxs) != len(rtxs) || len(rr) != len(rtxs) {
			t.Fatalf("%s: %d transactions, JSON-RPC has %d (%d receipts)", where, len(gtxs), len(rtxs), len(rr))
		}
		equal(t, where+" transactionCount", gb["transactionCount"], fmt.Sprintf("0x%x", len(rtxs)))
		for i := range rtxs {
			gt, rt, rc := gtxs[i].(map[string]any), rtxs[i].(map[string]any), rr[i]
			tw := fmt.Sprintf("%s tx %d", where, i)
			same(t, tw, gt, rt, map[string]string{
				"hash": "hash", "nonce": "nonce", "index": "transactionIndex", "value": "value", "gasPrice": "gasPrice",
				"maxFeePerGas": "maxFeePerGas", "maxPriorityFeePerGas": "maxPriorityFeePerGas",
				"maxFeePerBlobGas": "maxFeePerBlobGas", "gas": "gas", "inputData": "input", "type": "type",
				"r": "r", "s": "s", "v": "v", "yParity": "yParity", "blobVersionedHashes": "blobVersionedHashes",
			})
			equal(t, tw+" from", gt["from"].(map[string]any)["address"], rt["from"])
			equal(t, tw+" to", addrOf(gt["to"]), rt["to"])
			equal(t, tw+" block", gt["block"].(map[string]any)["hash"], rt["blockHash"])
			if al, ok := rt["accessList"]; ok {
				equal(t, tw+" accessList", gt["accessList"], al)
			}
			same(t, tw+" receipt", gt, rc, map[string]string{
				"status": "status", "gasUsed": "gasUsed", "cumulativeGasUsed": "cumulativeGasUsed",
				"effectiveGasPrice": "effectiveGasPrice", "blobGasUsed": "blobGasUsed", "blobGasPrice": "blobGasPrice",
			})
			equal(t, tw+" createdContract", addrOf(gt["createdContract"]), rc["contractAddress"])
			glogs, rlogs := gt["logs"].([]any), rc["logs"].([]any)
			if len(glogs) != len(rlogs) {
				t.Fatalf("%s: %d logs, JSON-RPC has %d", tw, len(glogs), len(rlogs))
			}
			for j := range rlogs {
				gl, rl := glogs[j].(map[string]any), rlogs[j].(map[string]any)
				lw := fmt.Sprintf("%s log %d", tw, j)
				same(t, lw, gl, rl, map[string]string{"index": "logIndex", "topics": "topics", "data": "data"})
				equal(t, lw+" address", gl["account"].(map[string]any)["address"], rl["address"])
				equal(t, lw+" transaction", gl["transaction"].(map[string]any)["hash"], rl["transactionHash"])
				logs++
			}
			txs++
		}
	}
	// The whole chain's logs through both range queries.
	var g struct {
		Logs []map[string]any `json:"logs"`
	}
	postGQL(t, url, fmt.Sprintf(`{ logs(filter: {fromBlock: 0, toBlock: %d}) { index data topics account { address } transaction { hash } } }`, head), &g)
	var rl []map[string]any
	postRPC(t, url, "eth_getLogs", []any{map[string]any{"fromBlock": "0x0", "toBlock": fmt.Sprintf("0x%x", head)}}, &rl)
	if len(g.Logs) != len(rl) || len(rl) != logs {
		t.Fatalf("range: GraphQL %d logs, eth_getLogs %d, receipts %d", len(g.Logs), len(rl), logs)
	}
	for i := range rl {
		same(t, fmt.Sprintf("range log %d", i), g.Logs[i], rl[i], map[string]string{"index": "logIndex", "data": "data", "topics": "topics"})
		equal(t, fmt.Sprintf("range log %d tx", i), g.Logs[i]["transaction"].(map[string]any)["hash"], rl[i]["transactionHash"])
	}
	if txs == 0 || logs == 0 {
		t.Fatalf("the chain has %d transactions and %d logs: nothing was compared", txs, logs)
	}
	t.Logf("compared %d blocks, %d transactions and receipts, %d logs", head+1, txs, logs)
}

func addrOf(v any) any {
	if m, ok := v.(map[string]any); ok {
		return m["address"]
	}
	return nil
}

// same compares GraphQL fields with their JSON-RPC names; a field
// JSON-RPC leaves out must be null in GraphQL.
func same(t *testing.T, where string, g, r map[string]any, fields map[string]string) {
	t.Helper()
	for gf, rf := range fields {
		equal(t, where+" "+gf, g[gf], r[rf])
	}
}

func equal(t *testing.T, where string, g, r any) {
	t.Helper()
	gj, _ := json.Marshal(g)
	rj, _ := json.Marshal(r)
	if !bytes.Equal(gj, rj) {
		t.Errorf("%s: GraphQL %s, JSON-RPC %s", where, gj, rj)
	}
}

func postGQL(t *testing.T, url, query string, out any) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"query": query})
	var resp struct {
		Data   json.RawMessage `json:"data"`
		Errors []any           `json:"errors"`
	}
	post(t, url+"/graphql", body, &resp)
	if len(resp.Errors) > 0 {
		t.Fatalf("graphql %.80s: %v", strings.TrimSpace(query), resp.Errors)
	}
	if err := json.Unmarshal(resp.Data, out); err != nil {
		t.Fatal(err)
	}
}

func postRPC(t *testing.T, url, method string, params []any, out any) {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	var resp struct {
		Result json.RawMessage `json:"result"`
		Error  any             `json:"error"`
	}
	post(t, url, body, &resp)
	if resp.Error != nil {
		t.Fatalf("%s: %v", method, resp.Error)
	}
	if err := json.Unmarshal(resp.Result, out); err != nil {
		t.Fatal(err)
	}
}

func post(t *testing.T, url string, body []byte, out any) {
	t.Helper()
	res, err := http.Post(url, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: %v: %.200s", url, err, b)
	}
}

// TestGraphQLRateLimit: GraphQL queries share the JSON-RPC port's front,
// so a public node's per-client rate counts them with JSON-RPC calls.
func TestGraphQLRateLimit(t *testing.T) {
	n, clk := publicNode(t, Config{HTTPPort: 0, WSPort: -1})
	clk.refill()
	rc := dial(t, n.Addr("http"))
	defer rc.c.Close()
	for i := 1; i <= 5; i++ {
		if resp, body := rc.post(t, blockNumber(i)); resp.StatusCode != 200 {
			t.Fatalf("JSON-RPC call %d: %d %s", i, resp.StatusCode, body)
		}
	}
	for i := 6; i <= 11; i++ {
		resp, body := rc.postPath(t, "/graphql", `{"query":"{ block { number } }"}`)
		if i <= 10 && (resp.StatusCode != 200 || !strings.Contains(body, `"number":"0x`)) {
			t.Fatalf("query %d: %d %s", i, resp.StatusCode, body)
		}
		if i == 11 && (resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" || !strings.Contains(body, `"errors":[{"message":"rate limit exceeded`)) {
			t.Fatalf("11th request: %d Retry-After %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
		}
	}
	if resp, _ := rc.post(t, blockNumber(12)); resp.StatusCode != 429 {
		t.Fatalf("JSON-RPC after the GraphQL queries: %d", resp.StatusCode)
	}
}

// postPath posts a JSON body to a path on the test connection.
func (rc *rawConn) postPath(t *testing.T, path, body string) (*http.Response, string) {
	t.Helper()
	rc.c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(rc.c, "POST %s HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", path, len(body), body)
	resp, err := http.ReadResponse(rc.br, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// TestGraphQLLimits: deep, wide and huge queries on the real schema are
// refused with an error and HTTP 400, before anything runs.
func TestGraphQLLimits(t *testing.T) {
	keys := devload.Keys("node-test", 1)
	n, err := New(Config{Genesis: devload.GenesisWithToken(8118, keys, 1_700_000_000), HTTPPort: -1, WSPort: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	srv := httptest.NewServer(n.Handler())
	defer srv.Close()
	deep := "{ block { " + strings.Repeat("parent { ", 25) + "number" + strings.Repeat(" }", 25) + " } }"
	var wide strings.Builder
	wide.WriteString("{ blocks(from: 0, to: 999) { transactions { logs { ")
	for i := 0; i < 30; i++ {
		fmt.Fprintf(&wide, "d%d: data ", i)
	}
	wide.WriteString("} } } }")
	for _, tc := range []struct{ name, query, want string }{
		{"deep", deep, "levels deep; the limit is 20"},
		{"wide", wide.String(), "estimated"},
		{"huge range", "{ blocks(from: 0, to: 5000) { number } }", "more than 1000 blocks"},
		{"too many tokens", "{" + strings.Repeat(" block { number }", 5000) + "}", "tokens"},
	} {
		body, _ := json.Marshal(map[string]string{"query": tc.query})
		res, err := http.Post(srv.URL+"/graphql", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 400 || !strings.Contains(string(b), tc.want) {
			t.Errorf("%s: %d %.300s", tc.name, res.StatusCode, b)
		}
	}
}

// TestGraphQLRefusals: the front's refusals of GraphQL requests come in
// GraphQL's error shape, those of JSON-RPC calls in JSON-RPC's.
func TestGraphQLRefusals(t *testing.T) {
	keys := devload.Keys("node-test", 1)
	n, err := New(Config{Genesis: devload.GenesisWithToken(8118, keys, 1_700_000_000), HTTPPort: -1, WSPort: -1,
		VHosts: []string{"node.example"}})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	srv := httptest.NewServer(n.Handler())
	defer srv.Close()
	for _, tc := range []struct{ path, body, want string }{
		{"/graphql", `{"query":"{ block { number } }"}`, `{"errors":[{"message":"invalid host specified"}]}`},
		{"/", `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}`, `"jsonrpc":"2.0"`},
	} {
		res, err := http.Post(srv.URL+tc.path, "application/json", strings.NewReader(tc.body))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusForbidden || !strings.Contains(string(b), tc.want) {
			t.Errorf("%s: %d %s, want 403 with %s", tc.path, res.StatusCode, b, tc.want)
		}
	}
}
