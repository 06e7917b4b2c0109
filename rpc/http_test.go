package rpc

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/front"
	"github.com/coder/websocket"
)

// frontServer serves s behind a front with the given limits and a clock
// that stands still, as a node serves a JSON-RPC listener.
func frontServer(t *testing.T, s *Server, limits front.Limits, cfg HTTPConfig, opts front.Options) *httptest.Server {
	t.Helper()
	now := time.Unix(1000, 0)
	f := front.New(front.Config{Limits: limits, Now: func() time.Time { return now }})
	l := s.Listener("http", "", cfg, opts)
	srv := httptest.NewServer(f.Handler(l.Options, l.Handler))
	t.Cleanup(srv.Close)
	return srv
}

func TestHTTP(t *testing.T) {
	s := testServer()
	srv := frontServer(t, s, front.Limits{}, HTTPConfig{}, front.Options{BodyLimit: 1000, CORSOrigins: []string{"https://app.example"}})

	resp := post(t, srv.URL, `{"jsonrpc":"2.0","id":7,"method":"add","params":[1,1]}`, map[string]string{"Origin": "https://app.example"})
	body, _ := io.ReadAll(resp.Body)
	if string(body) != `{"jsonrpc":"2.0","id":7,"result":2}` || resp.Header.Get("Access-Control-Allow-Origin") != "https://app.example" {
		t.Fatalf("%s %v", body, resp.Header)
	}
	// Over the cap, declared or streamed: 413 with a JSON-RPC error body.
	big := `{"jsonrpc":"2.0","id":7,"method":"echo","params":["` + strings.Repeat("a", 2000) + `"]}`
	for _, chunked := range []bool{false, true} {
		req, _ := http.NewRequest("POST", srv.URL, strings.NewReader(big))
		if chunked {
			req.Body = io.NopCloser(strings.NewReader(big)) // hides the length
			req.ContentLength = -1
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), `"code":-32005`) ||
			!strings.Contains(string(body), "1000 bytes max") || resp.Header.Get("Content-Type") != "application/json" {
			t.Fatalf("oversized body (chunked %v): %d %s", chunked, resp.StatusCode, body)
		}
	}
	resp = post(t, srv.URL, `{"jsonrpc":"2.0","id":7,"method":"big"}`, map[string]string{"Accept-Encoding": "gzip"})
	if resp.Header.Get("Content-Encoding") != "gzip" {
		t.Fatal("no gzip")
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(zr)
	if !bytes.HasPrefix(b, []byte(`{"jsonrpc":"2.0","id":7,"result":"xxx`)) {
		t.Fatalf("gzip body %q", b[:40])
	}
	resp = post(t, srv.URL, `{}`, map[string]string{"Content-Type": "text/plain"})
	if resp.StatusCode != http.StatusUnsupportedMediaType {
		t.Fatalf("content type: %d", resp.StatusCode)
	}
}

