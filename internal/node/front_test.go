package node

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/devload"
	"github.com/coder/websocket"
)

// testClock is the injected clock of a public node's limits: it moves only
// when a test moves it.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// refill moves the clock past a full refill of every bucket.
func (c *testClock) refill() {
	c.mu.Lock()
	c.t = c.t.Add(time.Minute)
	c.mu.Unlock()
}

// publicNode starts a --public node on free ports of 127.0.0.1.
func publicNode(t *testing.T, cfg Config) (*Node, *testClock) {
	t.Helper()
	keys := devload.Keys("node-test", 3)
	clk := &testClock{t: time.Unix(1_700_000_000, 0)}
	cfg.Genesis = devload.GenesisWithToken(8118, keys, 1_700_000_000)
	cfg.Public, cfg.Clock = true, clk.now
	cfg.Accounts = keys
	n, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n, clk
}

// rawConn is one client TCP connection speaking HTTP/1.1 keep-alive, so a
// test knows exactly how many connections it holds.
type rawConn struct {
	c  net.Conn
	br *bufio.Reader
}

func dial(t *testing.T, addr string) *rawConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &rawConn{c: c, br: bufio.NewReader(c)}
}

func (rc *rawConn) post(t *testing.T, body string, hdr ...string) (*http.Response, string) {
	t.Helper()
	rc.c.SetDeadline(time.Now().Add(10 * time.Second))
	var extra string
	for i := 0; i+1 < len(hdr); i += 2 {
		extra += hdr[i] + ": " + hdr[i+1] + "\r\n"
	}
	fmt.Fprintf(rc.c, "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n%s\r\n%s", len(body), extra, body)
	resp, err := http.ReadResponse(rc.br, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func wsDial(t *testing.T, addr string) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// A client of its own: the WebSocket takes a fresh connection.
	c, resp, err := websocket.Dial(ctx, "ws://"+addr, &websocket.DialOptions{HTTPClient: &http.Client{Transport: &http.Transport{}}})
	if err == nil {
		t.Cleanup(func() { c.CloseNow() })
	}
	return c, resp, err
}

func wsSend(t *testing.T, c *websocket.Conn, msg string) string {
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
	return string(b)
}

// waitConns waits until the server has seen the test's connections close
// down to want; it notices a client's close on its own time.
func waitConns(t *testing.T, n *Node, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for n.front.Conns("127.0.0.1") != want {
		if time.Now().After(deadline) {
			t.Fatalf("server holds %d connections of the client, want %d", n.front.Conns("127.0.0.1"), want)
		}
		time.Sleep(time.Millisecond)
	}
}

func blockNumber(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"eth_blockNumber","params":[]}`, id)
}

func batchOf(k int) string {
	var calls []string
	for i := 1; i <= k; i++ {
		calls = append(calls, blockNumber(i))
	}
	return "[" + strings.Join(calls, ",") + "]"
}

// With the public limits, the 11th call within one second is refused on
// both JSON-RPC ports, however the calls come.
func TestPublicRateLimit(t *testing.T) {
	n, clk := publicNode(t, Config{HTTPPort: 0, WSPort: 0})
	for _, port := range []string{"http", "ws"} {
		addr := n.Addr(port)
		t.Run(port+"/one by one", func(t *testing.T) {
			clk.refill()
			rc := dial(t, addr)
			for i := 1; i <= 11; i++ {
				resp, body := rc.post(t, blockNumber(i))
				if i <= 10 && resp.StatusCode != 200 {
					t.Fatalf("call %d: %d %s", i, resp.StatusCode, body)
				}
				if i == 11 && (resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" ||
					!strings.Contains(body, `"id":11,"error":{"code":-32005`)) {
					t.Fatalf("11th call: %d Retry-After %q %s", resp.StatusCode, resp.Header.Get("Retry-After"), body)
				}
			}
			rc.c.Close()
			waitConns(t, n, 0)
		})
		t.Run(port+"/batch of 11", func(t *testing.T) {
			clk.refill()
			rc := dial(t, addr)
			resp, body := rc.post(t, batchOf(11))
			if resp.StatusCode != 429 || strings.Count(body, `"code":-32005`) != 11 || !strings.Contains(body, `"id":11,`) {
				t.Fatalf("batch of 11: %d %s", resp.StatusCode, body)
			}
			// A refused batch takes no tokens: ten calls still pass.
			if resp, body := rc.post(t, batchOf(10)); resp.StatusCode != 200 || strings.Contains(body, "error") {
				t.Fatalf("batch of 10 after the refused one: %d %s", resp.StatusCode, body)
			}
			if resp, _ := rc.post(t, blockNumber(11)); resp.StatusCode != 429 {
				t.Fatalf("11th call after a batch of 10: %d", resp.StatusCode)
			}
			rc.c.Close()
			waitConns(t, n, 0)
		})
		t.Run(port+"/websocket", func(t *testing.T) {
			clk.refill()
			c, _, err := wsDial(t, addr)
			if err != nil {
				t.Fatal(err)
			}
			for i := 1; i <= 11; i++ {
				got := wsSend(t, c, blockNumber(i))
				if i <= 10 && strings.Contains(got, "error") {
					t.Fatalf("message %d: %s", i, got)
				}
				if i == 11 && !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":11,"error":{"code":-32005`) {
					t.Fatalf("11th message: %s", got)
				}
			}
			// Still open, and a batch over what is left is refused whole,
			// an error per request.
			clk.refill()
			wsSend(t, c, batchOf(5))
			if got := wsSend(t, c, batchOf(6)); strings.Count(got, `"code":-32005`) != 6 {
				t.Fatalf("batch over the rest: %s", got)
			}
			c.CloseNow()
			waitConns(t, n, 0)
		})
	}
}

