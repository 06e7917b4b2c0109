package node

import (
	"io"
	"net/http"
	"strings"
	"testing"
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
	for _, p := range []string{"/log/status", "/log/api-stats", "/log/txs", "/log/startTxCapture", "/log/cleanTxTable"} {
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
