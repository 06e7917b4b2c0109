package node

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/types"
)

// explorerNode is a producing node with the explorer on and traffic in
// its chain: plain transfers from two senders over more than two cycles,
// token transfers (Transfer logs), and a call that reverts with a reason.
type explorerNode struct {
	n        *Node
	base     string
	all      []types.Hash // every transaction, in chain order
	token    types.Hash   // a token transfer
	reverted types.Hash   // a transaction that reverted with "nope"
}

// revertingInit deploys a contract whose every call reverts with
// Error("nope").
func revertingInit() []byte {
	payload, _ := hex.DecodeString("08c379a0" +
		"0000000000000000000000000000000000000000000000000000000000000020" +
		"0000000000000000000000000000000000000000000000000000000000000004" +
		"6e6f706500000000000000000000000000000000000000000000000000000000")
	runtime := append([]byte{0x60, 100, 0x60, 12, 0x60, 0, 0x39, 0x60, 100, 0x60, 0, 0xfd}, payload...)
	init := []byte{0x60, byte(len(runtime)), 0x60, 12, 0x60, 0, 0x39, 0x60, byte(len(runtime)), 0x60, 0, 0xf3}
	return append(init, runtime...)
}

func startExplorerNode(t testing.TB) *explorerNode {
	t.Helper()
	keys := devload.Keys("node-test", 3)
	g := devload.GenesisWithToken(8118, keys, 1_700_000_000)
	n, err := New(Config{Genesis: g, HTTPPort: -1, WSPort: -1, Explorer: true, Validator: keys[0], Accounts: keys})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	x := &explorerNode{n: n, base: "http://" + n.Addr("explorer")}
	s := devload.NewSigner(8118)
	send := func(txs ...*types.Transaction) {
		for _, tx := range txs {
			if err := n.backend.SendTransaction(context.Background(), tx); err != nil {
				t.Fatal(err)
			}
		}
		for _, k := range keys[1:] {
			waitNonce(t, n, devload.Address(k), poolNonce(t, n, devload.Address(k)))
		}
	}
	a, b := keys[1], keys[2]
	// 24 rounds, one block or more each: the chain passes cycle 2.
	for round := 0; round < 24; round++ {
		na, nb := poolNonce(t, n, devload.Address(a)), poolNonce(t, n, devload.Address(b))
		txa, err := s.Workload(devload.KindTransfer, a, na, 1+round%3, devload.TokenAddress)
		if err != nil {
			t.Fatal(err)
		}
		txb, err := s.Workload(devload.KindTransfer, b, nb, 1, devload.TokenAddress)
		if err != nil {
			t.Fatal(err)
		}
		send(append(txa, txb...)...)
	}
	tok, err := s.Workload(devload.KindERC20, b, poolNonce(t, n, devload.Address(b)), 1, devload.TokenAddress)
	if err != nil {
		t.Fatal(err)
	}
	send(tok...)
	x.token = tok[0].Hash()
	nonce := poolNonce(t, n, devload.Address(a))
	deploy, err := s.Sign(a, nonce, nil, nil, 200_000, revertingInit())
	if err != nil {
		t.Fatal(err)
	}
	send(deploy)
	target := types.CreateAddress(devload.Address(a), nonce)
	call, err := s.Sign(a, nonce+1, &target, nil, 100_000, nil)
	if err != nil {
		t.Fatal(err)
	}
	send(call)
	x.reverted = call.Hash()
	for i := uint64(1); i <= n.Chain.Head().Number(); i++ {
		blk, err := n.Chain.BlockByNumber(i)
		if err != nil {
			t.Fatal(err)
		}
		for _, tx := range blk.Transactions() {
			x.all = append(x.all, tx.Hash())
		}
	}
	return x
}

// get fetches path and decodes the JSON answer, checking the status.
func (x *explorerNode) get(t *testing.T, path string, status int) map[string]any {
	t.Helper()
	return x.do(t, http.MethodGet, path, status)
}

