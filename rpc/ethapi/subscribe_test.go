package ethapi_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
	"github.com/coder/websocket"
)

// eth_subscribe takes [name], [name, flag], [name, filter] and the
// specification's [name, flag, filter]; a flag on newHeads delivers the
// block with its transactions, full or as hashes. Bad shapes are invalid
// params naming the argument.
func TestSubscribeShapes(t *testing.T) {
	_, key, addr := devNode(t)
	deploy := sendTx(t, addr, key, 0, nil, buildContract(), 300000)
	rc := waitReceipt(t, addr, deploy)
	contract, _ := types.HexToAddress(rc["contractAddress"].(string))

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws://"+addr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	ws.SetReadLimit(16 << 20)
	type message struct {
		ID     *int            `json:"id"`
		Result json.RawMessage `json:"result"`
		Error  *rpc.Error      `json:"error"`
		Params struct {
			Subscription string          `json:"subscription"`
			Result       json.RawMessage `json:"result"`
		} `json:"params"`
	}
	read := func() message {
		t.Helper()
		_, raw, err := ws.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var m message
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	subscribe := func(params string) message {
		t.Helper()
		ws.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":`+params+`}`))
		for {
			if m := read(); m.ID != nil {
				return m
			}
		}
	}
	for _, tc := range []struct {
		params string
		arg    int
	}{
		{`["newHeads","yes"]`, 1},
		{`["newHeads",true,{}]`, 2},
		{`["logs",{},{}]`, 2},
		{`["logs",true,{"address":"0x12"}]`, 2},
		{`["newPendingTransactions",true,{}]`, 2},
	} {
		m := subscribe(tc.params)
		if m.Error == nil || m.Error.Code != rpc.CodeInvalidParams || m.Error.Message[:len(fmt.Sprintf("invalid argument %d", tc.arg))] != fmt.Sprintf("invalid argument %d", tc.arg) {
			t.Errorf("eth_subscribe %s: %s %+v, want invalid argument %d", tc.params, m.Result, m.Error, tc.arg)
		}
	}
	ids := map[string]string{}
	for name, params := range map[string]string{
		"heads":      `["newHeads"]`,
		"heads full": `["newHeads",true]`,
		"heads hash": `["newHeads",false]`,
		"logs 2":     fmt.Sprintf(`["logs",{"address":"%s"}]`, contract.Hex()),
		"logs 3":     fmt.Sprintf(`["logs",false,{"address":"%s"}]`, contract.Hex()),
		// Two pending subscriptions share one feed: each gets every
		// executable transaction.
		"pending hash": `["newPendingTransactions"]`,
		"pending full": `["newPendingTransactions",true]`,
	} {
		m := subscribe(params)
		var id string
		if m.Error != nil || json.Unmarshal(m.Result, &id) != nil {
			t.Fatalf("eth_subscribe %s: %s %+v", params, m.Result, m.Error)
		}
		ids[id] = name
	}
	callTx := sendTx(t, addr, key, 1, &contract, []byte("hello"), 100000)
	seen := map[string]bool{}
	for len(seen) < len(ids) {
		m := read()
		name, ok := ids[m.Params.Subscription]
		if !ok || seen[name] {
			continue
		}
		if name == "pending hash" {
			var h types.Hash
			if json.Unmarshal(m.Params.Result, &h) != nil || h != callTx {
				t.Errorf("newPendingTransactions: %s, want the hash %s", m.Params.Result, callTx)
			}
			seen[name] = true
			continue
		}
		var obj map[string]json.RawMessage
		if err := json.Unmarshal(m.Params.Result, &obj); err != nil {
			t.Fatalf("%s: %s", name, m.Params.Result)
		}
		switch name {
		case "heads":
			if _, ok := obj["transactions"]; ok {
				t.Errorf("newHeads without a flag carries transactions: %s", m.Params.Result)
			}
			seen[name] = true
		case "heads full", "heads hash":
			var txs []json.RawMessage
			if err := json.Unmarshal(obj["transactions"], &txs); err != nil {
				t.Fatalf("%s: no transactions in %s", name, m.Params.Result)
			}
			if len(txs) == 0 {
				continue // a block without our transaction
			}
			var full struct{ Hash types.Hash }
			var hash types.Hash
			if name == "heads full" {
				if json.Unmarshal(txs[0], &full) != nil || full.Hash != callTx {
					t.Errorf("newHeads true: transaction %s, want the full object of %s", txs[0], callTx)
				}
			} else if json.Unmarshal(txs[0], &hash) != nil || hash != callTx {
				t.Errorf("newHeads false: transaction %s, want the hash %s", txs[0], callTx)
			}
			seen[name] = true
		case "pending full":
			if string(obj["hash"]) != `"`+callTx.Hex()+`"` || string(obj["from"]) == "" {
				t.Errorf("newPendingTransactions true: %s, want the full object of %s", m.Params.Result, callTx)
			}
			seen[name] = true
		case "logs 2", "logs 3":
			if string(obj["transactionHash"]) != `"`+callTx.Hex()+`"` {
				t.Errorf("%s: log of %s, want %s", name, obj["transactionHash"], callTx)
			}
			seen[name] = true
		}
	}
}
