package front

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"syscall"
	"testing"
	"time"
)

// echo answers 200 "ok", or 413 when the body read was stopped at the cap.
var echo = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	if _, err := io.ReadAll(r.Body); err != nil {
		if _, ok := IsTooLarge(err); ok {
			w.WriteHeader(http.StatusRequestEntityTooLarge)
			return
		}
	}
	io.WriteString(w, "ok")
})

// jsonRefuser stands for a protocol's own error shape.
func jsonRefuser(w http.ResponseWriter, _ *http.Request, ref Refusal) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(ref.Status)
	fmt.Fprintf(w, `{"reason":%d,"message":%q}`, ref.Reason, ref.Message)
}

func TestMiddleware(t *testing.T) {
	for _, tc := range []struct {
		name    string
		opts    Options
		req     func() *http.Request
		status  int
		body    string
		headers map[string]string // "" means absent
	}{
		{"plain", Options{}, func() *http.Request { return httptest.NewRequest("POST", "/", strings.NewReader("x")) }, 200, "ok", nil},
		{"host refused", Options{VirtualHosts: []string{"node.example"}}, func() *http.Request {
			return httptest.NewRequest("POST", "http://evil.example/", nil)
		}, 403, "invalid host specified\n", nil},
		{"host allowed with port", Options{VirtualHosts: []string{"node.example"}}, func() *http.Request {
			return httptest.NewRequest("POST", "http://NODE.example:8545/", nil)
		}, 200, "ok", nil},
		{"host refused in the listener's shape", Options{VirtualHosts: []string{"node.example"}, Refuse: jsonRefuser}, func() *http.Request {
			return httptest.NewRequest("POST", "http://evil.example/", nil)
		}, 403, `{"reason":4,"message":"invalid host specified"}`, map[string]string{"Content-Type": "application/json"}},
		{"cors allowed", Options{CORSOrigins: []string{"https://app.example"}}, func() *http.Request {
			r := httptest.NewRequest("POST", "/", nil)
			r.Header.Set("Origin", "https://app.example")
			return r
		}, 200, "ok", map[string]string{"Access-Control-Allow-Origin": "https://app.example", "Vary": "Origin"}},
		{"cors any", Options{CORSOrigins: []string{"*"}}, func() *http.Request {
			r := httptest.NewRequest("POST", "/", nil)
			r.Header.Set("Origin", "https://other.example")
			return r
		}, 200, "ok", map[string]string{"Access-Control-Allow-Origin": "https://other.example"}},
		{"cors other origin", Options{CORSOrigins: []string{"https://app.example"}}, func() *http.Request {
			r := httptest.NewRequest("POST", "/", nil)
			r.Header.Set("Origin", "https://evil.example")
			return r
		}, 200, "ok", map[string]string{"Access-Control-Allow-Origin": ""}},
		{"preflight", Options{CORSOrigins: []string{"https://app.example"}}, func() *http.Request {
			r := httptest.NewRequest("OPTIONS", "/", nil)
			r.Header.Set("Origin", "https://app.example")
			r.Header.Set("Access-Control-Request-Method", "POST")
			return r
		}, 204, "", map[string]string{"Access-Control-Allow-Origin": "https://app.example",
			"Access-Control-Allow-Methods": "POST, GET, OPTIONS", "Access-Control-Allow-Headers": "Content-Type, Authorization"}},
		{"preflight other origin", Options{CORSOrigins: []string{"https://app.example"}}, func() *http.Request {
			r := httptest.NewRequest("OPTIONS", "/", nil)
			r.Header.Set("Origin", "https://evil.example")
			r.Header.Set("Access-Control-Request-Method", "POST")
			return r
		}, 204, "", map[string]string{"Access-Control-Allow-Origin": "", "Access-Control-Allow-Methods": ""}},
		{"auth refuses", Options{Auth: bearer}, func() *http.Request {
			return httptest.NewRequest("POST", "/", nil)
		}, 401, "missing token\n", nil},
		{"auth admits", Options{Auth: bearer}, func() *http.Request {
			r := httptest.NewRequest("POST", "/", nil)
			r.Header.Set("Authorization", "Bearer t")
			return r
		}, 200, "ok", nil},
		{"guard refuses its prefix", Options{Guards: []Guard{logGuard}}, func() *http.Request {
			return httptest.NewRequest("GET", "/log/status", nil)
		}, 401, "missing token\n", nil},
		{"guard refuses the prefix itself", Options{Guards: []Guard{logGuard}}, func() *http.Request {
			return httptest.NewRequest("GET", "/log/", nil)
		}, 401, "missing token\n", nil},
		{"guard admits", Options{Guards: []Guard{logGuard}}, func() *http.Request {
			r := httptest.NewRequest("GET", "/log/status", nil)
			r.Header.Set("Authorization", "Bearer t")
			return r
		}, 200, "ok", nil},
		{"guard leaves the root", Options{Guards: []Guard{logGuard}}, func() *http.Request {
			return httptest.NewRequest("POST", "/", nil)
		}, 200, "ok", nil},
		{"guard leaves a longer name", Options{Guards: []Guard{logGuard}}, func() *http.Request {
			return httptest.NewRequest("GET", "/logs", nil)
		}, 200, "ok", nil},
		{"guard sees through dot-dot", Options{Guards: []Guard{logGuard}}, func() *http.Request {
			r := httptest.NewRequest("GET", "/", nil)
			r.URL.Path = "/x/../log/status"
			return r
		}, 401, "missing token\n", nil},
		{"guard sees through doubled slashes", Options{Guards: []Guard{logGuard}}, func() *http.Request {
			r := httptest.NewRequest("GET", "/", nil)
			r.URL.Path = "//log//status"
			return r
		}, 401, "missing token\n", nil},
		{"guard answers in its own shape", Options{Refuse: jsonRefuser, Guards: []Guard{{Prefix: "/log/", Auth: bearer, Refuse: PlainRefuser}}}, func() *http.Request {
			return httptest.NewRequest("GET", "/log/status", nil)
		}, 401, "missing token\n", nil},
		{"guard answers in the listener's shape", Options{Refuse: jsonRefuser, Guards: []Guard{logGuard}}, func() *http.Request {
			return httptest.NewRequest("GET", "/log/status", nil)
		}, 401, `{"reason":5,"message":"missing token"}`, nil},
		{"listener auth and a guard both hold", Options{Auth: bearer, Guards: []Guard{{Prefix: "/log/", Auth: func(*http.Request) error { return errors.New("debug token wanted") }}}}, func() *http.Request {
			r := httptest.NewRequest("GET", "/log/status", nil)
			r.Header.Set("Authorization", "Bearer t")
			return r
		}, 401, "debug token wanted\n", nil},
		{"listener auth beside a guard", Options{Auth: bearer, Guards: []Guard{logGuard}}, func() *http.Request {
			return httptest.NewRequest("GET", "/", nil)
		}, 401, "missing token\n", nil},
		{"preflight under a guard", Options{CORSOrigins: []string{"*"}, Guards: []Guard{logGuard}}, func() *http.Request {
			r := httptest.NewRequest("OPTIONS", "/log/status", nil)
			r.Header.Set("Origin", "https://app.example")
			r.Header.Set("Access-Control-Request-Method", "GET")
			return r
		}, 204, "", nil},
		{"declared body over the cap", Options{BodyLimit: 10}, func() *http.Request {
			return httptest.NewRequest("POST", "/", strings.NewReader(strings.Repeat("x", 11)))
		}, 413, "content length too large (10 bytes max)\n", nil},
		{"declared body at the cap", Options{BodyLimit: 10}, func() *http.Request {
			return httptest.NewRequest("POST", "/", strings.NewReader(strings.Repeat("x", 10)))
		}, 200, "ok", nil},
		{"streamed body over the cap", Options{BodyLimit: 10}, func() *http.Request {
			r := httptest.NewRequest("POST", "/", io.NopCloser(strings.NewReader(strings.Repeat("x", 11))))
			r.ContentLength = -1
			return r
		}, 413, "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			New(Config{}).Handler(tc.opts, echo).ServeHTTP(w, tc.req())
			if w.Code != tc.status || w.Body.String() != tc.body {
				t.Fatalf("got %d %q, want %d %q", w.Code, w.Body, tc.status, tc.body)
			}
			for k, v := range tc.headers {
				if got := w.Header().Get(k); got != v {
					t.Errorf("header %s = %q, want %q", k, got, v)
				}
			}
		})
	}
}