func call(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"add","params":[1,1]}`, id)
}

func batch(ids ...int) string {
	var parts []string
	for _, id := range ids {
		parts = append(parts, call(id))
	}
	return "[" + strings.Join(parts, ",") + "]"
}

// Every call counts against the rate limits, whether it comes alone, in a
// batch or over WebSocket; a refused batch is refused whole, with an error
// per request carrying its id, and takes no tokens.
func TestRateLimitPerCall(t *testing.T) {
	limits := front.Limits{PerSecond: 10, PerMinute: 600}
	t.Run("one by one", func(t *testing.T) {
		srv := frontServer(t, testServer(), limits, HTTPConfig{}, front.Options{})
		for i := 1; i <= 11; i++ {
			resp := post(t, srv.URL, call(i), nil)
			body, _ := io.ReadAll(resp.Body)
			if i <= 10 {
				if resp.StatusCode != 200 {
					t.Fatalf("call %d: %d %s", i, resp.StatusCode, body)
				}
				continue
			}
			if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "1" ||
				string(body) != `{"jsonrpc":"2.0","id":11,"error":{"code":-32005,"message":"rate limit exceeded"}}` {
				t.Fatalf("11th call: %d Retry-After %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
			}
		}
	})
	t.Run("batch of 11", func(t *testing.T) {
		srv := frontServer(t, testServer(), limits, HTTPConfig{}, front.Options{})
		resp := post(t, srv.URL, batch(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11), nil)
		body, _ := io.ReadAll(resp.Body)
		var errs []response
		if err := json.Unmarshal(body, &errs); err != nil || resp.StatusCode != 429 || len(errs) != 11 {
			t.Fatalf("batch of 11: %d %s", resp.StatusCode, body)
		}
		for i, e := range errs {
			if string(e.ID) != strconv.Itoa(i+1) || e.Error == nil || e.Error.Code != CodeLimitExceeded {
				t.Fatalf("entry %d: %s", i, body)
			}
		}
		// It can never fit, so no Retry-After; and it took no tokens.
		if resp.Header.Get("Retry-After") != "" {
			t.Fatalf("Retry-After %q on a batch over the bucket", resp.Header.Get("Retry-After"))
		}
		if resp := post(t, srv.URL, batch(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), nil); resp.StatusCode != 200 {
			t.Fatalf("batch of 10 after a refused batch: %d", resp.StatusCode)
		}
		if resp := post(t, srv.URL, call(11), nil); resp.StatusCode != 429 {
			t.Fatalf("11th call after a batch of 10: %d", resp.StatusCode)
		}
	})
	t.Run("notification", func(t *testing.T) {
		srv := frontServer(t, testServer(), limits, HTTPConfig{}, front.Options{})
		post(t, srv.URL, batch(1, 2, 3, 4, 5, 6, 7, 8, 9, 10), nil)
		resp := post(t, srv.URL, `{"jsonrpc":"2.0","method":"add","params":[1,1]}`, nil)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 429 || !strings.Contains(string(body), `"id":null`) {
			t.Fatalf("refused notification: %d %s", resp.StatusCode, body)
		}
	})
	for _, tc := range []struct {
		name string
		msgs []string
		want string // the last answer
	}{
		{"websocket messages", []string{call(1), call(2), call(3), call(4), call(5), call(6), call(7), call(8), call(9), call(10), call(11)},
			`{"jsonrpc":"2.0","id":11,"error":{"code":-32005,"message":"rate limit exceeded"}}`},
		{"websocket batch", []string{batch(1, 2, 3, 4, 5, 6), batch(7, 8, 9, 10, 11)},
			`[{"jsonrpc":"2.0","id":7,"error":{"code":-32005,"message":"rate limit exceeded"}},{"jsonrpc":"2.0","id":8,"error":{"code":-32005,"message":"rate limit exceeded"}},{"jsonrpc":"2.0","id":9,"error":{"code":-32005,"message":"rate limit exceeded"}},{"jsonrpc":"2.0","id":10,"error":{"code":-32005,"message":"rate limit exceeded"}},{"jsonrpc":"2.0","id":11,"error":{"code":-32005,"message":"rate limit exceeded"}}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := frontServer(t, testServer(), limits, HTTPConfig{WebSocket: true}, front.Options{})
			c := dialWS(t, srv.URL)
			var last []byte
			for i, m := range tc.msgs {
				last = wsCall(t, c, m)
				if i < len(tc.msgs)-1 && bytes.Contains(last, []byte("-32005")) {
					t.Fatalf("message %d refused: %s", i, last)
				}
			}
			if string(last) != tc.want {
				t.Fatalf("last answer %s\nwant %s", last, tc.want)
			}
			// The connection stays open: the next message is answered.
			if got := wsCall(t, c, call(12)); !bytes.Contains(got, []byte(`"id":12`)) {
				t.Fatalf("after refusal: %s", got)
			}
		})
	}
}

func dialWS(t *testing.T, url string) *websocket.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(url, "http"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseNow() })
	return c
}

func wsCall(t *testing.T, c *websocket.Conn, msg string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.Write(ctx, websocket.MessageText, []byte(msg)); err != nil {
		t.Fatal(err)
	}
	_, b, err := c.Read(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A listener serves only its namespaces; a method outside them answers
// exactly as a method that does not exist, over HTTP and WebSocket alike.
// A method registered nowhere says why when the node gave a reason
// (Unserved), which adds no namespace.
func TestAPIView(t *testing.T) {
	s := testServer()
	s.Register("eth_x", 0, 0, func(context.Context, Params) (any, error) { return 1, nil })
	s.Register("debug_x", 0, 0, func(context.Context, Params) (any, error) { return 2, nil })
	s.Unserved("debug_x", "a reason for a method that is registered")
	s.Unserved("gone_x", "served elsewhere")
	srv := frontServer(t, s, front.Limits{}, HTTPConfig{APIs: []string{"eth"}, WebSocket: true}, front.Options{})
	c := dialWS(t, srv.URL)
	for _, tc := range []struct{ method, want string }{
		{"eth_x", `{"jsonrpc":"2.0","id":1,"result":1}`},
		{"debug_x", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"the method debug_x does not exist/is not available"}}`},
		{"add", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"the method add does not exist/is not available"}}`},
		{"gone_x", `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"the method gone_x does not exist/is not available: served elsewhere"}}`},
	} {
		msg := `{"jsonrpc":"2.0","id":1,"method":"` + tc.method + `"}`
		resp := post(t, srv.URL, msg, nil)
		body, _ := io.ReadAll(resp.Body)
		if string(body) != tc.want {
			t.Errorf("POST %s: %s, want %s", tc.method, body, tc.want)
		}
		if got := wsCall(t, c, msg); string(got) != tc.want {
			t.Errorf("WebSocket %s: %s, want %s", tc.method, got, tc.want)
		}
	}
	if got, want := strings.Join(s.Namespaces(), ","), "add,big,boom,debug,echo,eth,fail"; got != want {
		t.Errorf("namespaces %s, want %s", got, want)
	}
}

