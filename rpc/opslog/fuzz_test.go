package opslog

import (
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/chaind/chaind/rpc"
)

// FuzzDescribeTx: whatever a client sends as submission parameters, the
// capture describes it without panicking, as one of the four kinds.
func FuzzDescribeTx(f *testing.F) {
	f.Add("eth_sendRawTransaction", `["0x02f8"]`, false)
	f.Add("eth_sendTransaction", `[{"from":"0x01","to":null,"data":"0x60"}]`, true)
	f.Add("eth_sendRawTransaction", `[1,2,3]`, true)
	f.Fuzz(func(t *testing.T, method, params string, failed bool) {
		c := rpc.Call{Method: method, Params: []byte(params)}
		if failed {
			c.Err = errors.New("nonce too low")
		}
		row := describeTx(c)
		switch row.Type {
		case "contract deployment", "coin transfer", "contract call", "other":
		default:
			t.Fatalf("kind %q", row.Type)
		}
	})
}

// FuzzQuery: the query parameters of the paged routes are checked, never
// trusted.
func FuzzQuery(f *testing.F) {
	f.Add("page=1&max=10&start=2024-01-02&end=1700000000000")
	f.Add("max=-1")
	f.Add("start=yesterday")
	f.Fuzz(func(t *testing.T, q string) {
		r := httptest.NewRequest("GET", "/log/txs", nil)
		r.URL.RawQuery = q
		page, n, err := pageArgs(r, 1000, 5000)
		if err == nil && (page < 0 || n < 1 || n > 5000) {
			t.Fatalf("page %d max %d accepted", page, n)
		}
		timeArg(r, "start", 0)
	})
}

// FuzzTableLoad: a capture file of any content (torn by a crash, edited
// by hand) loads without panicking and within its bound.
func FuzzTableLoad(f *testing.F) {
	f.Add([]byte(`{"id":1,"api_name":"eth_call","tfinal":1.5,"timestamp":1,"nodeUrl":null,"success":1,"reason":null,"hash":null}` + "\n" + `{"id":2,"api_na`))
	f.Add([]byte("\n\n{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "t.jsonl")
		os.WriteFile(path, data, 0o600)
		tb, err := openTable(path, 4096, func(r *StatRow, id int64) { r.ID = id }, func(r *StatRow) int64 { return r.ID })
		if err != nil {
			return
		}
		defer tb.close()
		if tb.bytes > 4096 {
			t.Fatalf("loaded %d bytes over a 4096 bound", tb.bytes)
		}
		if err := tb.add(StatRow{APIName: "x"}); err != nil {
			t.Fatal(err)
		}
	})
}