// logGuard guards /log/ with bearer.
var logGuard = Guard{Prefix: "/log/", Auth: bearer}

// A request a guard refuses costs the client a call, as a served one
// would: guessing tokens is held to the client's rate.
func TestGuardRefusalCharged(t *testing.T) {
	c := newClock()
	f := New(Config{Limits: Limits{PerSecond: 10}, Now: c.now})
	h := f.Handler(Options{PerCall: true, Guards: []Guard{logGuard}}, echo)
	for i := 0; i < 10; i++ {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", "/log/status", nil))
		if w.Code != 401 {
			t.Fatalf("request %d: %d %s, want 401", i+1, w.Code, w.Body)
		}
	}
	if _, ok := f.lim.charge("192.0.2.1", 1); ok {
		t.Fatal("ten refused requests took no calls")
	}
}

func bearer(r *http.Request) error {
	if r.Header.Get("Authorization") != "Bearer t" {
		return errors.New("missing token")
	}
	return nil
}

// A listener without PerCall pays one call per request; one with PerCall
// pays what its handler charges, and at least one.
func TestRequestCharging(t *testing.T) {
	charge := func(n int) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if n == 0 {
				return
			}
			if _, ok := ClientFrom(r.Context()).Charge(n); !ok {
				w.WriteHeader(http.StatusTooManyRequests)
			}
		})
	}
	for _, tc := range []struct {
		name    string
		perCall bool
		h       http.Handler
		want    []int // statuses of successive requests
		left    bool  // whether a token is left after them
	}{
		{"per request", false, echo, []int{200, 200, 200, 200, 200, 200, 200, 200, 200, 200, 429}, false},
		// 3+3+3, then a refused 3 that takes nothing.
		{"per call", true, charge(3), []int{200, 200, 200, 429}, true},
		{"per call, handler charged nothing", true, charge(0), []int{200, 200, 200, 200, 200, 200, 200, 200, 200, 200}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClock()
			f := New(Config{Limits: Limits{PerSecond: 10}, Now: c.now})
			h := f.Handler(Options{PerCall: tc.perCall, Refuse: jsonRefuser}, tc.h)
			for i, want := range tc.want {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, httptest.NewRequest("POST", "/", nil))
				if w.Code != want {
					t.Fatalf("request %d: %d %s, want %d", i+1, w.Code, w.Body, want)
				}
				if w.Code == 429 && !tc.perCall && (w.Header().Get("Retry-After") != "1" ||
					w.Body.String() != `{"reason":1,"message":"rate limit exceeded"}`) {
					t.Fatalf("refusal: Retry-After %q, %s", w.Header().Get("Retry-After"), w.Body)
				}
			}
			// Requests that charged nothing were still booked.
			if _, ok := f.lim.charge("192.0.2.1", 1); ok != tc.left {
				t.Fatalf("after the requests, a charge admitted: %v, want %v", ok, tc.left)
			}
		})
	}
}

