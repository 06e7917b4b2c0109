package node

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/p2p"
)

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Without a passphrase the debug routes are off (404, not the health
// probe's 200); with one they exist and want a token; the JSON-RPC port
// keeps answering either way.
func TestDebugRoutesOnTheRPCPort(t *testing.T) {
	off, _ := publicNode(t, Config{HTTPPort: 0, WSPort: -1})
	base := "http://" + off.Addr("http")
	for _, p := range []string{"/log/status", "/log/api-stats", "/log/txs", "/log/startTxCapture", "/authenticate"} {
		if code, body := get(t, base+p); code != 404 || !strings.Contains(body, "debug routes are off") {
			t.Errorf("%s without a passphrase: %d %s", p, code, body)
		}
	}
	if code, _ := get(t, base+"/"); code != 200 {
		t.Errorf("health probe: %d", code)
	}

	dir := t.TempDir()
	on, _ := publicNode(t, Config{HTTPPort: 0, WSPort: -1, DataDir: dir, Ops: OpsConfig{DebugPassphrase: []byte("a long passphrase")}})
	base = "http://" + on.Addr("http")
	for _, p := range []string{"/log/status", "/log/api-stats", "/log/api-calls", "/log/txs", "/log/startTxCapture", "/log/cleanTxTable"} {
		if code, body := get(t, base+p); code != 401 {
			t.Errorf("%s without a token: %d %s", p, code, body)
		}
	}
	resp, err := http.Post(base+"/authenticate", "application/json", strings.NewReader(`{"passphrase":"a long passphrase"}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"token"`) {
		t.Fatalf("login: %d %s", resp.StatusCode, b)
	}
	resp, err = http.Post(base, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("JSON-RPC beside the debug routes: %d", resp.StatusCode)
	}
}

func postText(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Configured limits replace the defaults: the per-client rate on a public
// node, and the batch cap on any node.
func TestConfiguredLimits(t *testing.T) {
	n, _ := publicNode(t, Config{HTTPPort: 0, WSPort: -1, Ops: OpsConfig{Limits: Limits{PerSecond: 2}}})
	url := "http://" + n.Addr("http")
	for i := 0; i < 2; i++ {
		if code, body := postText(t, url, `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}`); code != 200 {
			t.Fatalf("call %d: %d %s", i, code, body)
		}
	}
	if code, body := postText(t, url, `{"jsonrpc":"2.0","id":"x3","method":"eth_blockNumber"}`); code != 429 || !strings.Contains(body, `"id":"x3"`) || !strings.Contains(body, "-32005") {
		t.Fatalf("third call in a second under --limits.rps 2: %d %s", code, body)
	}

	m, clk := publicNode(t, Config{HTTPPort: 0, WSPort: -1, Ops: OpsConfig{Limits: Limits{Batch: 3}}})
	url = "http://" + m.Addr("http")
	clk.refill()
	if _, body := postText(t, url, `[{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"},{"jsonrpc":"2.0","id":2,"method":"eth_blockNumber"},{"jsonrpc":"2.0","id":3,"method":"eth_blockNumber"},{"jsonrpc":"2.0","id":4,"method":"eth_blockNumber"}]`); !strings.Contains(body, "batch too large") {
		t.Fatalf("batch of 4 under --limits.batch 3: %s", body)
	}
}

// The store's table files fit in the descriptors the node reserves: the
// reserve covers them plus the node's own and the peers'.
func TestFDReserve(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		reserve, peers         int
		wantReserve, wantTable int
	}{
		{"default", 0, 0, 1024 + 4*50, store.DefaultMaxOpenTables},
		{"ten peers", 0, 10, 1024 + 4*10, store.DefaultMaxOpenTables},
		{"set", 5000, 100, 5000, 5000 - 64 - 4*100},
		{"too small", 100, 50, 100, minStoreTables},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{}
			cfg.Ops.Limits.FDReserve = tc.reserve
			if tc.peers > 0 {
				cfg.P2P = &P2PConfig{MaxPeers: tc.peers}
			}
			r, tables := cfg.fdReserve()
			if r != tc.wantReserve || tables != tc.wantTable {
				t.Fatalf("fdReserve = %d, %d; want %d, %d", r, tables, tc.wantReserve, tc.wantTable)
			}
			peers := tc.peers
			if peers == 0 {
				peers = 50
			}
			if tables > minStoreTables && r-tables < nodeFDs+fdsPerPeer*peers {
				t.Fatalf("reserve %d leaves %d beside %d tables: less than the node and peers need", r, r-tables, tables)
			}
		})
	}
}

// The p2p host is handed its part of the reserve as its descriptor budget,
// and that budget holds its peers, static peers and some handshakes
// whatever MaxPeers is: p2p.New refuses a budget that does not.
func TestP2PGetsItsShareOfTheReserve(t *testing.T) {
	static := []p2p.PeerAddr{{Addr: "127.0.0.1:1"}, {Addr: "127.0.0.1:2"}, {Addr: "127.0.0.1:3"}}
	for _, tc := range []struct {
		name   string
		peers  int
		static []p2p.PeerAddr
	}{
		{"default", 0, nil},
		{"one peer", 1, nil},
		{"one peer, static peers", 1, static},
		{"many peers", 500, static},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := Config{P2P: &P2PConfig{MaxPeers: tc.peers, StaticPeers: tc.static}}
			budget := cfg.p2pFDs()
			reserve, tables := cfg.fdReserve()
			if reserve-tables < nodeFDs+budget {
				t.Fatalf("reserve %d with %d tables leaves less than the node's %d and p2p's %d", reserve, tables, nodeFDs, budget)
			}
			key, err := crypto.GenerateKey()
			if err != nil {
				t.Fatal(err)
			}
			h, err := p2p.New(p2p.Config{Key: key, MaxPeers: tc.peers, StaticPeers: tc.static, FDBudget: budget})
			if err != nil {
				t.Fatalf("p2p refuses the node's budget of %d: %v", budget, err)
			}
			h.Close()
		})
	}
}
