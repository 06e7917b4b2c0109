package ethapi_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"log/slog"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/crypto/hd"
	"github.com/chaind/chaind/internal/node"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
	"github.com/coder/websocket"
)

// panicWatch is the node's logger: it remembers every handler panic the
// server recovered from, which the fuzzers turn into failures (a recovered
// panic is still a bug: the caller gets "internal error" for bad input).
type panicWatch struct {
	mu     sync.Mutex
	panics []string
}

func (w *panicWatch) Enabled(context.Context, slog.Level) bool { return true }
func (w *panicWatch) WithAttrs([]slog.Attr) slog.Handler       { return w }
func (w *panicWatch) WithGroup(string) slog.Handler            { return w }
func (w *panicWatch) Handle(_ context.Context, r slog.Record) error {
	if r.Level < slog.LevelError || !strings.Contains(r.Message, "panic") {
		return nil
	}
	var b strings.Builder
	b.WriteString(r.Message)
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, "\n%s: %v", a.Key, a.Value)
		return true
	})
	w.mu.Lock()
	w.panics = append(w.panics, b.String())
	w.mu.Unlock()
	return nil
}

func (w *panicWatch) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	p := w.panics
	w.panics = nil
	return p
}

// fixture is a running in-memory dev node (no listeners; block production
// on) with a little history: a value transfer, a contract whose
// constructor logs and whose runtime returns SLOAD(0), and the hashes and
// addresses the seeds refer to.
type fixture struct {
	n         *node.Node
	watch     *panicWatch
	methods   []string
	ws        *websocket.Conn
	wsMu      sync.Mutex
	wsReplies chan []byte
	wsErr     error

	acct0, acct1 types.Address
	contract     types.Address
	transferTx   types.Hash
	deployTx     types.Hash
	block1       types.Hash
	genesis      types.Hash
}

// logTopic is the topic the fixture contract's constructor logs.
var logTopic = "0x" + strings.Repeat("ab", 32)

// fixtureInitcode stores 42 in slot 0, logs LOG1(mem[0:32]=42, logTopic)
// and deploys the 11-byte runtime PUSH1 0 SLOAD PUSH1 0 MSTORE PUSH1 32
// PUSH1 0 RETURN.
func fixtureInitcode() string {
	runtime := "60005460005260206000f3"
	pre := "602a600055" + // SSTORE(0, 42)
		"602a600052" + // MSTORE(0, 42)
		"7f" + logTopic[2:] + "60206000a1" // LOG1(0, 32, topic)
	copyRet := func(off int) string { return fmt.Sprintf("600b60%02x600039600b6000f3", off) }
	off := (len(pre) + len(copyRet(0))) / 2
	return "0x" + pre + copyRet(off) + runtime
}