// The connection cap holds over all listeners of a front: with the cap's
// connections open on one port, another is refused on every port with a
// 429 in the listener's shape and closed, until one of them closes.
func TestConnectionCap(t *testing.T) {
	f := New(Config{Limits: Limits{Conns: 2}})
	var addrs []string
	for _, kind := range []string{"a", "b"} {
		s, err := f.Listen(Listener{Kind: kind, Addr: "127.0.0.1:0", Handler: echo, Options: Options{Refuse: jsonRefuser}})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Shutdown(t.Context())
		addrs = append(addrs, s.Addr())
	}
	open := func(addr string) (net.Conn, *bufio.Reader) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c, bufio.NewReader(c)
	}
	get := func(c net.Conn, br *bufio.Reader) *http.Response {
		t.Helper()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body = io.NopCloser(strings.NewReader(string(body)))
		return resp
	}
	// Two keep-alive connections, each used twice: two slots.
	var held []net.Conn
	for _, addr := range addrs {
		c, br := open(addr)
		for range 2 {
			if resp := get(c, br); resp.StatusCode != 200 {
				t.Fatalf("connection within the cap: %d", resp.StatusCode)
			}
		}
		held = append(held, c)
	}
	for _, addr := range addrs {
		// The refusal comes before the client says anything.
		c, br := open(addr)
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 429 || !resp.Close || string(body) != `{"reason":2,"message":"too many connections from your address (2 max)"}` {
			t.Fatalf("connection past the cap on %s: %d close=%v %s", addr, resp.StatusCode, resp.Close, body)
		}
		if _, err := br.ReadByte(); err == nil {
			t.Fatal("refused connection not closed")
		}
		c.Close()
	}
	held[0].Close()
	// The server notices the close on its own time; wait for the slot.
	deadline := time.Now().Add(10 * time.Second)
	for f.Conns("127.0.0.1") != 1 {
		if time.Now().After(deadline) {
			t.Fatal("closed connection's slot not released")
		}
		time.Sleep(time.Millisecond)
	}
	for range 2 { // and the refused ones took no slot
		c, br := open(addrs[1])
		if resp := get(c, br); resp.StatusCode != 200 {
			t.Fatalf("connection after one closed: %d", resp.StatusCode)
		}
		c.Close()
		for f.Conns("127.0.0.1") != 1 {
			if time.Now().After(deadline) {
				t.Fatal("closed connection's slot not released")
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// 300 connections over one client's cap, all silent, are each closed
// within a second of being opened, on a plain listener and on one that
// sorts HTTP/2 from HTTP/1.1 (the gRPC port); the client's connections
// within the cap stay served.
func TestConnectionsOverCapClosedAtOnce(t *testing.T) {
	for _, tc := range []struct {
		name    string
		l       Listener
		refusal string // how the answer starts
	}{
		{"http", Listener{Kind: "http", Addr: "127.0.0.1:0", Handler: echo}, "HTTP/1.1 429 "},
		// HTTP/2: SETTINGS, then GOAWAY ENHANCE_YOUR_CALM with the reason.
		{"sniffing h2c", Listener{Kind: "grpc", Addr: "127.0.0.1:0", Handler: echo, H2C: true, H2: nopConnServer{}},
			"\x00\x00\x00\x04\x00\x00\x00\x00\x00\x00\x00\x36\x07\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x0btoo many connections from your address (5 max)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := New(Config{Limits: Limits{Conns: 5}})
			s, err := f.Listen(tc.l)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Shutdown(t.Context())
			for range 5 {
				c, err := net.Dial("tcp", s.Addr())
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
			}
			deadline := time.Now().Add(10 * time.Second)
			for f.Conns("127.0.0.1") != 5 {
				if time.Now().After(deadline) {
					t.Fatalf("%d connections counted, want 5", f.Conns("127.0.0.1"))
				}
				time.Sleep(time.Millisecond)
			}
			const over = 300
			errs := make(chan error, over)
			for i := range over {
				go func() {
					c, err := net.Dial("tcp", s.Addr())
					if err != nil {
						errs <- err
						return
					}
					defer c.Close()
					opened := time.Now()
					c.SetReadDeadline(opened.Add(time.Second))
					b, err := io.ReadAll(c)
					if err != nil && !errors.Is(err, syscall.ECONNRESET) {
						errs <- fmt.Errorf("connection %d: %v after %v (read %q)", i, err, time.Since(opened), b)
						return
					}
					if want := tc.refusal; !strings.HasPrefix(string(b), want) {
						errs <- fmt.Errorf("connection %d: got %q", i, b)
						return
					}
					errs <- nil
				}()
			}
			for range over {
				if err := <-errs; err != nil {
					t.Fatal(err)
				}
			}
			if n := f.Conns("127.0.0.1"); n != 5 {
				t.Fatalf("after the refusals the client holds %d connections, want 5", n)
			}
		})
	}
}

// nopConnServer stands for the HTTP/2 server: it closes what it is given.
type nopConnServer struct{}

func (nopConnServer) ServeConn(_ context.Context, c net.Conn, _ http.Handler) { c.Close() }
func (nopConnServer) Shutdown(context.Context) error                          { return nil }

// A listener's own cap holds over all clients: past it a connection is
// answered 503 in the listener's shape and closed, and a closed one frees
// its slot.
func TestListenerConnectionCap(t *testing.T) {
	f := New(Config{})
	s, err := f.Listen(Listener{Kind: "a", Addr: "127.0.0.1:0", Handler: echo, MaxConns: 2, Options: Options{Refuse: jsonRefuser}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Shutdown(t.Context())
	get := func() (net.Conn, int, string) {
		t.Helper()
		c, err := net.Dial("tcp", s.Addr())
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(10 * time.Second))
		fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		return c, resp.StatusCode, string(body)
	}
	a, code, _ := get()
	b, code2, _ := get()
	if code != 200 || code2 != 200 {
		t.Fatalf("within the cap: %d %d", code, code2)
	}
	defer b.Close()
	c, code, body := get()
	c.Close()
	if code != 503 || body != `{"reason":2,"message":"too many connections to this port (2 max)"}` {
		t.Fatalf("past the cap: %d %s", code, body)
	}
	a.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, code, _ := get()
		c.Close()
		if code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("a closed connection's slot was not released")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestClientIPTrustedProxies(t *testing.T) {
	f := New(Config{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")}})
	for _, tc := range []struct {
		peer string
		xff  []string
		want string
	}{
		{"192.0.2.1:5000", nil, "192.0.2.1"},
		{"192.0.2.1:5000", []string{"203.0.113.9"}, "192.0.2.1"}, // untrusted peer: header ignored
		{"10.1.2.3:5000", []string{"203.0.113.9"}, "203.0.113.9"},
		{"10.1.2.3:5000", []string{"198.51.100.7, 203.0.113.9"}, "203.0.113.9"}, // nearest untrusted hop wins
		{"10.1.2.3:5000", []string{"198.51.100.7, 10.9.9.9"}, "198.51.100.7"},   // trusted hops skipped
		{"10.1.2.3:5000", []string{"198.51.100.7", "10.9.9.9"}, "198.51.100.7"}, // several header lines
		{"10.1.2.3:5000", []string{"not-an-ip"}, "10.1.2.3"},
		{"10.1.2.3:5000", nil, "10.1.2.3"},
		{"[::1]:5000", []string{"::ffff:203.0.113.5"}, "203.0.113.5"},
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = tc.peer
		for _, v := range tc.xff {
			r.Header.Add("X-Forwarded-For", v)
		}
		if got := f.ClientIP(r); got != tc.want {
			t.Errorf("peer %s, X-Forwarded-For %q: client %s, want %s", tc.peer, tc.xff, got, tc.want)
		}
	}
	// The handler puts the same address in the request's context, limits
	// or not.
	var seen string
	h := f.Handler(Options{}, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { seen = ClientFrom(r.Context()).IP() }))
	r := httptest.NewRequest("GET", "/", nil)
	r.RemoteAddr = "10.0.0.5:1"
	r.Header.Set("X-Forwarded-For", "198.51.100.1")
	h.ServeHTTP(httptest.NewRecorder(), r)
	if seen != "198.51.100.1" {
		t.Fatalf("handler saw client %q", seen)
	}
}
