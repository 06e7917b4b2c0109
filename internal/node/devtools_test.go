package node

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

func newDevToolsNode(t testing.TB) *Node { return newDevToolsNodeWith(t, nil) }

// newDevToolsNodeWith is newDevToolsNode with its config changed by mod.
func newDevToolsNodeWith(t testing.TB, mod func(*Config)) *Node {
	keys := devload.Keys("devtools-test", 2)
	g := devload.GenesisWithToken(8118, keys, 1_700_000_000)
	cfg := Config{Genesis: g, HTTPPort: -1, WSPort: -1, Validator: keys[0], Accounts: keys[1:], DevTools: true}
	if mod != nil {
		mod(&cfg)
	}
	n, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

type rpcReply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// expectDev calls method with params and checks the answer: with code 0
// a success (equal to want when want is set, then check on the result),
// else an error with that code whose message contains want.
func expectDev(t *testing.T, h http.Handler, method, params string, code int, want string, check func(*testing.T, json.RawMessage)) {
	t.Helper()
	r := devCall(t, h, method, params)
	switch {
	case code == 0 && r.Error != nil:
		t.Fatalf("%s %s: error %s", method, params, r.Error.Message)
	case code == 0 && want != "" && string(r.Result) != want:
		t.Fatalf("%s %s = %s, want %s", method, params, r.Result, want)
	case code != 0 && (r.Error == nil || r.Error.Code != code || !strings.Contains(r.Error.Message, want)):
		t.Fatalf("%s %s: got %s %+v, want code %d with %q", method, params, r.Result, r.Error, code, want)
	}
	if code == 0 && check != nil {
		check(t, r.Result)
	}
}

func devCall(t testing.TB, h http.Handler, method, params string) rpcReply {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":` + params + `}`
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	var r rpcReply
	if err := json.Unmarshal(w.Body.Bytes(), &r); err != nil {
		t.Fatalf("%s: %v: %s", method, err, w.Body.String())
	}
	return r
}

// TestDevToolsParams: bad parameters are -32602 naming the argument; an
// unknown snapshot is false, as Hardhat answers.
func TestDevToolsParams(t *testing.T) {
	h := newDevToolsNode(t).Handler()
	addr := `"0x00000000000000000000000000000000000000aa"`
	for _, c := range []struct {
		method, params string
		code           int    // 0: success
		want           string // result, or a fragment of the error message
	}{
		{"evm_revert", `["0x99"]`, 0, `false`},
		{"evm_revert", `["zz"]`, -32602, "invalid argument 0"},
		{"evm_revert", `[]`, -32602, ""},
		{"hardhat_setBalance", `["0xzz","0x1"]`, -32602, "invalid argument 0"},
		{"hardhat_setBalance", `[` + addr + `,"1x"]`, -32602, "invalid argument 1"},
		{"hardhat_setBalance", `[` + addr + `,"0x10"]`, 0, `true`},
		{"anvil_setBalance", `[` + addr + `,"0x10"]`, 0, `null`},
		{"hardhat_setCode", `[` + addr + `,"0x6"]`, -32602, "invalid argument 1"},
		{"hardhat_setNonce", `[` + addr + `,{}]`, -32602, "invalid argument 1"},
		{"hardhat_setStorageAt", `[` + addr + `,"0x1","0x01"]`, -32602, "invalid argument 2"},
		{"hardhat_setStorageAt", `[` + addr + `,"0x1","0x` + strings.Repeat("0", 63) + `7"]`, 0, `true`},
		{"evm_setNextBlockTimestamp", `["0x1"]`, -32602, "not after"},
		{"evm_mine", `["0x1"]`, -32602, "invalid argument 0"},
		{"evm_increaseTime", `[-5]`, -32602, "invalid argument 0"},
		{"evm_setAutomine", `["yes"]`, -32602, "invalid argument 0"},
		{"evm_setIntervalMining", `["0x"]`, -32602, "invalid argument 0"},
		{"evm_setIntervalMining", `[[5,2]]`, -32602, "invalid argument 0"},
		{"evm_setIntervalMining", `[[0,2]]`, -32602, "invalid argument 0"},
		{"evm_setIntervalMining", `[[60000,120000]]`, 0, `true`},
		{"evm_setIntervalMining", `[0]`, 0, `true`},
		{"anvil_setIntervalMining", `[0]`, 0, `null`},
		{"hardhat_impersonateAccount", `["0x12"]`, -32602, "invalid argument 0"},
		{"anvil_autoImpersonateAccount", `[1]`, -32602, "invalid argument 0"},
		{"hardhat_setLoggingEnabled", `["yes"]`, -32602, "invalid argument 0"},
		{"hardhat_setLoggingEnabled", `[false]`, 0, `true`},
		{"anvil_setLoggingEnabled", `[true]`, 0, `null`},
	} {
		r := devCall(t, h, c.method, c.params)
		switch {
		case c.code == 0 && r.Error != nil:
			t.Errorf("%s %s: error %s", c.method, c.params, r.Error.Message)
		case c.code == 0 && string(r.Result) != c.want:
			t.Errorf("%s %s = %s, want %s", c.method, c.params, r.Result, c.want)
		case c.code != 0 && (r.Error == nil || r.Error.Code != c.code || !strings.Contains(r.Error.Message, c.want)):
			t.Errorf("%s %s: got %s %+v, want code %d with %q", c.method, c.params, r.Result, r.Error, c.code, c.want)
		}
	}
}

// TestSnapshotNesting: set* changes are visible at once, go into the next
// block's state, and nested reverts undo them in order.
func TestSnapshotNesting(t *testing.T) {
	n := newDevToolsNode(t)
	h := n.Handler()
	a := types.Address{0xaa}
	bal := func() string {
		var s string
		json.Unmarshal(devCall(t, h, "eth_getBalance", `["`+a.Hex()+`","latest"]`).Result, &s)
		return s
	}
	set := func(v string) {
		if r := devCall(t, h, "hardhat_setBalance", `["`+a.Hex()+`","`+v+`"]`); r.Error != nil {
			t.Fatal(r.Error.Message)
		}
	}
	snap := func() string {
		var s string
		json.Unmarshal(devCall(t, h, "evm_snapshot", `[]`).Result, &s)
		return s
	}
	revert := func(id string) string { return string(devCall(t, h, "evm_revert", `["`+id+`"]`).Result) }

	s1 := snap()
	set("0x1")
	s2 := snap()
	set("0x2")
	devCall(t, h, "evm_mine", `[]`)
	if got := n.Chain.Head().Number(); got != 1 {
		t.Fatalf("head %d after evm_mine", got)
	}
	st, _ := n.Chain.StateAt(n.Chain.Head().Root()) // the block's own root
	if got := st.GetBalance(a); !got.Eq(uint256.NewInt(2)) {
		t.Errorf("mined block's state has balance %s, want 2", got)
	}
	set("0x3")
	if got := bal(); got != "0x3" {
		t.Errorf("balance %s after setBalance, want 0x3", got)
	}
	if got := revert(s2); got != "true" {
		t.Fatalf("revert %s = %s", s2, got)
	}
	if got, num := bal(), n.Chain.Head().Number(); got != "0x1" || num != 0 {
		t.Errorf("after revert to %s: balance %s at head %d, want 0x1 at 0", s2, got, num)
	}
	if got := revert(s2); got != "false" {
		t.Errorf("second revert to %s = %s, want false", s2, got)
	}
	if got := revert(s1); got != "true" || bal() != "0x0" {
		t.Errorf("revert to %s = %s, balance %s; want true, 0x0", s1, got, bal())
	}
}

// BenchmarkSnapshotRevert is an evm_snapshot + evm_revert round trip
// when 10,000 accounts were touched after the snapshot (their balances
// changed in the head's state, and in the second case a block mined on
// top): the revert copies nothing, so its cost does not grow with them.
// The changed state is made once, outside the timing, and each iteration
// puts the head on it before reverting.
func BenchmarkSnapshotRevert(b *testing.B) {
	n := newDevToolsNode(b)
	d, c, v := n.dev, n.Chain, n.view
	ctx := context.Background()
	const accounts = 10_000
	genesis := c.Head().Hash()
	headRoot := func() types.Hash { return v.StateRoot(c.Head().HeaderRef()) }
	base := headRoot()
	// The edit a hardhat_setBalance makes, on 10,000 accounts at once
	// (the node is idle: no block is being built).
	st, err := c.StateAt(base)
	if err != nil {
		b.Fatal(err)
	}
	for i := range accounts {
		st.SetBalance(types.Address{0xbe, byte(i >> 8), byte(i)}, uint256.NewInt(uint64(i)+7))
	}
	if _, err := v.SetHeadState(genesis, st); err != nil {
		b.Fatal(err)
	}
	touched := headRoot()
	if err := v.UseHeadState(genesis, base); err != nil {
		b.Fatal(err)
	}
	for _, mined := range []bool{false, true} {
		name := "state"
		if mined {
			name = "state+block" // the revert also rewinds a block and restarts consensus
		}
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				id := d.Snapshot()
				b.StopTimer()
				if err := v.UseHeadState(genesis, touched); err != nil {
					b.Fatal(err)
				}
				if mined {
					if err := d.Mine(ctx, 1, 0, 0); err != nil {
						b.Fatal(err)
					}
				}
				b.StartTimer()
				if ok, err := d.Revert(ctx, id, backend.RevertOptions{Pool: true, Coinbase: true, NextRandao: true}); !ok || err != nil {
					b.Fatal(ok, err)
				}
			}
			b.StopTimer()
			if c.Head().Hash() != genesis || headRoot() != base {
				b.Fatalf("the reverts left head %d, state %s", c.Head().Number(), headRoot())
			}
		})
	}
}

