package node

import (
	"bytes"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/devload"
)

// discardWriter is the cheapest http.ResponseWriter, so the benchmarks
// below measure the JSON-RPC handler and the node behind it, not net/http.
type discardWriter struct {
	h      http.Header
	status int
	n      int
}

func (w *discardWriter) Header() http.Header         { return w.h }
func (w *discardWriter) WriteHeader(code int)        { w.status = code }
func (w *discardWriter) Write(b []byte) (int, error) { w.n += len(b); return len(b), nil }

// BenchmarkRPCHandler is the server-side cost of the three requests the
// `chaind bench rpc` load test sends, from the parsed HTTP request to the
// written body.
func BenchmarkRPCHandler(b *testing.B) {
	keys := devload.Keys("node-test", 3)
	g := devload.GenesisWithToken(8118, keys, 1_700_000_000)
	n, err := New(Config{Genesis: g, HTTPPort: -1, WSPort: -1, Validator: keys[0], BlockTime: 0, Accounts: keys})
	if err != nil {
		b.Fatal(err)
	}
	if err := n.Start(); err != nil {
		b.Fatal(err)
	}
	defer n.Close()
	h := n.Handler()
	holder := strings.ToLower(devload.Address(keys[1]).Hex()) // as eth_accounts gives it
	callData := "0x" + hex.EncodeToString(devload.SelBalanceOf[:]) + "000000000000000000000000" + holder[2:]
	for _, c := range []struct{ name, body string }{
		{"eth_blockNumber", `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}`},
		{"eth_getBalance", `{"jsonrpc":"2.0","id":1,"method":"eth_getBalance","params":["` + holder + `","latest"]}`},
		{"eth_call", `{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[{"to":"` + strings.ToLower(devload.TokenAddress.Hex()) + `","data":"` + callData + `"},"latest"]}`},
	} {
		b.Run(c.name, func(b *testing.B) {
			body := []byte(c.body)
			w := &discardWriter{h: http.Header{}}
			b.ReportAllocs()
			for b.Loop() {
				req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:8545/", bytes.NewReader(body))
				req.Header["Content-Type"] = []string{"application/json"}
				req.RemoteAddr = "127.0.0.1:40000"
				clear(w.h)
				w.status, w.n = 0, 0
				h.ServeHTTP(w, req)
				if w.status != 0 && w.status != http.StatusOK || w.n == 0 {
					b.Fatalf("status %d, %d bytes", w.status, w.n)
				}
			}
		})
	}
}
