package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

func testServer() *Server {
	s := NewServer(slog.New(slog.NewTextHandler(io.Discard, nil)))
	s.Register("echo", 0, -1, func(ctx context.Context, p Params) (any, error) {
		return p, nil
	})
	s.Register("add", 2, 2, func(ctx context.Context, p Params) (any, error) {
		var a, b int
		if err := p.Decode(0, &a); err != nil {
			return nil, err
		}
		if err := p.Decode(1, &b); err != nil {
			return nil, err
		}
		return a + b, nil
	})
	s.Register("boom", 0, 0, func(context.Context, Params) (any, error) { panic("boom") })
	s.Register("fail", 0, 0, func(context.Context, Params) (any, error) { return nil, errors.New("nonce too low") })
	s.Register("big", 0, 0, func(context.Context, Params) (any, error) { return strings.Repeat("x", 4000), nil })
	return s
}

func TestHandleMessage(t *testing.T) {
	s := testServer()
	for _, tc := range []struct{ name, in, want string }{
		{"call", `{"jsonrpc":"2.0","id":1,"method":"add","params":[2,3]}`, `{"jsonrpc":"2.0","id":1,"result":5}`},
		{"string id", `{"jsonrpc":"2.0","id":"a","method":"add","params":[2,3]}`, `{"jsonrpc":"2.0","id":"a","result":5}`},
		{"parse error", `{"jsonrpc":"2.0",`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`},
		{"empty batch", `[]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"empty batch"}}`},
		{"bad version", `{"jsonrpc":"1.0","id":1,"method":"add"}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"invalid request"}}`},
		{"not an object", `1`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}`},
		{"object id", `{"jsonrpc":"2.0","id":{},"method":"add"}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}`},
		{"unknown", `{"jsonrpc":"2.0","id":1,"method":"nope"}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"the method nope does not exist/is not available"}}`},
		{"missing param", `{"jsonrpc":"2.0","id":1,"method":"add","params":[1]}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"missing value for required argument 1"}}`},
		{"too many", `{"jsonrpc":"2.0","id":1,"method":"add","params":[1,2,3]}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"too many arguments, want at most 2"}}`},
		{"wrong type", `{"jsonrpc":"2.0","id":1,"method":"add","params":[1,"x"]}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid argument 1: json: cannot unmarshal string into Go value of type int"}}`},
		{"object params", `{"jsonrpc":"2.0","id":1,"method":"add","params":{"a":1}}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"non-array args"}}`},
		{"panic", `{"jsonrpc":"2.0","id":1,"method":"boom"}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"internal error"}}`},
		{"plain error", `{"jsonrpc":"2.0","id":1,"method":"fail"}`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"nonce too low"}}`},
		{"notification", `{"jsonrpc":"2.0","method":"add","params":[1,2]}`, ``},
		{"batch", `[{"jsonrpc":"2.0","id":1,"method":"add","params":[1,2]},{"jsonrpc":"2.0","method":"add","params":[1,2]},{"jsonrpc":"2.0","id":2,"method":"nope"}]`,
			`[{"jsonrpc":"2.0","id":1,"result":3},{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"the method nope does not exist/is not available"}}]`},
		{"batch of junk", `[1]`, `[{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request"}}]`},
		{"trailing nulls", `{"jsonrpc":"2.0","id":1,"method":"add","params":[1,2,null]}`, `{"jsonrpc":"2.0","id":1,"result":3}`},
	} {
		got := string(s.HandleMessage(context.Background(), []byte(tc.in)))
		if got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

func TestBatchLimit(t *testing.T) {
	s := testServer()
	s.BatchLimit = 3
	in := `[` + strings.Repeat(`{"jsonrpc":"2.0","id":1,"method":"add","params":[1,2]},`, 3) + `{"jsonrpc":"2.0","id":1,"method":"add","params":[1,2]}]`
	got := string(s.HandleMessage(context.Background(), []byte(in)))
	if !strings.Contains(got, `-32600`) || !strings.Contains(got, "batch too large") {
		t.Fatal(got)
	}
}

// An answer over ResponseLimit is replaced by a -32005 error naming the
// limit, alone or in a batch, where the answers past the limit are.
func TestResponseLimit(t *testing.T) {
	s := testServer()
	s.ResponseLimit = 100
	s.Register("sized", 1, 1, func(_ context.Context, p Params) (any, error) {
		var n int
		if err := p.Decode(0, &n); err != nil {
			return nil, err
		}
		return strings.Repeat("x", n), nil
	})
	const tooLarge = `"error":{"code":-32005,"message":"response too large: over the 100-byte response limit"}`
	for _, tc := range []struct {
		in, want string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"sized","params":[10]}`, `{"jsonrpc":"2.0","id":1,"result":"xxxxxxxxxx"}`},
		{`{"jsonrpc":"2.0","id":1,"method":"sized","params":[200]}`, `{"jsonrpc":"2.0","id":1,` + tooLarge + `}`},
		{`[{"jsonrpc":"2.0","id":1,"method":"sized","params":[40]},{"jsonrpc":"2.0","id":2,"method":"sized","params":[40]}]`,
			`[{"jsonrpc":"2.0","id":1,"result":"` + strings.Repeat("x", 40) + `"},{"jsonrpc":"2.0","id":2,` + tooLarge + `}]`},
	} {
		if got := string(s.HandleMessage(context.Background(), []byte(tc.in))); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

func post(t *testing.T, url, body string, hdr map[string]string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func subscribeServer() *Server {
	s := testServer()
	s.RegisterUnsubscribe("eth_unsubscribe")
	s.Register("eth_subscribe", 1, 2, func(ctx context.Context, p Params) (any, error) {
		n, ok := NotifierFrom(ctx)
		if !ok {
			return nil, ErrNotificationsUnsupported
		}
		var count int
		p.Decode(1, &count)
		sub, err := n.Subscribe()
		if err != nil {
			return nil, err
		}
		go func() {
			for i := 0; i < count; i++ {
				if sub.Notify(i) != nil {
					return
				}
			}
		}()
		return sub.ID, nil
	})
	return s
}

func TestWebSocketSubscriptions(t *testing.T) {
	s := subscribeServer()
	srv := httptest.NewServer(s.HTTPHandler(HTTPConfig{WebSocket: true}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+srv.URL[4:], nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	c.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["x",3]}`))
	var subID string
	got := 0
	for got < 3 || subID == "" {
		_, msg, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			ID     json.RawMessage
			Result string
			Method string
			Params struct {
				Subscription string
				Result       int
			}
		}
		json.Unmarshal(msg, &m)
		if m.Method == "eth_subscription" {
			if m.Params.Result != got {
				t.Fatalf("notification %d out of order: %s", got, msg)
			}
			got++
		} else {
			subID = m.Result
		}
	}
	c.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":2,"method":"eth_unsubscribe","params":["`+subID+`"]}`))
	_, msg, _ := c.Read(ctx)
	if string(msg) != `{"jsonrpc":"2.0","id":2,"result":true}` {
		t.Fatalf("unsubscribe: %s", msg)
	}
	// Over HTTP the same method says WebSocket is needed.
	resp := post(t, srv.URL, `{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["x"]}`, nil)
	body, _ := io.ReadAll(resp.Body)
	if !strings.Contains(string(body), `"code":-32601`) || !strings.Contains(string(body), "WebSocket") {
		t.Fatalf("subscribe over HTTP: %s", body)
	}
}