// TestDumpLoadState: anvil_dumpState of one node loaded into another
// gives the same accounts, contract storage included.
func TestDumpLoadState(t *testing.T) {
	src, dst := newDevToolsNode(t), newDevToolsNode(t)
	hs, hd := src.Handler(), dst.Handler()
	a, c := `"0x00000000000000000000000000000000000000aa"`, `"0x00000000000000000000000000000000000000cc"`
	for _, r := range []rpcReply{
		devCall(t, hs, "anvil_setBalance", `[`+a+`,"0x1234"]`),
		devCall(t, hs, "anvil_setNonce", `[`+a+`,"0x5"]`),
		devCall(t, hs, "anvil_setCode", `[`+c+`,"0x345f5500"]`),
		devCall(t, hs, "anvil_setStorageAt", `[`+c+`,"0x2","0x`+strings.Repeat("0", 62)+`2a"]`),
		devCall(t, hs, "evm_mine", `[]`),
	} {
		if r.Error != nil {
			t.Fatal(r.Error.Message)
		}
	}
	dump := devCall(t, hs, "anvil_dumpState", `[]`)
	if dump.Error != nil {
		t.Fatal(dump.Error.Message)
	}
	if r := devCall(t, hd, "anvil_loadState", `[`+string(dump.Result)+`]`); r.Error != nil || string(r.Result) != "true" {
		t.Fatalf("anvil_loadState: %s %+v", r.Result, r.Error)
	}
	for _, q := range []struct{ method, params, want string }{
		{"eth_getBalance", `[` + a + `,"latest"]`, `"0x1234"`},
		{"eth_getTransactionCount", `[` + a + `,"latest"]`, `"0x5"`},
		{"eth_getCode", `[` + c + `,"latest"]`, `"0x345f5500"`},
		{"eth_getStorageAt", `[` + c + `,"0x2","latest"]`, `"0x` + strings.Repeat("0", 62) + `2a"`},
	} {
		if got := string(devCall(t, hd, q.method, q.params).Result); got != q.want {
			t.Errorf("%s on the loaded node = %s, want %s", q.method, got, q.want)
		}
	}
	if r := devCall(t, hd, "anvil_loadState", `["0x1f8b00"]`); r.Error == nil || r.Error.Code != -32602 {
		t.Errorf("a broken dump: %+v, want -32602", r.Error)
	}
}