// With five connections of a client open on any port, a sixth is refused
// on every port, POST and WebSocket alike, until one of the five closes.
func TestPublicConnectionCap(t *testing.T) {
	n, clk := publicNode(t, Config{HTTPPort: 0, WSPort: 0})
	ports := []string{n.Addr("http"), n.Addr("ws")}
	var held []func()
	for i := range 5 {
		clk.refill()
		if i%2 == 0 {
			rc := dial(t, ports[i%2])
			if resp, body := rc.post(t, blockNumber(1)); resp.StatusCode != 200 {
				t.Fatalf("connection %d: %d %s", i+1, resp.StatusCode, body)
			}
			held = append(held, func() { rc.c.Close() })
		} else {
			c, _, err := wsDial(t, ports[i%2])
			if err != nil {
				t.Fatalf("connection %d: %v", i+1, err)
			}
			wsSend(t, c, blockNumber(1))
			held = append(held, func() { c.CloseNow() })
		}
	}
	waitConns(t, n, 5)
	for _, addr := range ports {
		resp, body := dial(t, addr).post(t, blockNumber(1))
		if resp.StatusCode != 429 || !resp.Close || !strings.Contains(body, `"code":-32005`) {
			t.Fatalf("6th connection, POST to %s: %d close=%v %s", addr, resp.StatusCode, resp.Close, body)
		}
		if _, resp, err := wsDial(t, addr); err == nil || resp == nil || resp.StatusCode != 429 {
			t.Fatalf("6th connection, WebSocket to %s: %v", addr, err)
		}
	}
	held[1]()
	waitConns(t, n, 4)
	for _, addr := range ports {
		clk.refill()
		c, _, err := wsDial(t, addr)
		if err != nil {
			t.Fatalf("WebSocket to %s after one closed: %v", addr, err)
		}
		c.CloseNow()
		waitConns(t, n, 4)
		rc := dial(t, addr)
		if resp, body := rc.post(t, blockNumber(1)); resp.StatusCode != 200 {
			t.Fatalf("POST to %s after one closed: %d %s", addr, resp.StatusCode, body)
		}
		rc.c.Close()
		waitConns(t, n, 4)
	}
}