// The front's refusals are JSON-RPC-shaped on a JSON-RPC listener.
func TestRefuse(t *testing.T) {
	for _, tc := range []struct {
		ref  front.Refusal
		want string
	}{
		{front.TooLarge(10), `{"jsonrpc":"2.0","id":null,"error":{"code":-32005,"message":"content length too large (10 bytes max)"}}`},
		{front.Limited(time.Second), `{"jsonrpc":"2.0","id":null,"error":{"code":-32005,"message":"rate limit exceeded"}}`},
		{front.Refusal{Reason: front.HostNotAllowed, Status: 403, Message: "invalid host specified"}, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid host specified"}}`},
		{front.Refusal{Reason: front.Unauthorized, Status: 401, Message: "no token"}, `{"jsonrpc":"2.0","id":null,"error":{"code":-32000,"message":"no token"}}`},
	} {
		w := httptest.NewRecorder()
		Refuse(w, nil, tc.ref)
		if w.Code != tc.ref.Status || w.Body.String() != tc.want || w.Header().Get("Content-Type") != "application/json" {
			t.Errorf("%v: %d %s", tc.ref.Reason, w.Code, w.Body)
		}
	}
}

// FuzzLimitedMessage feeds arbitrary bodies to a client out of tokens: the
// refusal path reads the ids of requests it never runs, and must answer
// valid JSON without running any call.
func FuzzLimitedMessage(f *testing.F) {
	for _, seed := range []string{
		call(1), batch(1, 2, 3), `[{"jsonrpc":"2.0","method":"boom"},{"id":"x","method":"boom"}]`,
		`{"jsonrpc":"2.0","id":{},"method":"boom"}`, `[1,"a",null]`, `{`, `[`, ``, `"id"`,
	} {
		f.Add([]byte(seed))
	}
	ran := false
	s := testServer()
	s.Register("boom", 0, -1, func(context.Context, Params) (any, error) { ran = true; return nil, nil })
	now := time.Unix(1000, 0)
	fr := front.New(front.Config{Limits: front.Limits{PerSecond: 1}, Now: func() time.Time { return now }})
	l := s.Listener("http", "", HTTPConfig{}, front.Options{})
	h := fr.Handler(l.Options, l.Handler)
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/", strings.NewReader(call(1)))) // the one token
	f.Fuzz(func(t *testing.T, in []byte) {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("POST", "/", bytes.NewReader(in)))
		if ran {
			t.Fatalf("a call ran without tokens: %q", in)
		}
		if body := w.Body.Bytes(); !json.Valid(body) {
			t.Fatalf("%d: invalid JSON %q for %q", w.Code, body, in)
		}
		if w.Code == 429 && !bytes.Contains(w.Body.Bytes(), []byte(`"code":-32005`)) {
			t.Fatalf("429 without -32005: %s", w.Body)
		}
	})
}

// A flood of batches that run nothing (malformed, empty, over the batch
// cap) is held to the client's limits like calls, over HTTP and
// WebSocket: of 100 only the bucket's 10 are answered as such, the rest
// refused with -32005.
func TestBadBatchesCounted(t *testing.T) {
	limits := front.Limits{PerSecond: 10, PerMinute: 600}
	s := testServer()
	s.BatchLimit = 3
	bad := []string{`[{"jsonrpc":"2.0","id":1`, `[]`, `[  ]`, batch(1, 2, 3, 4), `[1,2,3,4,5]`, `[`}
	t.Run("http", func(t *testing.T) {
		srv := frontServer(t, s, limits, HTTPConfig{}, front.Options{})
		answered := 0
		for i := range 100 {
			resp := post(t, srv.URL, bad[i%len(bad)], nil)
			body, _ := io.ReadAll(resp.Body)
			switch {
			case resp.StatusCode == 429 && bytes.Contains(body, []byte(`"code":-32005`)):
			case resp.StatusCode == 200 && !bytes.Contains(body, []byte("-32005")):
				answered++
			default:
				t.Fatalf("bad batch %d: %d %s", i, resp.StatusCode, body)
			}
		}
		if answered != 10 {
			t.Fatalf("%d of 100 bad batches answered, want the limit's 10", answered)
		}
	})
	t.Run("websocket", func(t *testing.T) {
		srv := frontServer(t, s, limits, HTTPConfig{WebSocket: true}, front.Options{})
		c := dialWS(t, srv.URL)
		answered := 0
		for i := range 100 {
			if got := wsCall(t, c, bad[i%len(bad)]); !bytes.Contains(got, []byte(`"code":-32005`)) {
				answered++
			}
		}
		// The upgrade request itself is booked when the connection ends,
		// not before: all ten tokens go to messages.
		if answered != 10 {
			t.Fatalf("%d of 100 bad batches answered, want the limit's 10", answered)
		}
	})
}
