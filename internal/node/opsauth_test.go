package node

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestDebugRoutesAuth: the debug routes under /log/ want the token the
// login hands out, and answer its absence or a bad one as they answer
// everything, in JSON; the JSON-RPC root of the same port wants none, a
// stray Authorization header included.
func TestDebugRoutesAuth(t *testing.T) {
	n, _ := publicNode(t, Config{HTTPPort: 0, WSPort: -1, DataDir: t.TempDir(), Ops: OpsConfig{DebugPassphrase: []byte("a long passphrase")}})
	base := "http://" + n.Addr("http")
	_, login := postText(t, base+"/authenticate", `{"passphrase":"a long passphrase"}`)
	var tok struct{ Token string }
	if err := json.Unmarshal([]byte(login), &tok); err != nil || tok.Token == "" {
		t.Fatalf("login: %s", login)
	}
	rpcCall := `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}`
	for _, tc := range []struct {
		name, method, path, auth, body string
		code                           int
		want                           string
	}{
		{"no token", "GET", "/log/status", "", "", 401, `{"message":"No token provided"}`},
		{"bad token", "GET", "/log/status", "Bearer x.y.z", "", 401, `{"message":"unauthorized"}`},
		{"bad token, other route", "GET", "/log/txs", "Bearer x.y.z", "", 401, `{"message":"unauthorized"}`},
		{"bad token, unknown route", "GET", "/log/nothing", "Bearer x.y.z", "", 401, `{"message":"unauthorized"}`},
		{"bad token, POST", "POST", "/log/status", "Bearer x.y.z", "{}", 401, `{"message":"unauthorized"}`},
		{"good token", "GET", "/log/status", "Bearer " + tok.Token, "", 200, `"isRecordingTx":false`},
		{"good token, POST", "POST", "/log/status", "Bearer " + tok.Token, "{}", 405, `{"message":"use GET"}`},
		{"JSON-RPC, no token", "POST", "/", "", rpcCall, 200, `"result":"0x0"`},
		{"JSON-RPC, bad token", "POST", "/", "Bearer x.y.z", rpcCall, 200, `"result":"0x0"`},
		{"login, bad token", "POST", "/authenticate", "Bearer x.y.z", `{"passphrase":"a long passphrase"}`, 200, `"token"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, base+tc.path, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.code || !strings.Contains(string(b), tc.want) {
				t.Fatalf("%d %s; want %d with %s", resp.StatusCode, b, tc.code, tc.want)
			}
			if tc.path != "/" {
				if ct, cc := resp.Header.Get("Content-Type"), resp.Header.Get("Cache-Control"); ct != "application/json" || cc != "no-store" {
					t.Errorf("Content-Type %q, Cache-Control %q; want application/json, no-store", ct, cc)
				}
			}
		})
	}
}