// Under --public the default method sets leave out debug_, txpool_,
// personal_ and testing_ on both ports, over POST and WebSocket, as if
// those methods did not exist; explicit lists override the defaults.
func TestPublicMethodSets(t *testing.T) {
	hidden := []string{"debug_getRawHeader", "txpool_status", "personal_sign", "testing_buildBlockV1"}
	served := []string{"eth_blockNumber", "net_version", "web3_clientVersion", "chain_getNetworkAccount"}
	check := func(t *testing.T, n *Node, clk *testClock, port string, want map[string]bool) {
		t.Helper()
		rc := dial(t, n.Addr(port))
		c, _, err := wsDial(t, n.Addr(port))
		if err != nil {
			t.Fatal(err)
		}
		for method, ok := range want {
			clk.refill()
			msg := `{"jsonrpc":"2.0","id":1,"method":"` + method + `","params":[]}`
			notFound := `{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"the method ` + method + ` does not exist/is not available"}}`
			_, body := rc.post(t, msg)
			got := wsSend(t, c, msg)
			if ok == (body == notFound) || ok == (got == notFound) {
				t.Errorf("%s port, %s served %v: POST %s, WebSocket %s", port, method, ok, body, got)
			}
		}
		// Subscriptions follow eth.
		clk.refill()
		sub := wsSend(t, c, `{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}`)
		if want["eth_blockNumber"] == strings.Contains(sub, "-32601") {
			t.Errorf("%s port, eth_subscribe: %s", port, sub)
		}
	}
	set := func(on bool, names []string, more map[string]bool) map[string]bool {
		for _, m := range names {
			more[m] = on
		}
		return more
	}
	t.Run("public defaults", func(t *testing.T) {
		n, clk := publicNode(t, Config{HTTPPort: 0, WSPort: 0})
		for _, port := range []string{"http", "ws"} {
			check(t, n, clk, port, set(false, hidden, set(true, served, map[string]bool{})))
		}
	})
	t.Run("explicit lists", func(t *testing.T) {
		n, clk := publicNode(t, Config{HTTPPort: 0, WSPort: 0, HTTPAPIs: []string{"eth", "debug"}, WSAPIs: []string{"net"}})
		check(t, n, clk, "http", map[string]bool{"eth_blockNumber": true, "debug_getRawHeader": true, "net_version": false, "txpool_status": false})
		check(t, n, clk, "ws", map[string]bool{"eth_blockNumber": false, "net_version": true, "debug_getRawHeader": false})
	})
	t.Run("unknown namespace", func(t *testing.T) {
		keys := devload.Keys("node-test", 1)
		_, err := New(Config{Genesis: devload.GenesisWithToken(8118, keys, 1), HTTPPort: -1, WSPort: -1, WSAPIs: []string{"eth", "admin"}})
		if err == nil || !strings.Contains(err.Error(), `--ws.api: unknown namespace "admin"`) {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("personal on a public node", func(t *testing.T) {
		keys := devload.Keys("node-test", 1)
		_, err := New(Config{Genesis: devload.GenesisWithToken(8118, keys, 1), HTTPPort: -1, WSPort: -1, Public: true,
			Accounts: keys, HTTPAPIs: []string{"eth", "personal"}})
		if err == nil || !strings.Contains(err.Error(), "--http.api: a --public node holds no unlocked accounts, so it serves no personal namespace") {
			t.Fatalf("got %v", err)
		}
	})
}

// Without --public every namespace is served and nothing is limited.
func TestPrivateDefaults(t *testing.T) {
	keys := devload.Keys("node-test", 3)
	n, err := New(Config{Genesis: devload.GenesisWithToken(8118, keys, 1_700_000_000), HTTPPort: 0, WSPort: 0})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	for _, port := range []string{"http", "ws"} {
		rc := dial(t, n.Addr(port))
		resp, body := rc.post(t, batchOf(50))
		if resp.StatusCode != 200 || strings.Contains(body, "error") {
			t.Fatalf("%s: batch of 50: %d %s", port, resp.StatusCode, body)
		}
		for _, m := range []string{"debug_getRawHeader", "txpool_status", "personal_sign", "testing_buildBlockV1"} {
			_, body := rc.post(t, `{"jsonrpc":"2.0","id":1,"method":"`+m+`","params":[]}`)
			if strings.Contains(body, "-32601") {
				t.Errorf("%s: %s hidden: %s", port, m, body)
			}
		}
	}
}

// CORS and allowed hosts apply on the HTTP port as configured; the
// WebSocket port keeps its own (open) rules.
func TestCORSAndHosts(t *testing.T) {
	n, clk := publicNode(t, Config{HTTPPort: 0, WSPort: 0, CORS: []string{"https://app.example"}, VHosts: []string{"localhost", "127.0.0.1"}})
	for _, tc := range []struct {
		name, port, method, host, origin string
		status                           int
		allowOrigin, body                string
	}{
		{"preflight", "http", "OPTIONS", "127.0.0.1", "https://app.example", 204, "https://app.example", ""},
		{"preflight other origin", "http", "OPTIONS", "127.0.0.1", "https://evil.example", 204, "", ""},
		{"post allowed origin", "http", "POST", "localhost:8545", "https://app.example", 200, "https://app.example", `"result"`},
		{"host refused", "http", "POST", "evil.example", "", 403, "", `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid host specified"}}`},
		{"ws port any host", "ws", "POST", "evil.example", "", 200, "", `"result"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk.refill()
			req, _ := http.NewRequest(tc.method, "http://"+n.Addr(tc.port), strings.NewReader(blockNumber(1)))
			req.Host = tc.host
			req.Header.Set("Content-Type", "application/json")
			if tc.origin != "" {
				req.Header.Set("Origin", tc.origin)
			}
			if tc.method == "OPTIONS" {
				req.Header.Set("Access-Control-Request-Method", "POST")
			}
			tr := &http.Transport{}
			defer tr.CloseIdleConnections()
			resp, err := tr.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status || resp.Header.Get("Access-Control-Allow-Origin") != tc.allowOrigin || !strings.Contains(string(b), tc.body) {
				t.Fatalf("%d allow-origin %q %s", resp.StatusCode, resp.Header.Get("Access-Control-Allow-Origin"), b)
			}
		})
	}
}