// TestDevToolsOnlyOnDev: without DevTools none of the helpers is served,
// and a public node refuses them.
func TestDevToolsOnlyOnDev(t *testing.T) {
	keys := devload.Keys("devtools-test", 2)
	g := devload.GenesisWithToken(8118, keys, 1_700_000_000)
	n, err := New(Config{Genesis: g, HTTPPort: -1, WSPort: -1, Validator: keys[0]})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	for _, m := range []string{"evm_snapshot", "evm_mine", "hardhat_setBalance", "anvil_impersonateAccount", "hardhat_metadata", "anvil_dumpState",
		"hardhat_setCoinbase", "anvil_setNextBlockBaseFeePerGas", "hardhat_setPrevRandao", "anvil_setNextBlockPrevRandao",
		"hardhat_dropTransaction", "anvil_dropAllTransactions"} {
		if r := devCall(t, n.Handler(), m, `[]`); r.Error == nil || r.Error.Code != -32601 {
			t.Errorf("%s on a node without DevTools: %+v, want method not found", m, r.Error)
		}
	}
	if r := devCall(t, n.Handler(), "web3_clientVersion", `[]`); strings.Contains(string(r.Result), "anvil") {
		t.Errorf("web3_clientVersion %s on a node without DevTools", r.Result)
	}
	if _, err := New(Config{Genesis: g, HTTPPort: -1, WSPort: -1, DevTools: true, Public: true}); err == nil {
		t.Error("a public node accepted DevTools")
	}
}