func newFixture(tb testing.TB) *fixture {
	tb.Helper()
	keys, err := hd.DevAccounts(hd.DevMnemonic, 3)
	if err != nil {
		tb.Fatal(err)
	}
	var addrs []types.Address
	for _, k := range keys {
		addrs = append(addrs, types.Address(crypto.PubkeyToAddress(k.PubKey())))
	}
	watch := &panicWatch{}
	n, err := node.New(node.Config{
		Genesis:       chain.DevGenesis(chain.MainChainID, addrs, 1_700_000_000),
		HTTPPort:      -1,
		WSPort:        -1,
		Validator:     keys[0],
		Accounts:      keys,
		ClientVersion: "chaind/fuzz",
		Log:           slog.New(watch),
	})
	if err != nil {
		tb.Fatal(err)
	}
	if err := n.Start(); err != nil {
		tb.Fatal(err)
	}
	fx := &fixture{n: n, watch: watch, methods: n.RPC.Methods(), acct0: addrs[0], acct1: addrs[1]}
	srv := httptest.NewServer(n.Handler())
	tb.Cleanup(func() {
		if fx.ws != nil {
			fx.ws.CloseNow()
		}
		srv.Close()
		n.Close()
	})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	fx.ws, _, err = websocket.Dial(ctx, "ws"+strings.TrimPrefix(srv.URL, "http"), nil)
	if err != nil {
		tb.Fatal(err)
	}
	fx.ws.SetReadLimit(64 << 20)
	fx.wsReplies = make(chan []byte, 1)
	go fx.readWS()

	fx.genesis = fx.mustResult(tb, "eth_getBlockByNumber", `["0x0",false]`, "hash")
	fx.transferTx = fx.mustHash(tb, "eth_sendTransaction", fmt.Sprintf(`[{"from":"%s","to":"%s","value":"0x1000"}]`, fx.acct0.Hex(), fx.acct1.Hex()))
	fx.deployTx = fx.mustHash(tb, "eth_sendTransaction", fmt.Sprintf(`[{"from":"%s","input":"%s"}]`, fx.acct1.Hex(), fixtureInitcode()))
	for _, h := range []types.Hash{fx.transferTx, fx.deployTx} {
		deadline := time.Now().Add(10 * time.Second)
		for {
			var rc struct {
				Status          string         `json:"status"`
				BlockHash       types.Hash     `json:"blockHash"`
				ContractAddress *types.Address `json:"contractAddress"`
			}
			res := fx.call(tb, "eth_getTransactionReceipt", fmt.Sprintf(`["%s"]`, h.Hex()))
			if string(res.Result) != "null" && res.Result != nil {
				if err := json.Unmarshal(res.Result, &rc); err != nil {
					tb.Fatal(err)
				}
				if rc.Status != "0x1" {
					tb.Fatalf("fixture transaction %s failed: %s", h.Hex(), res.Result)
				}
				if rc.ContractAddress != nil {
					fx.contract = *rc.ContractAddress
				}
				if fx.block1 == (types.Hash{}) {
					fx.block1 = rc.BlockHash
				}
				break
			}
			if time.Now().After(deadline) {
				tb.Fatalf("fixture transaction %s not mined", h.Hex())
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	if fx.contract == (types.Address{}) {
		tb.Fatal("fixture contract not deployed")
	}
	if p := watch.take(); len(p) > 0 {
		tb.Fatalf("panics while building the fixture: %v", p)
	}
	return fx
}

type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  json.RawMessage `json:"result"`
	Error   *rpc.Error      `json:"error"`
}

func request(method, params string) []byte {
	return []byte(`{"jsonrpc":"2.0","id":1,"method":` + quote(method) + `,"params":` + params + `}`)
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func (fx *fixture) call(tb testing.TB, method, params string) rpcResponse {
	tb.Helper()
	out := fx.n.RPC.HandleMessage(context.Background(), request(method, params))
	var r rpcResponse
	if err := json.Unmarshal(out, &r); err != nil {
		tb.Fatalf("%s %s: bad response %q: %v", method, params, out, err)
	}
	return r
}

func (fx *fixture) mustResult(tb testing.TB, method, params, field string) types.Hash {
	tb.Helper()
	r := fx.call(tb, method, params)
	if r.Error != nil {
		tb.Fatalf("%s: %v", method, r.Error.Message)
	}
	var m map[string]json.RawMessage
	var h types.Hash
	if err := json.Unmarshal(r.Result, &m); err != nil || json.Unmarshal(m[field], &h) != nil {
		tb.Fatalf("%s: no %s in %s", method, field, r.Result)
	}
	return h
}

func (fx *fixture) mustHash(tb testing.TB, method, params string) types.Hash {
	tb.Helper()
	r := fx.call(tb, method, params)
	var h types.Hash
	if r.Error != nil || json.Unmarshal(r.Result, &h) != nil {
		tb.Fatalf("%s %s: %s %v", method, params, r.Result, r.Error)
	}
	return h
}

// readWS keeps reading the fixture's WebSocket, as a real client does (a
// connection nobody reads cannot answer the server's pings and is closed),
// and hands replies, not notifications, to viaWS.
func (fx *fixture) readWS() {
	defer close(fx.wsReplies)
	for {
		_, b, err := fx.ws.Read(context.Background())
		if err != nil {
			fx.wsErr = err
			return
		}
		if bytes.Contains(b, []byte(`"eth_subscription"`)) {
			continue
		}
		fx.wsReplies <- b
	}
}

// viaWS sends one message over the fixture's WebSocket and returns the reply.
func (fx *fixture) viaWS(t *testing.T, msg []byte) []byte {
	fx.wsMu.Lock()
	defer fx.wsMu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := fx.ws.Write(ctx, websocket.MessageText, msg); err != nil {
		t.Fatalf("websocket write: %v", err)
	}
	select {
	case b, ok := <-fx.wsReplies:
		if !ok {
			t.Fatalf("websocket closed after %q: %v", msg, fx.wsErr)
		}
		return b
	case <-ctx.Done():
		t.Fatalf("no websocket reply to %q", msg)
		return nil
	}
}

// seeds are valid and near-valid parameters for every method, keyed by
// method; "*" applies to all methods, so a method registered later is
// fuzzed from generic shapes until it gets its own seeds.
func (fx *fixture) seeds() map[string][]string {
	a0, a1, c := quote(fx.acct0.Hex()), quote(fx.acct1.Hex()), quote(fx.contract.Hex())
	tx, dtx, b1, g := quote(fx.transferTx.Hex()), quote(fx.deployTx.Hex()), quote(fx.block1.Hex()), quote(fx.genesis.Hex())
	callObj := `{"from":` + a0 + `,"to":` + c + `,"data":"0x"}`
	blockRefs := []string{`"latest"`, `"earliest"`, `"pending"`, `"safe"`, `"finalized"`, `"0x0"`, `"0x1"`, `"0xffffffffffffffff"`,
		`{"blockHash":` + b1 + `}`, `{"blockHash":` + b1 + `,"requireCanonical":true}`, `{"blockNumber":"0x1"}`, b1}
	s := map[string][]string{
		"*": {`[]`, `null`, `[null]`, `["latest"]`, `["0x0"]`, `[{}]`, `[""]`, `[1]`, `[true]`, `[[]]`, `["0x"]`,
			`[` + a0 + `]`, `[` + tx + `]`, `[` + b1 + `]`, `[` + a0 + `,"latest"]`, `["0x0","0x0"]`, `[{},{},{},{},{}]`},
		"web3_sha3": {`["0x"]`, `["0x68656c6c6f"]`, `["68656c6c6f"]`, `["0x1"]`},
		"eth_getBlockByNumber": {`["latest",true]`, `["0x1",false]`, `["earliest",true]`, `["0x10000000000000000",false]`,
			`["-0x1",false]`, `["0x01",false]`, `[1,false]`, `["latest","true"]`},
		"eth_getBlockByHash":                      {`[` + b1 + `,true]`, `[` + g + `,false]`, `["0x00",false]`},
		"eth_getBlockTransactionCountByNumber":    {`["0x1"]`, `["pending"]`},
		"eth_getBlockTransactionCountByHash":      {`[` + b1 + `]`},
		"eth_getUncleCountByBlockNumber":          {`["0x1"]`},
		"eth_getUncleCountByBlockHash":            {`[` + b1 + `]`},
		"eth_getUncleByBlockNumberAndIndex":       {`["0x1","0x0"]`, `["latest","0xffffffffffffffff"]`},
		"eth_getUncleByBlockHashAndIndex":         {`[` + b1 + `,"0x0"]`},
		"eth_getTransactionByHash":                {`[` + tx + `]`, `[` + dtx + `]`, `["0x1234"]`},
		"eth_getTransactionByBlockNumberAndIndex": {`["0x1","0x0"]`, `["latest","0x1"]`, `["0x1","0xffffffffffffffff"]`, `["0x1",0]`},
		"eth_getTransactionByBlockHashAndIndex":   {`[` + b1 + `,"0x0"]`, `[` + b1 + `,"0x7fffffffffffffff"]`},
		"eth_getTransactionReceipt":               {`[` + tx + `]`, `[` + dtx + `]`},
		"eth_getBlockReceipts":                    {`["latest"]`, `["0x1"]`, `[` + b1 + `]`, `[{"blockHash":` + b1 + `}]`},
		"eth_getBalance":                          {`[` + a0 + `,"latest"]`, `[` + a1 + `,"0x0"]`, `[` + a0 + `,{"blockHash":` + b1 + `}]`, `["0x12",` + `"latest"]`},
		"eth_getTransactionCount":                 {`[` + a0 + `,"pending"]`, `[` + a0 + `]`},
		"eth_getCode":                             {`[` + c + `,"latest"]`, `[` + c + `,"0x0"]`},
		"eth_getStorageAt":                        {`[` + c + `,"0x0","latest"]`, `[` + c + `,"0x` + strings.Repeat("f", 64) + `"]`, `[` + c + `,"0x` + strings.Repeat("f", 65) + `"]`, `[` + c + `,"0x"]`},
		"eth_getProof":                            {`[` + c + `,["0x0"],"latest"]`, `[` + a0 + `,[],"0x1"]`, `[` + c + `,["0x0","0x1","0x2"]]`, `[` + c + `,"0x0"]`},
		"eth_sendRawTransaction":                  {`["0x"]`, `["0xf86c"]`, `["0x02f8"]`, `["0x01"]`, `["0x03"]`, `["0x04"]`, `["0x` + strings.Repeat("c0", 40) + `"]`},
		"eth_call": {`[` + callObj + `,"latest"]`, `[` + callObj + `]`, `[{"to":` + c + `},"0x0"]`,
			`[{"to":` + c + `},"latest",{` + c + `:{"stateDiff":{"0x0000000000000000000000000000000000000000000000000000000000000000":"0x0000000000000000000000000000000000000000000000000000000000000007"}}}]`,
			`[{"to":` + c + `},"latest",{` + c + `:{"code":"0x6001"}}]`,
			`[{"to":` + c + `},"latest",{` + c + `:{"balance":"0x1","nonce":"0x1"}},{"number":"0x100","time":"0x1","baseFee":"0x0"}]`,
			`[{"data":"0x5b600056","gas":"0x100000"},"latest"]`,
			`[{"from":` + a0 + `,"value":"0xffffffffffffffffffffffffffffffffffffffff","to":` + a1 + `}]`,
			`[{"gasPrice":"0x1","maxFeePerGas":"0x1"}]`, `[{"input":"0x00","data":"0x01"}]`,
			`[{"blobVersionedHashes":["0x01` + strings.Repeat("00", 31) + `"],"maxFeePerBlobGas":"0x1","to":` + c + `}]`,
			`[{"authorizationList":[{"chainId":"0x1","address":` + c + `,"nonce":"0x0","yParity":"0x0","r":"0x1","s":"0x1"}],"to":` + c + `}]`,
			`[{"to":"0x0000000000000000000000000000000000000001","data":"0x` + strings.Repeat("00", 128) + `"}]`,
			`[{"to":"0x0000000000000000000000000000000000000005","data":"0x` + strings.Repeat("00", 31) + `20` + strings.Repeat("00", 31) + `20` + strings.Repeat("00", 31) + `20` + strings.Repeat("ff", 96) + `"}]`,
			`[{"to":"0x000000000000000000000000000000000000000a","data":"0x00"}]`},
		"eth_estimateGas": {`[` + callObj + `]`, `[{"from":` + a0 + `,"to":` + a1 + `,"value":"0x1"}]`, `[{"from":` + a0 + `,"data":"0xfe"}]`,
			`[{"from":` + a0 + `,"gas":"0x5208","to":` + a1 + `},"pending",{` + a0 + `:{"balance":"0x0"}}]`, `[{"gas":"0xffffffffffffffff"}]`},
		"eth_createAccessList":            {`[` + callObj + `]`, `[{"from":` + a0 + `,"to":` + c + `,"accessList":[{"address":` + c + `,"storageKeys":["0x0000000000000000000000000000000000000000000000000000000000000000"]}]},"latest"]`},
		"eth_feeHistory":                  {`["0x4","latest",[25,75]]`, `["0x400","latest",[]]`, `[4,"latest"]`, `["0x1","0x1",[50,10]]`, `["0x1","latest",[101]]`, `["0xffffffff","pending",[0,100]]`},
		"eth_getLogs":                     {`[{"fromBlock":"0x0","toBlock":"latest"}]`, `[{"address":` + c + `,"topics":["` + logTopic + `"]}]`, `[{"blockHash":` + b1 + `}]`, `[{"address":[` + c + `,` + a0 + `],"topics":[null,["` + logTopic + `"]]}]`, `[{"fromBlock":"0x5","toBlock":"0x1"}]`, `[{"blockHash":` + b1 + `,"fromBlock":"0x0"}]`, `[{"topics":[[],[],[],[],[]]}]`},
		"debug_getRawBlock":               {`["0x1"]`, `["latest"]`, `[` + b1 + `]`},
		"debug_getRawHeader":              {`["0x0"]`, `[` + b1 + `]`},
		"debug_getRawReceipts":            {`["0x1"]`, `["0x2"]`},
		"debug_getRawTransaction":         {`[` + tx + `]`, `[` + dtx + `]`},
		"eth_sign":                        {`[` + a0 + `,"0x68656c6c6f"]`, `[` + c + `,"0x00"]`, `[` + a0 + `,"hello"]`},
		"personal_sign":                   {`["0x68656c6c6f",` + a0 + `]`, `["0x00",` + c + `]`, `["hello",` + a0 + `]`},
		"eth_signTransaction":             {`[{"from":` + a0 + `,"to":` + a1 + `,"value":"0x1","gas":"0x5208","gasPrice":"0x3b9aca00","nonce":"0x7"}]`, `[{"from":` + a0 + `,"to":` + a1 + `,"maxFeePerGas":"0x1","maxPriorityFeePerGas":"0x2"}]`, `[{"from":` + a0 + `,"chainId":"0x1"}]`, `[{"from":` + a0 + `,"to":` + a1 + `,"accessList":[],"gasPrice":"0x1","gas":"0x5208"}]`},
		"eth_sendTransaction":             {`[{"from":` + a1 + `,"to":` + a0 + `,"value":"0x1"}]`, `[{"from":` + a1 + `,"to":` + c + `,"gas":"0xffffffffffffffff"}]`, `[{"from":` + a1 + `,"nonce":"0x0","to":` + a0 + `}]`, `[{"to":` + a0 + `}]`},
		"eth_newFilter":                   {`[{"address":` + c + `,"fromBlock":"0x0"}]`, `[{"topics":[["` + logTopic + `"]],"fromBlock":"latest","toBlock":"pending"}]`, `[{"blockHash":` + b1 + `}]`},
		"eth_getFilterChanges":            {`["0x0"]`, `["0x` + strings.Repeat("0", 32) + `"]`, `[1]`},
		"eth_getFilterLogs":               {`["0x0"]`},
		"eth_uninstallFilter":             {`["0x0"]`},
		"eth_newPendingTransactionFilter": {`[true]`, `[false]`},
		"eth_subscribe":                   {`["newHeads"]`, `["logs",{"address":` + c + `}]`, `["logs",{"topics":[["` + logTopic + `"]]}]`, `["newPendingTransactions"]`, `["newPendingTransactions",true]`, `["syncing"]`, `["bogus"]`, `["logs",{"blockHash":` + b1 + `}]`},
		"eth_unsubscribe":                 {`["0x0"]`, `[1]`},
		"eth_getStorageValues":            {`[{` + c + `:["0x0","0x1"]},"latest"]`, `[{` + c + `:["0x` + strings.Repeat("f", 64) + `"]}]`, `[{` + c + `:[1]}]`, `[{` + a0 + `:[]},"0x0"]`, `[{}]`},
		"eth_simulateV1": {`[{"blockStateCalls":[{"calls":[` + callObj + `]}]},"latest"]`,
			`[{"blockStateCalls":[{"blockOverrides":{"number":"0x10","time":"0xffffffff","baseFeePerGas":"0x0"},"stateOverrides":{` + a1 + `:{"balance":"0xffffffffffffffffffff"}},"calls":[{"from":` + a1 + `,"to":` + a0 + `,"value":"0x1"},{"from":` + a1 + `,"data":"0x5b600056","gas":"0x10000"}]},{"calls":[]}],"traceTransfers":true,"validation":true,"returnFullTransactions":true}]`,
			`[{"blockStateCalls":[{"blockOverrides":{"number":"0x0"}},{"blockOverrides":{"number":"0xffffffffffffffff"}}]}]`,
			`[{"blockStateCalls":[{"blockOverrides":{"withdrawals":[{"index":"0x0","validatorIndex":"0x1","address":` + a0 + `,"amount":"0xffffffffffffffff"}]}}]}]`,
			`[{"blockStateCalls":[]},"0x1"]`, `[{}]`},
		"testing_buildBlockV1": {`[` + b1 + `,{"timestamp":"0xffffffff","prevRandao":` + g + `,"suggestedFeeRecipient":` + a0 + `,"withdrawals":[],"parentBeaconBlockRoot":` + g + `},[],"0x"]`,
			`[` + g + `,{"timestamp":"0x0"},["0x00"]]`, `[` + b1 + `,{"timestamp":"0x1"},["0xc0"],"0x` + strings.Repeat("ff", 40) + `"]`},
		"debug_traceTransaction": {`[` + dtx + `]`, `[` + tx + `,{"tracer":"callTracer","tracerConfig":{"onlyTopCall":true,"withLog":true}}]`,
			`[` + dtx + `,{"enableMemory":true,"enableReturnData":true,"disableStack":true,"timeout":"1s"}]`, `[` + dtx + `,{"tracer":"prestateTracer"}]`, `[` + tx + `,{"timeout":"-1h"}]`, `[` + tx + `,{"timeout":"zz"}]`,
			`[` + dtx + `,{"limit":3,"enableMemory":true,"disableMemory":true}]`, `[` + dtx + `,{"limit":-1}]`, `[` + dtx + `,{"timeout":"1ns"}]`},
		"debug_traceBlockByNumber": {`["0x1"]`, `["latest",{"tracer":"callTracer"}]`, `["0x0",{"disableStorage":true}]`, `["0xffff"]`},
		"debug_traceBlockByHash":   {`[` + b1 + `]`, `[` + b1 + `,{"tracer":"callTracer","tracerConfig":{"withLog":true}}]`, `[` + g + `]`},
		"chain_getNodeList":        {`[{"page":1,"limit":10}]`, `[{"page":0}]`, `[{"page":9223372036854775807,"limit":1000}]`, `[{"limit":-1}]`, `[{"page":"1"}]`, `[7]`},
		"chain_getCycleInfo":       {`[0]`, `["0x0"]`, `[18446744073709551615]`, `[-1]`, `["latest"]`, `[1.5]`},
	}
	for _, ref := range blockRefs {
		s["eth_getBalance"] = append(s["eth_getBalance"], `[`+a0+`,`+ref+`]`)
		s["eth_getTransactionCount"] = append(s["eth_getTransactionCount"], `[`+a1+`,`+ref+`]`)
		s["eth_getCode"] = append(s["eth_getCode"], `[`+c+`,`+ref+`]`)
		s["eth_getStorageAt"] = append(s["eth_getStorageAt"], `[`+c+`,"0x0",`+ref+`]`)
		s["eth_call"] = append(s["eth_call"], `[`+callObj+`,`+ref+`]`)
		s["eth_getBlockByNumber"] = append(s["eth_getBlockByNumber"], `[`+ref+`,false]`)
		s["eth_getBlockReceipts"] = append(s["eth_getBlockReceipts"], `[`+ref+`]`)
	}
	return s
}

// pickMethod maps any fuzzed name onto a registered method (a name that is
// registered stays itself), so mutations of the name do not all land on
// "method not found".
func (fx *fixture) pickMethod(name string) string {
	if _, ok := slices.BinarySearch(fx.methods, name); ok {
		return name
	}
	return fx.methods[crc32.ChecksumIEEE([]byte(name))%uint32(len(fx.methods))]
}

// check runs one call and verifies the answer: a JSON-RPC 2.0 response with
// id 1 and exactly one of result and error, not an internal error, and no
// panic logged.
func (fx *fixture) check(t *testing.T, method, params string) {
	msg := request(method, params)
	var out []byte
	start := time.Now()
	if method == "eth_subscribe" || method == "eth_unsubscribe" {
		out = fx.viaWS(t, msg)
	} else {
		out = fx.n.RPC.HandleMessage(context.Background(), msg)
	}
	// The node caps eth_call at 5 s; nothing may take much longer than that.
	if d := time.Since(start); d > 15*time.Second {
		t.Fatalf("%s %s: took %s", method, params, d)
	}
	if p := fx.watch.take(); len(p) > 0 {
		t.Fatalf("%s %s: handler panicked:\n%s", method, params, strings.Join(p, "\n"))
	}
	if out == nil {
		t.Fatalf("%s %s: no response", method, params)
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("%s %s: response is not a JSON object: %v: %q", method, params, err, out)
	}
	if string(m["jsonrpc"]) != `"2.0"` || string(m["id"]) != "1" {
		t.Fatalf("%s %s: bad envelope: %s", method, params, out)
	}
	_, hasResult := m["result"]
	e, hasError := m["error"]
	if hasResult == hasError {
		t.Fatalf("%s %s: want exactly one of result and error: %s", method, params, out)
	}
	if hasError {
		var eo rpc.Error
		if err := json.Unmarshal(e, &eo); err != nil || eo.Code == 0 || eo.Message == "" {
			t.Fatalf("%s %s: malformed error: %s", method, params, out)
		}
		if eo.Code == rpc.CodeInternal {
			t.Fatalf("%s %s: internal error: %s", method, params, out)
		}
		return
	}
	// A subscription made by the fuzzer is ended at once so they do not pile up.
	if method == "eth_subscribe" {
		var id string
		if json.Unmarshal(m["result"], &id) == nil {
			fx.viaWS(t, request("eth_unsubscribe", `[`+quote(id)+`]`))
		}
	}
}

// FuzzMethodParams calls every method of RegisterEth, RegisterFilters,
// RegisterAccounts and RegisterChain (as the node registers them) with
// fuzzed parameters over a live in-memory dev node.
func FuzzMethodParams(f *testing.F) {
	fx := newFixture(f)
	seeds := fx.seeds()
	for _, m := range fx.methods {
		for _, p := range seeds[m] {
			f.Add(m, p)
		}
		for _, p := range seeds["*"] {
			f.Add(m, p)
		}
	}
	f.Fuzz(func(t *testing.T, method, params string) {
		if !json.Valid([]byte(params)) {
			return // the decoder's fuzzer covers bytes that are not JSON
		}
		fx.check(t, fx.pickMethod(method), params)
	})
}

// TestFuzzSeedsNameRealMethods keeps the seed table honest: every method it
// names is registered, and the methods the node serves are listed so a new
// one without seeds shows up in -v output.
func TestFuzzSeedsNameRealMethods(t *testing.T) {
	fx := newFixture(t)
	seeds := fx.seeds()
	for m := range seeds {
		if m == "*" {
			continue
		}
		if _, ok := slices.BinarySearch(fx.methods, m); !ok {
			t.Errorf("seeds for %s, which the node does not register", m)
		}
	}
	var generic []string
	for _, m := range fx.methods {
		if len(seeds[m]) == 0 {
			generic = append(generic, m)
		}
	}
	t.Logf("%d methods; fuzzed from generic shapes only: %s", len(fx.methods), strings.Join(generic, " "))
	if len(fx.methods) < 50 {
		t.Errorf("only %d methods registered; expected the eth, filter, account and chain namespaces", len(fx.methods))
	}
}

// TestHTTPErrorCodes checks that each kind of bad request gets the code
// clients key on, through the node's real HTTP handler.
func TestHTTPErrorCodes(t *testing.T) {
	fx := newFixture(t)
	srv := httptest.NewServer(fx.n.Handler())
	defer srv.Close()
	a0 := quote(fx.acct0.Hex())
	// A correctly signed transaction whose nonce the fixture already used.
	var stale struct {
		Raw types.HexBytes `json:"raw"`
	}
	r := fx.call(t, "eth_signTransaction", `[{"from":`+a0+`,"to":`+a0+`,"nonce":"0x0","gas":"0x5208","gasPrice":"0x3b9aca00"}]`)
	if r.Error != nil || json.Unmarshal(r.Result, &stale) != nil {
		t.Fatalf("eth_signTransaction: %s %v", r.Result, r.Error)
	}
	batch := func(n int) string {
		items := make([]string, n)
		for i := range items {
			items[i] = `{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}`
		}
		return "[" + strings.Join(items, ",") + "]"
	}
	for _, tc := range []struct {
		name        string
		contentType string
		body        string
		status      int // HTTP status
		code        int // JSON-RPC error code; 0: a result
	}{
		{"result", "application/json", `{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}`, 200, 0},
		{"truncated JSON", "application/json", `{"jsonrpc":"2.0","id":1,`, 200, rpc.CodeParseError},
		{"not JSON", "application/json", `hello`, 200, rpc.CodeParseError},
		{"not an object", "application/json", `42`, 200, rpc.CodeInvalidRequest},
		{"no method", "application/json", `{"jsonrpc":"2.0","id":1}`, 200, rpc.CodeInvalidRequest},
		{"method not a string", "application/json", `{"jsonrpc":"2.0","id":1,"method":7}`, 200, rpc.CodeInvalidRequest},
		{"wrong version", "application/json", `{"jsonrpc":"1.0","id":1,"method":"eth_chainId"}`, 200, rpc.CodeInvalidRequest},
		{"empty batch", "application/json", `[]`, 200, rpc.CodeInvalidRequest},
		{"batch over the limit", "application/json", batch(1001), 200, rpc.CodeInvalidRequest},
		{"unknown method", "application/json", `{"jsonrpc":"2.0","id":1,"method":"eth_noSuchThing"}`, 200, rpc.CodeMethodNotFound},
		{"address of wrong type", "application/json", `{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":[123,"latest"]}`, 200, rpc.CodeInvalidParams},
		{"address too short", "application/json", `{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["0x1234","latest"]}`, 200, rpc.CodeInvalidParams},
		{"bool of wrong type", "application/json", `{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["latest","yes"]}`, 200, rpc.CodeInvalidParams},
		{"block number not hex", "application/json", `{"jsonrpc":"2.0","id":1,"method":"eth_getBlockByNumber","params":["12",false]}`, 200, rpc.CodeInvalidParams},
		{"object params", "application/json", `{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":{"address":` + a0 + `}}`, 200, rpc.CodeInvalidParams},
		{"missing param", "application/json", `{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":[]}`, 200, rpc.CodeInvalidParams},
		{"too many params", "application/json", `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[1]}`, 200, rpc.CodeInvalidParams},
		{"revert", "application/json", `{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[{"data":"0x602a60005260206000fd"},"latest"]}`, 200, rpc.CodeReverted},
		{"undecodable raw transaction", "application/json", `{"jsonrpc":"2.0","id":1,"method":"eth_sendRawTransaction","params":["0xc0"]}`, 200, rpc.CodeInvalidParams},
		{"pool rejection", "application/json", `{"jsonrpc":"2.0","id":1,"method":"eth_sendRawTransaction","params":[` + quote("0x"+hex.EncodeToString(stale.Raw)) + `]}`, 200, rpc.CodeServer},
		{"body over the limit", "application/json", `{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":["` + strings.Repeat("a", 5<<20) + `"]}`, 413, 0},
		{"wrong content type", "text/plain", `{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}`, 415, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := srv.Client().Post(srv.URL, tc.contentType, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("HTTP status %d, want %d", resp.StatusCode, tc.status)
			}
			if tc.status != 200 {
				return
			}
			var r rpcResponse
			if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
				t.Fatalf("body is not one JSON-RPC response: %v", err)
			}
			if r.JSONRPC != "2.0" {
				t.Fatalf("jsonrpc = %q", r.JSONRPC)
			}
			switch {
			case tc.code == 0 && r.Error != nil:
				t.Fatalf("error %d %q, want a result", r.Error.Code, r.Error.Message)
			case tc.code == 0 && r.Result == nil:
				t.Fatal("no result")
			case tc.code != 0 && r.Error == nil:
				t.Fatalf("result %s, want error %d", r.Result, tc.code)
			case tc.code != 0 && r.Error.Code != tc.code:
				t.Fatalf("error %d %q, want code %d", r.Error.Code, r.Error.Message, tc.code)
			case tc.name == "pool rejection" && !strings.HasPrefix(r.Error.Message, "nonce too low"):
				t.Fatalf("message %q, want geth's \"nonce too low: …\"", r.Error.Message)
			}
		})
	}
	if p := fx.watch.take(); len(p) > 0 {
		t.Fatalf("handler panics: %v", p)
	}
}
