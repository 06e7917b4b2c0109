package cometrpc

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/query/querytest"
	"github.com/coder/websocket"
)

type wsMsg struct {
	ID     json.RawMessage `json:"id"`
	Result struct {
		Query string              `json:"query"`
		Data  json.RawMessage     `json:"data"`
		Event map[string][]string `json:"events"`
	} `json:"result"`
	Error *rpcError `json:"error"`
}

func dialWS(t *testing.T, url string) (*websocket.Conn, func() wsMsg, func(string)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http")+"/websocket", nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	read := func() wsMsg {
		t.Helper()
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var m wsMsg
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		return m
	}
	write := func(s string) {
		t.Helper()
		if err := c.Write(ctx, websocket.MessageText, []byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	return c, read, write
}

// A subscriber to NewBlock and to the Tx events of one sender receives a
// new block and its matching transactions as CometBFT sends them: a
// response with the subscribe request's id holding the query, the event
// data ({type, value}) and the events map.
func TestSubscribe(t *testing.T) {
	c := fixture()
	url, s := serveChain(t, c)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() { s.Run(stop); close(done) }()
	t.Cleanup(func() { close(stop); <-done })
	_, read, write := dialWS(t, url)

	write(`{"jsonrpc":"2.0","id":"blocks","method":"subscribe","params":{"query":"tm.event='NewBlock'"}}`)
	if m := read(); m.Error != nil || string(m.ID) != `"blocks"` {
		t.Fatalf("subscribe: %+v", m)
	}
	s2 := query.Bech32(query.AccountPrefix, sender(2))
	write(`{"jsonrpc":"2.0","id":7,"method":"subscribe","params":["tm.event='Tx' AND message.sender='` + s2 + `'"]}`)
	if m := read(); m.Error != nil || string(m.ID) != "7" {
		t.Fatalf("subscribe: %+v", m)
	}
	write(`{"jsonrpc":"2.0","id":8,"method":"status"}`)
	if m := read(); m.Error != nil || string(m.ID) != "8" {
		t.Fatalf("status over WebSocket: %+v", m)
	}
	// Wait until Run follows the heads, then make a block with one
	// transaction of sender 1 and one of sender 2.
	for !s.events.subscribed() {
		time.Sleep(time.Millisecond)
	}
	for {
		c.mu.Lock()
		n := len(c.subs)
		c.mu.Unlock()
		if n > 0 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	b := c.addBlock(-1, signedTx(1, 2, querytest.Addr(2), 1), signedTx(2, 1, querytest.Addr(1), 2))

	nb := read()
	if string(nb.ID) != `"blocks"` || nb.Result.Query != "tm.event='NewBlock'" || nb.Result.Event["tm.event"][0] != "NewBlock" {
		t.Fatalf("NewBlock event: %+v", nb)
	}
	if typ := field(t, nb.Result.Data, "type"); typ != "tendermint/event/NewBlock" {
		t.Errorf("NewBlock data type %v", typ)
	}
	if h := field(t, nb.Result.Data, "value.block.header.height"); h != "5" {
		t.Errorf("NewBlock height %v", h)
	}
	if n := len(field(t, nb.Result.Data, "value.result_finalize_block.tx_results").([]any)); n != 2 {
		t.Errorf("NewBlock carries %d tx results, want 2", n)
	}
	tx := read()
	if string(tx.ID) != "7" || field(t, tx.Result.Data, "type") != "tendermint/event/Tx" {
		t.Fatalf("Tx event: %+v", tx)
	}
	if idx := field(t, tx.Result.Data, "value.TxResult.index"); idx != 1.0 {
		t.Errorf("Tx event of index %v, want sender 2's (1)", idx)
	}
	raw, _ := query.CosmosTx(b.Transactions()[1], sender(2))
	h := query.CometHash(raw)
	if got := tx.Result.Event["tx.hash"]; len(got) != 1 || got[0] != strings.ToUpper(hex.EncodeToString(h[:])) {
		t.Errorf("tx.hash %v", got)
	}

	write(`{"jsonrpc":"2.0","id":9,"method":"unsubscribe","params":{"query":"tm.event='NewBlock'"}}`)
	if m := read(); m.Error != nil {
		t.Fatalf("unsubscribe: %+v", m)
	}
	write(`{"jsonrpc":"2.0","id":10,"method":"unsubscribe","params":{"query":"tm.event='NewBlock'"}}`)
	if m := read(); m.Error == nil || !strings.Contains(m.Error.Data, "not found") {
		t.Fatalf("second unsubscribe: %+v", m)
	}
	write(`{"jsonrpc":"2.0","id":11,"method":"unsubscribe_all"}`)
	if m := read(); m.Error != nil {
		t.Fatalf("unsubscribe_all: %+v", m)
	}
	if s.events.subscribed() {
		t.Error("a connection without subscriptions is still subscribed")
	}
}

// Subscriptions are refused beyond the per-connection limit, for events
// chaind does not publish, and for malformed queries.
func TestSubscribeRefused(t *testing.T) {
	url, _ := serveChain(t, fixture())
	_, read, write := dialWS(t, url)
	for _, q := range []string{"tm.event='Vote'", "tx.height=3", "tm.event='Tx' OR tx.height=3"} {
		b, _ := json.Marshal(q)
		write(`{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"query":` + string(b) + `}}`)
		if m := read(); m.Error == nil || m.Error.Code != codeInternal {
			t.Errorf("%s: %+v", q, m)
		}
	}
	for i := range wsMaxSubs + 1 {
		q := "tm.event='Tx' AND tx.height=" + string(rune('1'+i))
		write(`{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"query":"` + q + `"}}`)
		m := read()
		if i < wsMaxSubs && m.Error != nil {
			t.Fatalf("subscription %d: %+v", i, m.Error)
		}
		if i == wsMaxSubs && (m.Error == nil || !strings.Contains(m.Error.Data, "max_subscriptions_per_client")) {
			t.Fatalf("subscription over the limit: %+v", m)
		}
	}
}

// A client that does not read is cut once its queue holds wsQueueBytes,
// and the queue is dropped with it.
func TestSlowClientCut(t *testing.T) {
	_, s := serveChain(t, fixture())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wc := &wsConn{s: s, cancel: cancel, wake: make(chan struct{}, 1), subs: map[string]*wsSub{}}
	wc.closeConn = func(string) {}
	chunk := make([]byte, 1<<20)
	for range wsQueueBytes / len(chunk) {
		wc.sendRaw(chunk)
	}
	if wc.dead || wc.queued != wsQueueBytes {
		t.Fatalf("cut at %d bytes queued", wc.queued)
	}
	wc.sendRaw([]byte("x"))
	if !wc.dead || wc.queued != 0 || wc.queue != nil {
		t.Fatalf("not cut over the bound: dead %v, %d bytes queued", wc.dead, wc.queued)
	}
	if ctx.Err() == nil {
		t.Error("the cut connection's context is not cancelled")
	}
}