// TestMiningModes: with automine off a sent transaction waits in the pool
// until evm_mine; interval mining makes blocks on its own.
func TestMiningModes(t *testing.T) {
	n := newDevToolsNode(t)
	h := n.Handler()
	from := types.Address(devload.Address(n.cfg.Accounts[0]))
	if r := devCall(t, h, "evm_setAutomine", `[false]`); string(r.Result) != "true" {
		t.Fatalf("evm_setAutomine: %s %+v", r.Result, r.Error)
	}
	r := devCall(t, h, "eth_sendTransaction", `[{"from":"`+from.Hex()+`","to":"0x00000000000000000000000000000000000000dd","value":"0x5"}]`)
	if r.Error != nil {
		t.Fatal(r.Error.Message)
	}
	if got := n.Chain.Head().Number(); got != 0 {
		t.Fatalf("a block (%d) was made with automine off", got)
	}
	if r := devCall(t, h, "hardhat_getAutomine", `[]`); string(r.Result) != "false" {
		t.Errorf("hardhat_getAutomine = %s", r.Result)
	}
	devCall(t, h, "evm_mine", `[]`)
	if b := n.Chain.Head(); b.Number() != 1 || len(b.Transactions()) != 1 {
		t.Fatalf("evm_mine made block %d with %d transactions, want 1 with 1", b.Number(), len(b.Transactions()))
	}
	devCall(t, h, "anvil_setIntervalMining", `[1]`)
	deadline := time.Now().Add(30 * time.Second)
	for n.Chain.Head().Number() < 3 {
		if time.Now().After(deadline) {
			t.Fatalf("interval mining made no blocks: head %d", n.Chain.Head().Number())
		}
		time.Sleep(50 * time.Millisecond)
	}
	devCall(t, h, "anvil_setIntervalMining", `[0]`)
}