func TestSlowClientDisconnected(t *testing.T) {
	s := subscribeServer()
	srv := httptest.NewServer(s.HTTPHandler(HTTPConfig{WebSocket: true, WS: WSConfig{QueueLimit: 8}}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+srv.URL[4:], nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	c.SetReadLimit(1 << 20)
	// Ask for far more notifications than the queue holds and read nothing
	// for a while: the server must drop us instead of buffering them all.
	c.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["x",10000000]}`))
	time.Sleep(300 * time.Millisecond)
	for {
		_, _, err := c.Read(ctx)
		if err != nil {
			if websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
				t.Fatalf("closed with %v, want policy violation", err)
			}
			return
		}
	}
}

func FuzzHandleMessage(f *testing.F) {
	for _, seed := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"add","params":[2,3]}`,
		`[{"jsonrpc":"2.0","id":1,"method":"echo","params":[{}]}]`,
		`[]`, `{`, `null`, `[null]`, `{"jsonrpc":"2.0","id":[1],"method":"add"}`,
	} {
		f.Add([]byte(seed))
	}
	s := testServer()
	f.Fuzz(func(t *testing.T, in []byte) {
		out := s.HandleMessage(context.Background(), in)
		if out != nil && !json.Valid(out) {
			t.Fatalf("invalid JSON response %q for %q", out, in)
		}
	})
}

