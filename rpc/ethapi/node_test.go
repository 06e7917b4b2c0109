package ethapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/node"
	"github.com/chaind/chaind/internal/types"
	"github.com/coder/websocket"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/holiman/uint256"
)

// devNode starts a one-validator node sealing on demand, on a free port.
func devNode(t *testing.T) (*node.Node, *secp256k1.PrivateKey, string) {
	t.Helper()
	key, _ := crypto.GenerateKey()
	from := types.Address(crypto.PubkeyToAddress(key.PubKey()))
	g := chain.DevGenesis(8118, []types.Address{from}, uint64(time.Now().Unix()))
	n, addr := startNode(t, g, key, key)
	return n, key, addr
}

// startNode starts a node of genesis g sealing with validator, with
// account's key unlocked, serving HTTP on a free port.
func startNode(t *testing.T, g *chain.Genesis, validator, account *secp256k1.PrivateKey) (*node.Node, string) {
	t.Helper()
	n, err := node.New(node.Config{Genesis: g, HTTPPort: 0, WSPort: -1, Validator: validator, Accounts: []*secp256k1.PrivateKey{account}})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n, n.Addr("http")
}

type rpcResp struct {
	Result json.RawMessage
	Error  *struct {
		Code    int
		Message string
		Data    string
	}
}