func (x *explorerNode) do(t *testing.T, method, path string, status int) map[string]any {
	t.Helper()
	req, _ := http.NewRequest(method, x.base+path, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != status {
		t.Fatalf("%s %s: status %d, want %d: %s", method, path, resp.StatusCode, status, body)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("%s %s: Content-Type %q", method, path, ct)
	}
	var out map[string]any
	if err := json.Unmarshal(body, &out); err != nil {
		t.Fatalf("%s %s: %v: %s", method, path, err, body)
	}
	wantOK := status == http.StatusOK
	if out["success"] != wantOK {
		t.Fatalf("%s %s: success %v: %s", method, path, out["success"], body)
	}
	if !wantOK && (out["error"] == nil || out["error"] == "") {
		t.Fatalf("%s %s: no error text: %s", method, path, body)
	}
	return out
}

func TestExplorerAPI(t *testing.T) {
	x := startExplorerNode(t)
	head := x.n.Chain.Head()
	if head.Number() < 25 {
		t.Fatalf("only %d blocks", head.Number())
	}
	total := float64(len(x.all))

	t.Run("errors", func(t *testing.T) {
		for _, tc := range []struct {
			path   string
			status int
		}{
			{"/api/block/abc", 400},
			{"/api/block/-1", 400},
			{"/api/block/0xzz", 400},
			{"/api/block/99999999", 404},
			{"/api/block/0x" + strings.Repeat("ab", 32), 404},
			{"/api/transaction/0x1234", 400},
			{"/api/transaction/nothex", 400},
			{"/api/transaction/0x" + strings.Repeat("cd", 32), 404},
			{"/api/transaction", 400},
			{"/api/account/0x12", 400},
			{"/api/account/" + strings.Repeat("ab", 20), 400},
			{"/api/account/0xF39FD6E51AAD88F6F4CE6AB8827279CFFFB92266x", 400},
			{"/api/account/0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92267", 400}, // bad checksum
			{"/api/blocks?count=0", 400},
			{"/api/blocks?count=101", 400},
			{"/api/blocks?before=x", 400},
			{"/api/validator/0x12", 400},
			{"/api/validator/0x" + strings.Repeat("00", 20), 404},
			{"/api/cycle/x", 400},
			{"/api/cycle/99999", 404},
			{"/api/cycles?count=-1", 400},
			{"/api/nothing", 404},
			{"/api/", 404},
		} {
			x.get(t, tc.path, tc.status)
		}
		x.do(t, http.MethodPost, "/api/stats", 405)
	})

	t.Run("block", func(t *testing.T) {
		var first map[string]any
		for _, id := range []string{"1", "0x1", x.n.Chain.GetHash(1).Hex()} {
			blk := x.get(t, "/api/block/"+id, 200)["block"].(map[string]any)
			if blk["number"] != 1.0 || blk["hash"] != x.n.Chain.GetHash(1).Hex() {
				t.Fatalf("block %s: %v", id, blk)
			}
			if first == nil {
				first = blk
			} else if fmt.Sprint(first) != fmt.Sprint(blk) {
				t.Fatalf("block %s differs from block 1", id)
			}
		}
		txs := first["transactions"].([]any)
		if len(txs) == 0 || txs[0].(map[string]any)["hash"] != x.all[0].Hex() {
			t.Fatalf("block 1 transactions: %v", txs)
		}
		latest := x.get(t, "/api/block/latest", 200)["block"].(map[string]any)
		if latest["number"].(float64) < float64(head.Number()) {
			t.Fatalf("latest is %v, head %d", latest["number"], head.Number())
		}
		blocks := x.get(t, "/api/blocks?count=5&before=10", 200)["blocks"].([]any)
		if len(blocks) != 5 || blocks[0].(map[string]any)["number"] != 9.0 || blocks[4].(map[string]any)["number"] != 5.0 {
			t.Fatalf("blocks before 10: %v", blocks)
		}
	})

	t.Run("transaction", func(t *testing.T) {
		tx := x.get(t, "/api/transaction/"+x.all[0].Hex(), 200)["transaction"].(map[string]any)
		if tx["status"] != 1.0 || tx["blockNumber"] != 1.0 || tx["value"] != "1" || tx["method"] != "transfer" || tx["pending"] != false {
			t.Fatalf("transfer: %v", tx)
		}
		if tx["from"] != devload.Address(devload.Keys("node-test", 3)[1]).Hex() {
			t.Fatalf("from %v is not the EIP-55 sender", tx["from"])
		}
		tok := x.get(t, "/api/transaction/"+x.token.Hex(), 200)["transaction"].(map[string]any)
		logs := tok["logs"].([]any)
		if len(logs) != 1 {
			t.Fatalf("token transfer logs: %v", logs)
		}
		ev, _ := logs[0].(map[string]any)["event"].(map[string]any)
		if ev == nil || ev["name"] != "Transfer" || len(ev["args"].([]any)) != 3 {
			t.Fatalf("token transfer event not decoded: %v", logs[0])
		}
		rev := x.get(t, "/api/transaction/"+x.reverted.Hex(), 200)["transaction"].(map[string]any)
		if rev["status"] != 0.0 || rev["revertReason"] != "nope" {
			t.Fatalf("reverted transaction: status %v reason %q error %q", rev["status"], rev["revertReason"], rev["error"])
		}
		latest := x.get(t, "/api/transaction?count=3", 200)
		rows := latest["transactions"].([]any)
		if latest["totalTransactions"] != total || len(rows) != 3 || rows[0].(map[string]any)["hash"] != x.all[len(x.all)-1].Hex() {
			t.Fatalf("latest transactions: %v", latest)
		}
	})

	t.Run("account", func(t *testing.T) {
		keys := devload.Keys("node-test", 3)
		a := devload.Address(keys[1])
		st, err := x.n.Chain.StateAt(x.n.Chain.Head().Root())
		if err != nil {
			t.Fatal(err)
		}
		acc := x.get(t, "/api/account/"+strings.ToLower(a.Hex()), 200)["account"].(map[string]any)
		if acc["address"] != a.Hex() || acc["balance"] != st.GetBalance(a).Dec() || acc["nonce"] != float64(st.GetNonce(a)) {
			t.Fatalf("account: %v", acc)
		}
		// Every transaction of a is one it sent.
		if acc["transactionCount"] != float64(st.GetNonce(a)) || len(acc["transactions"].([]any)) != 10 {
			t.Fatalf("account transactions: count %v, %d listed", acc["transactionCount"], len(acc["transactions"].([]any)))
		}
		if acc["transactions"].([]any)[0].(map[string]any)["hash"] != x.reverted.Hex() {
			t.Fatal("account transactions are not newest first")
		}
		last := acc["totalPages"].(float64)
		x.get(t, fmt.Sprintf("/api/account/%s?page=%d", a.Hex(), int(last)), 200)
		x.get(t, fmt.Sprintf("/api/account/%s?page=%d", a.Hex(), int(last)+1), 400)
		x.get(t, "/api/account/"+a.Hex()+"?page=0", 400)
		val := x.get(t, "/api/account/"+devload.Address(keys[0]).Hex(), 200)["account"].(map[string]any)
		if fmt.Sprint(val["roles"]) != "[validator]" || val["validator"] == nil {
			t.Fatalf("validator's account: roles %v", val["roles"])
		}
		empty := x.get(t, "/api/account/0x000000000000000000000000000000000000dEaD", 200)["account"].(map[string]any)
		if empty["transactionCount"] != 0.0 || empty["balance"] != "0" {
			t.Fatalf("unused account: %v", empty)
		}
		contract := types.CreateAddress(a, st.GetNonce(a)-2)
		c := x.get(t, "/api/account/"+contract.Hex(), 200)["account"].(map[string]any)
		if c["isContract"] != true || c["transactionCount"] != 2.0 {
			t.Fatalf("contract account: %v", c)
		}
	})

	t.Run("cycle listing", func(t *testing.T) {
		last := head.Number() / 10
		q := fmt.Sprintf("/api/transaction?startCycle=0&endCycle=%d", last)
		all := x.get(t, q, 200)
		if all["totalTransactions"] != total || all["transactions"] != nil || all["totalPages"] != nil {
			t.Fatalf("listing without page: %v", all)
		}
		var seen []string
		pages := int((total + 9) / 10)
		for p := 1; p <= pages; p++ {
			got := x.get(t, fmt.Sprintf("%s&page=%d", q, p), 200)
			rows := got["transactions"].([]any)
			if got["totalPages"] != float64(pages) || (p < pages && len(rows) != 10) || len(rows) == 0 {
				t.Fatalf("page %d: %d rows, totalPages %v", p, len(rows), got["totalPages"])
			}
			for _, r := range rows {
				seen = append(seen, r.(map[string]any)["hash"].(string))
			}
		}
		for i, h := range x.all {
			if i >= len(seen) || seen[i] != h.Hex() {
				t.Fatalf("listing row %d is not transaction %d in chain order", i, i)
			}
		}
		// One cycle counts the transactions of its ten blocks.
		var want float64
		for n := uint64(10); n < 20; n++ {
			blk, _ := x.n.Chain.BlockByNumber(n)
			want += float64(len(blk.Transactions()))
		}
		if one := x.get(t, "/api/transaction?startCycle=1", 200); one["totalTransactions"] != want {
			t.Fatalf("cycle 1: %v transactions, want %v", one["totalTransactions"], want)
		}
		// By address: b sent one transfer a round plus a token transfer.
		b := devload.Address(devload.Keys("node-test", 3)[2])
		byAddr := x.get(t, fmt.Sprintf("%s&address=%s&page=1", q, b.Hex()), 200)
		if byAddr["totalTransactions"] != 25.0 || byAddr["totalPages"] != 3.0 {
			t.Fatalf("listing of %s: %v", b, byAddr)
		}
		for _, r := range byAddr["transactions"].([]any) {
			if r.(map[string]any)["from"] != b.Hex() {
				t.Fatalf("row not of %s: %v", b, r)
			}
		}
		// Cycles past the head hold nothing yet.
		if far := x.get(t, "/api/transaction?startCycle=1000&endCycle=1099&page=1", 200); far["totalTransactions"] != 0.0 || len(far["transactions"].([]any)) != 0 {
			t.Fatalf("future cycles: %v", far)
		}
		for _, tc := range []struct {
			query  string
			status int
		}{
			{"startCycle=0&endCycle=99", 200},
			{"startCycle=0&endCycle=100", 400}, // 101 cycles
			{"startCycle=5&endCycle=4", 400},
			{"startCycle=x", 400},
			{"startCycle=-1", 400},
			{"startCycle=0&endCycle=y", 400},
			{"startCycle=0&page=0", 400},
			{"startCycle=0&page=abc", 400},
			{fmt.Sprintf("startCycle=0&endCycle=%d&page=%d", last, pages+1), 400},
			{"startCycle=0&address=0x12", 400},
		} {
			x.get(t, "/api/transaction?"+tc.query, tc.status)
		}
	})

	t.Run("network", func(t *testing.T) {
		vals := x.get(t, "/api/validators", 200)["validators"].([]any)
		if len(vals) != 1 {
			t.Fatalf("validators: %v", vals)
		}
		v := vals[0].(map[string]any)
		for _, id := range []string{v["address"].(string), v["id"].(string), v["publicKey"].(string)} {
			if got := x.get(t, "/api/validator/"+id, 200)["validator"].(map[string]any); got["address"] != v["address"] {
				t.Fatalf("validator %s: %v", id, got)
			}
		}
		c := x.get(t, "/api/cycle/1", 200)["cycle"].(map[string]any)
		if c["counter"] != 1.0 || c["startBlock"] != 10.0 || c["endBlock"] != 19.0 || c["active"] != 1.0 {
			t.Fatalf("cycle 1: %v", c)
		}
		cycles := x.get(t, "/api/cycles?count=2", 200)["cycles"].([]any)
		if len(cycles) != 2 {
			t.Fatalf("cycles: %v", cycles)
		}
		st := x.get(t, "/api/stats", 200)
		// The genesis is years older than the blocks: the average block
		// time must not count the gap before block 1.
		if st["totalTransactions"].(float64) < total || st["activeValidators"] != 1.0 || st["chainId"] != 8118.0 || st["blockTime"].(float64) > 3600 {
			t.Fatalf("stats: %v", st)
		}
		cfg := x.get(t, "/api/config", 200)
		if cfg["symbol"] != "CHAIN" {
			t.Fatalf("config: %v", cfg)
		}
	})

	t.Run("page", func(t *testing.T) {
		for path, status := range map[string]int{"/": 200, "/block/1": 200, "/tx/" + x.all[0].Hex(): 200, "/app.js": 200, "/style.css": 200, "/nothing.js": 404} {
			resp, err := http.Get(x.base + path)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != status {
				t.Fatalf("%s: %d, want %d", path, resp.StatusCode, status)
			}
		}
	})
}

// A transaction still in the pool is served as pending, and counted in
// the stats' pool size.
func TestExplorerPending(t *testing.T) {
	keys := devload.Keys("node-test", 3)
	g := devload.GenesisWithToken(8118, keys, 1_700_000_000)
	n, err := New(Config{Genesis: g, HTTPPort: -1, WSPort: -1, Explorer: true, Validator: keys[0], BlockTime: time.Hour, Accounts: keys})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	x := &explorerNode{n: n, base: "http://" + n.Addr("explorer")}
	txs, err := devload.NewSigner(8118).Workload(devload.KindTransfer, keys[1], 0, 1, devload.TokenAddress)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.backend.SendTransaction(context.Background(), txs[0]); err != nil {
		t.Fatal(err)
	}
	if n.Chain.Head().Number() != 0 {
		t.Skip("the node sealed a block before the check") // a block time of an hour makes this unreachable in practice
	}
	tx := x.get(t, "/api/transaction/"+txs[0].Hash().Hex(), 200)["transaction"].(map[string]any)
	if tx["pending"] != true || tx["from"] != devload.Address(keys[1]).Hex() || tx["nonce"] != 0.0 {
		t.Fatalf("pending transaction: %v", tx)
	}
	if st := x.get(t, "/api/stats", 200); st["poolTransactions"] != 1.0 {
		t.Fatalf("stats: %v", st)
	}
}
