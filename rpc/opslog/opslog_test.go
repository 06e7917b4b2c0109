package opslog

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/front"
	"github.com/chaind/chaind/internal/jwt"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/holiman/uint256"
)

var routes = []string{"/log/api-stats", "/log/api-calls", "/log/txs", "/log/status", "/log/startTxCapture", "/log/stopTxCapture",
	"/log/startRPCCapture", "/log/stopRPCCapture", "/log/cleanStatTable", "/log/cleanTxTable", "/log/nothing"}

// rig is a JSON-RPC port as the node builds it: the front (trusting
// 10.0.0.0/8 as proxies), the debug routes and JSON-RPC behind it, with a
// clock the test moves.
type rig struct {
	t   *testing.T
	now time.Time
	log *Log
	h   http.Handler
}

func newRig(t *testing.T, dir string) *rig {
	g := &rig{t: t, now: time.Unix(1_750_000_000, 0)}
	var err error
	g.log, err = New(Config{Passphrase: []byte("correct horse"), Dir: dir, Now: func() time.Time { return g.now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { g.log.Close() })
	srv := rpc.NewServer(nil)
	srv.Register("eth_sendRawTransaction", 1, 1, func(ctx context.Context, p rpc.Params) (any, error) {
		var s string
		if err := p.Decode(0, &s); err != nil {
			return nil, err
		}
		b, _ := decodeHex(s)
		tx, err := types.DecodeTx(b)
		if err != nil {
			return nil, err
		}
		return tx.Hash().Hex(), nil
	})
	srv.Register("eth_blockNumber", 0, 0, func(ctx context.Context, p rpc.Params) (any, error) { return "0x1", nil })
	srv.Register("eth_fails", 0, 0, func(ctx context.Context, p rpc.Params) (any, error) { return nil, fmt.Errorf("nonce too low") })
	srv.Observe(g.log.Observe)
	f := front.New(front.Config{TrustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8")}})
	l := srv.Listener("http", "", rpc.HTTPConfig{}, front.Options{})
	ops := g.log.Handler(&l.Options)
	mux := http.NewServeMux()
	mux.Handle("/authenticate", ops)
	mux.Handle(Prefix, ops)
	mux.Handle("/", l.Handler)
	g.h = f.Handler(l.Options, mux)
	return g
}

// do sends a request from peer and returns status and body.
func (g *rig) do(method, path, peer string, body string, hdr ...string) (int, string, http.Header) {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	r.RemoteAddr = peer
	if body != "" {
		r.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		r.Header.Add(hdr[i], hdr[i+1])
	}
	w := httptest.NewRecorder()
	g.h.ServeHTTP(w, r)
	b, _ := io.ReadAll(w.Result().Body)
	return w.Code, string(b), w.Result().Header
}

func (g *rig) login(peer string) string {
	code, body, _ := g.do("POST", "/authenticate", peer, `{"passphrase":"correct horse"}`)
	if code != 200 {
		g.t.Fatalf("login: %d %s", code, body)
	}
	var out struct {
		Token     string `json:"token"`
		ExpiresAt int64  `json:"expiresAt"`
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil || out.Token == "" || out.ExpiresAt <= g.now.UnixMilli() {
		g.t.Fatalf("login answer %s", body)
	}
	return out.Token
}

func TestRoutesNeedAValidToken(t *testing.T) {
	g := newRig(t, "")
	tok := g.login("192.0.2.1:1")
	parts := strings.Split(tok, ".")
	enc := base64.RawURLEncoding.EncodeToString
	noneTok := enc([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + parts[1] + "."
	hs512 := enc([]byte(`{"alg":"HS512","typ":"JWT"}`)) + "." + parts[1] + "." + parts[2]
	badSig := parts[0] + "." + parts[1] + "." + enc(make([]byte, 32))
	otherKey := jwt.Sign([]byte("not the node's secret"), jwt.Claims{IssuedAt: g.now.Unix(), ExpiresAt: g.now.Add(time.Hour).Unix()})
	bad := map[string][]string{
		"none":          nil,
		"alg none":      {"Authorization", "Bearer " + noneTok},
		"alg HS512":     {"Authorization", "Bearer " + hs512},
		"bad signature": {"Authorization", badSig},
		"other key":     {"Cookie", "access_token=" + otherKey},
		"garbage":       {"Authorization", "Bearer x.y.z"},
	}
	for _, path := range routes {
		for name, hdr := range bad {
			if code, body, _ := g.do("GET", path, "192.0.2.1:1", "", hdr...); code != 401 {
				t.Errorf("%s with %s token: %d %s", path, name, code, body)
			}
		}
	}
	// The same token is good in all three places...
	for _, hdr := range [][]string{{"Authorization", "Bearer " + tok}, {"Authorization", tok}, {"Cookie", "access_token=" + tok}} {
		if code, body, _ := g.do("GET", "/log/status", "192.0.2.1:1", "", hdr...); code != 200 || !strings.Contains(body, `"isRecordingTx":false`) {
			t.Errorf("status with %s: %d %s", hdr[0], code, body)
		}
	}
	if code, _, _ := g.do("GET", "/log/nothing", "192.0.2.1:1", "", "Authorization", tok); code != 404 {
		t.Errorf("unknown route with a token: %d", code)
	}
	// ...until it expires.
	g.now = g.now.Add(13 * time.Hour)
	if code, _, _ := g.do("GET", "/log/status", "192.0.2.1:1", "", "Authorization", tok); code != 401 {
		t.Errorf("expired token: %d", code)
	}
}

func TestFailedLoginsThrottled(t *testing.T) {
	g := newRig(t, "")
	for i := 1; i <= 5; i++ {
		if code, body, _ := g.do("POST", "/authenticate", "192.0.2.9:1", `{"passphrase":"guess"}`); code != 401 {
			t.Fatalf("failed login %d: %d %s", i, code, body)
		}
	}
	// The 6th within the minute is refused without being checked, even
	// with the right passphrase.
	code, _, hdr := g.do("POST", "/authenticate", "192.0.2.9:1", `{"passphrase":"correct horse"}`)
	if code != 429 || hdr.Get("Retry-After") == "" {
		t.Fatalf("6th login in a minute: %d, Retry-After %q", code, hdr.Get("Retry-After"))
	}
	// Another address is not affected; behind a trusted proxy the
	// forwarded address counts, so clients of one proxy do not share.
	g.login("192.0.2.10:1")
	g.login("10.0.0.1:1") // the proxy's own requests: its address
	for i := 0; i < 5; i++ {
		g.do("POST", "/authenticate", "10.0.0.1:1", `{"passphrase":"guess"}`, "X-Forwarded-For", "198.51.100.4")
	}
	if code, _, _ := g.do("POST", "/authenticate", "10.0.0.1:1", `{"passphrase":"correct horse"}`, "X-Forwarded-For", "198.51.100.4"); code != 429 {
		t.Fatalf("6th failed login through the proxy: %d", code)
	}
	g.login("10.0.0.1:1")
	g.now = g.now.Add(61 * time.Second)
	g.login("192.0.2.9:1")
	if code, _, _ := g.do("GET", "/authenticate", "192.0.2.9:1", ""); code != 405 {
		t.Fatalf("GET /authenticate: %d", code)
	}
	if code, _, _ := g.do("POST", "/authenticate", "192.0.2.9:1", `passphrase=x`); code != 400 {
		t.Fatalf("login with a form body: %d", code)
	}
}

func signedRawTx(t *testing.T, to *types.Address, data []byte) string {
	key, err := secp256k1.GeneratePrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	inner := &types.DynamicFeeTx{Nonce: 1, Gas: 21000, To: to, Data: data}
	inner.ChainID.SetUint64(1337)
	inner.GasFeeCap.SetUint64(1e9)
	inner.Value = *uint256.NewInt(5)
	tx, err := types.SignTx(types.NewTx(inner), types.LatestSigner(1337), key)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := tx.MarshalBinary()
	return "0x" + hex.EncodeToString(b)
}

func TestCaptureRecordsClientIP(t *testing.T) {
	dir := t.TempDir()
	g := newRig(t, dir)
	tok := g.login("192.0.2.1:1")
	auth := []string{"Authorization", "Bearer " + tok}
	to := types.Address{0x42}
	raw := signedRawTx(t, &to, nil)
	send := func(peer string, hdr ...string) {
		code, body, _ := g.do("POST", "/", peer, `{"jsonrpc":"2.0","id":1,"method":"eth_sendRawTransaction","params":["`+raw+`"]}`, hdr...)
		if code != 200 || !strings.Contains(body, `"result":"0x`) {
			t.Fatalf("send: %d %s", code, body)
		}
	}
	send("192.0.2.50:7") // capture off: not recorded
	if _, body, _ := g.do("GET", "/log/startTxCapture", "192.0.2.1:1", "", auth...); !strings.Contains(body, "Transaction status recording enabled") {
		t.Fatal(body)
	}
	if _, body, _ := g.do("GET", "/log/startTxCapture", "192.0.2.1:1", "", auth...); !strings.Contains(body, "already") {
		t.Fatal(body)
	}
	g.do("GET", "/log/startRPCCapture", "192.0.2.1:1", "", auth...)
	send("192.0.2.50:7")
	send("10.1.1.1:7", "X-Forwarded-For", "203.0.113.77")   // through a trusted proxy
	send("192.0.2.51:7", "X-Forwarded-For", "203.0.113.99") // a client pretending: ignored
	g.do("POST", "/", "192.0.2.50:7", `{"jsonrpc":"2.0","id":2,"method":"eth_fails"}`)

	var txs struct {
		Current int     `json:"current"`
		Length  int     `json:"length"`
		Data    []TxRow `json:"data"`
	}
	_, body, _ := g.do("GET", "/log/txs", "192.0.2.1:1", "", auth...)
	json.Unmarshal([]byte(body), &txs)
	if txs.Length != 3 {
		t.Fatalf("captured %d transactions, want 3: %s", txs.Length, body)
	}
	for i, ip := range []string{"192.0.2.50", "203.0.113.77", "192.0.2.51"} {
		row := txs.Data[i]
		if row.IP != ip || row.Type != "coin transfer" || row.To != to.Hex() || row.From == "" || row.Accepted != Success || row.Injected != 1 || !strings.HasPrefix(row.Hash, "0x") {
			t.Errorf("tx %d: %+v, want client %s", i, row, ip)
		}
	}
	_, body, _ = g.do("GET", "/log/txs?ip=203.0.113.77", "192.0.2.1:1", "", auth...)
	if json.Unmarshal([]byte(body), &txs); txs.Length != 1 {
		t.Fatalf("filter by ip: %s", body)
	}

	// The captured calls, paged.
	var stats struct {
		Current int       `json:"current"`
		Length  int       `json:"length"`
		Max     int       `json:"max"`
		Next    *int      `json:"next"`
		Prev    *int      `json:"prev"`
		Data    []StatRow `json:"data"`
	}
	_, body, _ = g.do("GET", "/log/api-calls?max=2", "192.0.2.1:1", "", auth...)
	json.Unmarshal([]byte(body), &stats)
	if stats.Length != 2 || stats.Max != 2 || stats.Next == nil || *stats.Next != 1 || stats.Prev != nil || stats.Data[0].APIName != "eth_sendRawTransaction" || stats.Data[0].Hash == nil {
		t.Fatalf("page 0: %s", body)
	}
	_, body, _ = g.do("GET", "/log/api-calls?max=2&page=1", "192.0.2.1:1", "", auth...)
	stats.Next = nil
	json.Unmarshal([]byte(body), &stats)
	if stats.Length != 2 || stats.Next != nil || stats.Prev == nil || stats.Data[1].APIName != "eth_fails" || stats.Data[1].Success != 0 || stats.Data[1].Reason == nil {
		t.Fatalf("page 1: %s", body)
	}
	_, body, _ = g.do("GET", "/log/api-calls?success=0", "192.0.2.1:1", "", auth...)
	if json.Unmarshal([]byte(body), &stats); stats.Length != 1 {
		t.Fatalf("failed calls: %s", body)
	}
	if code, _, _ := g.do("GET", "/log/api-calls?max=0", "192.0.2.1:1", "", auth...); code != 400 {
		t.Fatalf("max=0: %d", code)
	}

	// The capture survives a restart (it is kept in the directory), and
	// cleaning empties it.
	g.log.Close()
	g2 := newRig(t, dir)
	tok2 := g2.login("192.0.2.1:1")
	_, body, _ = g2.do("GET", "/log/txs", "192.0.2.1:1", "", "Authorization", tok2)
	if json.Unmarshal([]byte(body), &txs); txs.Length != 3 {
		t.Fatalf("after restart: %s", body)
	}
	_, body, _ = g2.do("GET", "/log/status", "192.0.2.1:1", "", "Authorization", tok2)
	if !strings.Contains(body, `"isRecordingTx":true`) {
		t.Fatalf("status after restart: %s", body)
	}
	if _, body, _ := g2.do("GET", "/log/cleanTxTable", "192.0.2.1:1", "", "Authorization", tok2); !strings.Contains(body, `"success":true`) {
		t.Fatal(body)
	}
	_, body, _ = g2.do("GET", "/log/txs", "192.0.2.1:1", "", "Authorization", tok2)
	if json.Unmarshal([]byte(body), &txs); txs.Length != 0 {
		t.Fatalf("after clean: %s", body)
	}
	if _, body, _ := g2.do("GET", "/log/status", "192.0.2.1:1", "", "Authorization", tok2); !strings.Contains(body, fmt.Sprintf(`"txDB_cleanTime":%d`, g2.now.UnixMilli())) {
		t.Fatalf("clean time: %s", body)
	}
}

// A table stays within its size bound, dropping its oldest rows, and ids
// keep counting.
func TestTableBound(t *testing.T) {
	dir := t.TempDir()
	tb, err := openTable(tablePath(dir, "t.jsonl"), 2000, func(r *StatRow, id int64) { r.ID = id }, func(r *StatRow) int64 { return r.ID })
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 500; i++ {
		tb.add(StatRow{APIName: fmt.Sprint("m", i)})
	}
	if tb.bytes > 2000 || len(tb.rows) == 0 || tb.rows[len(tb.rows)-1].ID != 500 {
		t.Fatalf("%d bytes, %d rows, last id %d", tb.bytes, len(tb.rows), tb.rows[len(tb.rows)-1].ID)
	}
	tb.close()
	tb2, err := openTable(tablePath(dir, "t.jsonl"), 2000, func(r *StatRow, id int64) { r.ID = id }, func(r *StatRow) int64 { return r.ID })
	if err != nil {
		t.Fatal(err)
	}
	defer tb2.close()
	if len(tb2.rows) != len(tb.rows) || tb2.nextID != 501 {
		t.Fatalf("reloaded %d rows (had %d), next id %d", len(tb2.rows), len(tb.rows), tb2.nextID)
	}
}

// TestAPIStatsSummary: /log/api-stats counts the captured calls per method
// and gives the rate of transactions submitted over the time capture ran
// (the calls themselves are on /log/api-calls).
func TestAPIStatsSummary(t *testing.T) {
	g := newRig(t, "")
	auth := []string{"Authorization", "Bearer " + g.login("192.0.2.1:1")}
	to := types.Address{0x42}
	raw := signedRawTx(t, &to, nil)
	call := func(method, params string) {
		g.do("POST", "/", "192.0.2.50:7", `{"jsonrpc":"2.0","id":1,"method":"`+method+`","params":[`+params+`]}`)
	}
	call("eth_blockNumber", "") // capture off: not counted
	g.do("GET", "/log/startRPCCapture", "192.0.2.1:1", "", auth...)
	for range 3 {
		call("eth_sendRawTransaction", `"`+raw+`"`)
		g.now = g.now.Add(2 * time.Second)
	}
	call("eth_blockNumber", "")
	call("eth_blockNumber", "")
	call("eth_fails", "")
	call("eth_sendRawTransaction", `"0x00"`) // refused: a call, no transaction
	g.now = g.now.Add(4 * time.Second)
	g.do("GET", "/log/stopRPCCapture", "192.0.2.1:1", "", auth...)
	g.now = g.now.Add(time.Hour) // after capture stopped: not part of the window

	code, body, _ := g.do("GET", "/log/api-stats", "192.0.2.1:1", "", auth...)
	var sum Summary
	if err := json.Unmarshal([]byte(body), &sum); err != nil || code != 200 {
		t.Fatalf("api-stats: %d %s", code, body)
	}
	want := []MethodStats{{APIName: "eth_sendRawTransaction", Calls: 4, Failed: 1}, {APIName: "eth_blockNumber", Calls: 2}, {APIName: "eth_fails", Calls: 1, Failed: 1}}
	if len(sum.Methods) != len(want) {
		t.Fatalf("methods %+v, want %+v", sum.Methods, want)
	}
	for i, m := range sum.Methods {
		if m.APIName != want[i].APIName || m.Calls != want[i].Calls || m.Failed != want[i].Failed || m.AvgMs < 0 || m.MaxMs < m.AvgMs {
			t.Errorf("method %d: %+v, want %+v", i, m, want[i])
		}
	}
	if !sum.Success || sum.Calls != 7 || sum.Failed != 2 || sum.Transactions != 3 || sum.Seconds != 10 || sum.TxPerSecond != 0.3 || sum.CallsPerSecond != 0.7 {
		t.Fatalf("summary %s: want 7 calls, 2 failed, 3 transactions over 10 s (0.3 tx/s)", body)
	}
	// The filters of the call log apply: one method, and a time range.
	_, body, _ = g.do("GET", "/log/api-stats?api_name=eth_blockNumber", "192.0.2.1:1", "", auth...)
	if json.Unmarshal([]byte(body), &sum); sum.Calls != 2 || len(sum.Methods) != 1 || sum.Transactions != 0 {
		t.Fatalf("api_name filter: %s", body)
	}
	start := time.Unix(1_750_000_000, 0).Add(5 * time.Second).UnixMilli()
	_, body, _ = g.do("GET", "/log/api-stats?start="+strconv.FormatInt(start, 10), "192.0.2.1:1", "", auth...)
	if json.Unmarshal([]byte(body), &sum); sum.Calls != 4 || sum.Transactions != 0 || sum.Seconds != 5 {
		t.Fatalf("from 5 s on: %s, want the 4 calls at 6 s over 5 s", body)
	}
	if code, _, _ := g.do("GET", "/log/api-stats?success=maybe", "192.0.2.1:1", "", auth...); code != 400 {
		t.Fatalf("success=maybe: %d", code)
	}
}