func call(t *testing.T, addr, method string, params ...any) rpcResp {
	t.Helper()
	if params == nil {
		params = []any{}
	}
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	resp, err := http.Post("http://"+addr, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var r rpcResp
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil {
		t.Fatal(err)
	}
	return r
}

func sendTx(t *testing.T, addr string, key *secp256k1.PrivateKey, nonce uint64, to *types.Address, data []byte, gas uint64) types.Hash {
	t.Helper()
	tx := types.MustSignNewTx(key, types.LatestSigner(8118), &types.DynamicFeeTx{ChainID: *uint256.NewInt(8118), Nonce: nonce,
		GasTipCap: *uint256.NewInt(1e9), GasFeeCap: *uint256.NewInt(1e11), Gas: gas, To: to, Data: data})
	raw, _ := tx.MarshalBinary()
	r := call(t, addr, "eth_sendRawTransaction", types.EncodeBytes(raw))
	if r.Error != nil {
		t.Fatalf("send: %s", r.Error.Message)
	}
	return tx.Hash()
}

func waitReceipt(t *testing.T, addr string, h types.Hash) map[string]any {
	t.Helper()
	for i := 0; i < 200; i++ {
		r := call(t, addr, "eth_getTransactionReceipt", h)
		if string(r.Result) != "null" {
			var m map[string]any
			json.Unmarshal(r.Result, &m)
			return m
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no receipt for %s", h)
	return nil
}

// The test contract: called with data it emits LOG1(topic 0x..aa, data =
// calldata); called without, it reverts with Error("boom").
func mustHex(s string) []byte {
	b, err := types.ParseBytes("0x" + s)
	if err != nil {
		panic(err)
	}
	return b
}

// buildContract assembles the test contract by hand and wraps it in init code.
func buildContract() []byte {
	var rt []byte
	rt = append(rt, 0x36, 0x15, 0x60, 0x00, 0x57)       // CALLDATASIZE ISZERO PUSH1 <revert> JUMPI (patched)
	rt = append(rt, 0x36, 0x60, 0x00, 0x60, 0x00, 0x37) // CALLDATACOPY(0, 0, size)
	rt = append(rt, 0x60, 0xaa, 0x36, 0x60, 0x00, 0xa1) // LOG1(0, size, 0xaa)
	rt = append(rt, 0x00)                               // STOP
	revertAt := len(rt)
	rt[3] = byte(revertAt)
	rt = append(rt, 0x5b) // JUMPDEST
	// Error(string) "boom": selector, offset 0x20, length 4, "boom".
	payload := append(mustHex("08c379a0"), make([]byte, 96)...)
	payload[4+31] = 0x20
	payload[4+63] = 4
	copy(payload[4+64:], "boom")
	for i, b := range payload {
		rt = append(rt, 0x60, b, 0x60, byte(i), 0x53) // MSTORE8(i, b)
	}
	rt = append(rt, 0x60, byte(len(payload)), 0x60, 0x00, 0xfd) // REVERT(0, len)
	// init code: CODECOPY(0, 14, len(rt)); RETURN(0, len(rt)) — 14 bytes.
	hi, lo := byte(len(rt)>>8), byte(len(rt))
	init := []byte{0x61, hi, lo, 0x60, 14, 0x60, 0x00, 0x39, 0x61, hi, lo, 0x60, 0x00, 0xf3}
	return append(init, rt...)
}

func TestNodeEndToEnd(t *testing.T) {
	n, key, addr := devNode(t)
	from := types.Address(crypto.PubkeyToAddress(key.PubKey()))

	blockFilter := call(t, addr, "eth_newBlockFilter").Result
	pendingFilter := call(t, addr, "eth_newPendingTransactionFilter").Result

	deploy := sendTx(t, addr, key, 0, nil, buildContract(), 300000)
	rc := waitReceipt(t, addr, deploy)
	if rc["status"] != "0x1" || rc["contractAddress"] == nil {
		t.Fatalf("deploy receipt %v", rc)
	}
	contract, _ := types.HexToAddress(rc["contractAddress"].(string))

	var fid string
	json.Unmarshal(call(t, addr, "eth_newFilter", map[string]any{"address": contract}).Result, &fid)

	// WebSocket subscriptions on the same port.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws://"+addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	ws.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}`))
	ws.Write(ctx, websocket.MessageText, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":2,"method":"eth_subscribe","params":["logs",{"address":"%s"}]}`, contract.Hex())))
	for i := 0; i < 2; i++ { // the two subscription ids
		if _, _, err := ws.Read(ctx); err != nil {
			t.Fatal(err)
		}
	}

	callTx := sendTx(t, addr, key, 1, &contract, []byte("hello"), 100000)
	rc = waitReceipt(t, addr, callTx)
	logs := rc["logs"].([]any)
	if rc["status"] != "0x1" || len(logs) != 1 {
		t.Fatalf("call receipt %v", rc)
	}
	var gotHead, gotLog bool
	for !(gotHead && gotLog) {
		_, msg, err := ws.Read(ctx)
		if err != nil {
			t.Fatalf("subscriptions: %v (head %v, log %v)", err, gotHead, gotLog)
		}
		s := string(msg)
		gotHead = gotHead || strings.Contains(s, `"stateRoot"`)
		gotLog = gotLog || strings.Contains(s, `"data":"0x68656c6c6f"`)
	}

	// eth_getLogs by address and topic, and the polling filter.
	r := call(t, addr, "eth_getLogs", map[string]any{"fromBlock": "0x0", "toBlock": "latest", "address": contract,
		"topics": []any{"0x00000000000000000000000000000000000000000000000000000000000000aa"}})
	if !strings.Contains(string(r.Result), "0x68656c6c6f") {
		t.Fatalf("getLogs: %s", r.Result)
	}
	if r := call(t, addr, "eth_getFilterChanges", fid); !strings.Contains(string(r.Result), "0x68656c6c6f") {
		t.Fatalf("filter changes: %s", r.Result)
	}
	if r := call(t, addr, "eth_getFilterChanges", fid); string(r.Result) != "[]" {
		t.Fatalf("second poll repeats: %s", r.Result)
	}
	var blocks, pend []string
	json.Unmarshal(call(t, addr, "eth_getFilterChanges", json.RawMessage(blockFilter)).Result, &blocks)
	json.Unmarshal(call(t, addr, "eth_getFilterChanges", json.RawMessage(pendingFilter)).Result, &pend)
	if len(blocks) < 2 || len(pend) != 2 {
		t.Fatalf("block filter %d hashes, pending filter %d", len(blocks), len(pend))
	}

	// A revert is code 3 with the decoded reason and the revert data.
	r = call(t, addr, "eth_call", map[string]any{"from": from, "to": contract}, "latest")
	if r.Error == nil || r.Error.Code != 3 || r.Error.Message != "execution reverted: boom" || !strings.HasPrefix(r.Error.Data, "0x08c379a0") {
		t.Fatalf("revert: %+v", r.Error)
	}
	r = call(t, addr, "eth_estimateGas", map[string]any{"from": from, "to": contract})
	if r.Error == nil || r.Error.Code != 3 {
		t.Fatalf("estimate of a revert: %+v", r.Error)
	}
	// Pool rejections carry geth's wording.
	tx := types.MustSignNewTx(key, types.LatestSigner(8118), &types.DynamicFeeTx{ChainID: *uint256.NewInt(8118), Nonce: 0,
		GasFeeCap: *uint256.NewInt(1e11), Gas: 21000, To: &contract})
	raw, _ := tx.MarshalBinary()
	r = call(t, addr, "eth_sendRawTransaction", types.EncodeBytes(raw))
	if r.Error == nil || r.Error.Code != -32000 || !strings.HasPrefix(r.Error.Message, "nonce too low") {
		t.Fatalf("stale nonce: %+v", r.Error)
	}
	// Node-held account signs and sends.
	r = call(t, addr, "eth_sendTransaction", map[string]any{"from": from, "to": contract, "data": "0x01"})
	if r.Error != nil {
		t.Fatalf("eth_sendTransaction: %s", r.Error.Message)
	}
	var h types.Hash
	json.Unmarshal(r.Result, &h)
	if rc := waitReceipt(t, addr, h); rc["status"] != "0x1" {
		t.Fatalf("node-signed tx failed: %v", rc)
	}
	if got := n.Chain.Head().Number(); got < 3 {
		t.Fatalf("head %d", got)
	}
}