func TestObserve(t *testing.T) {
	s := NewServer(nil)
	s.Register("a_ok", 0, 1, func(ctx context.Context, p Params) (any, error) { return "yes", nil })
	s.Register("a_fail", 0, 0, func(ctx context.Context, p Params) (any, error) { return nil, errors.New("no") })
	var calls []Call
	s.Observe(func(_ context.Context, c Call) { calls = append(calls, c) })
	unknown := 0
	s.ObserveUnknown(func(context.Context) { unknown++ })
	s.HandleMessage(context.Background(), []byte(`[{"jsonrpc":"2.0","id":1,"method":"a_ok","params":[7]},{"jsonrpc":"2.0","id":2,"method":"a_fail"},{"jsonrpc":"2.0","id":3,"method":"made_up"}]`))
	if len(calls) != 2 {
		t.Fatalf("observed %d calls, want the 2 of registered methods", len(calls))
	}
	if calls[0].Method != "a_ok" || calls[0].Err != nil || calls[0].Result != "yes" || string(calls[0].Params) != "[7]" {
		t.Fatalf("first call %+v", calls[0])
	}
	if calls[1].Method != "a_fail" || calls[1].Err == nil {
		t.Fatalf("second call %+v", calls[1])
	}
	if unknown != 1 {
		t.Fatalf("%d calls of unknown methods observed, want 1", unknown)
	}
}

// A connection holds at most MaxSubs subscriptions; ending one frees a
// slot. The refusal is a -32005 error and the connection stays open.
func TestWebSocketSubscriptionCap(t *testing.T) {
	s := subscribeServer()
	srv := httptest.NewServer(s.HTTPHandler(HTTPConfig{WebSocket: true, WS: WSConfig{MaxSubs: 2}}))
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+srv.URL[4:], nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	call := func(msg string) string {
		c.Write(ctx, websocket.MessageText, []byte(msg))
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	var ids []string
	for i := 0; i < 2; i++ {
		var r struct{ Result string }
		json.Unmarshal([]byte(call(`{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["x",0]}`)), &r)
		ids = append(ids, r.Result)
	}
	if got := call(`{"jsonrpc":"2.0","id":7,"method":"eth_subscribe","params":["x",0]}`); !strings.Contains(got, `"id":7`) || !strings.Contains(got, "-32005") || !strings.Contains(got, "too many subscriptions") {
		t.Fatalf("third subscription: %s", got)
	}
	if got := call(`{"jsonrpc":"2.0","id":8,"method":"eth_unsubscribe","params":["` + ids[0] + `"]}`); !strings.Contains(got, "true") {
		t.Fatalf("unsubscribe: %s", got)
	}
	if got := call(`{"jsonrpc":"2.0","id":9,"method":"eth_subscribe","params":["x",0]}`); !strings.Contains(got, `"result":"0x`) {
		t.Fatalf("subscription after one ended: %s", got)
	}
}
