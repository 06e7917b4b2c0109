package cometrpc

import (
	"bytes"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/front"
	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/query/querytest"
)

// BenchmarkABCIQueryHandler is the server's own cost of one abci_query
// answered from the cache (a balance, as a wallet polls it), without
// sockets: the front's middleware, reading the JSON-RPC request, finding
// the cached answer and writing it. Its allocations per call are what
// internal/tools/querybench's CPU per call weighs against gRPC's.
func BenchmarkABCIQueryHandler(b *testing.B) {
	f := querytest.New(1)
	qb := f.Backend()
	s := New(query.New(qb), Backend{Blocks: qb.Blocks, Consensus: qb.Consensus, Network: qb.Network})
	l := Listener("", s, front.Options{})
	h := front.New(front.Config{}).Handler(l.Options, l.Handler)
	req := &query.QueryBalanceRequest{Address: query.Bech32(query.AccountPrefix, querytest.Addr(1)), Denom: query.Denom}
	body := `{"jsonrpc":"2.0","id":1,"method":"abci_query","params":{"path":"/cosmos.bank.v1beta1.Query/Balance","data":"` +
		hex.EncodeToString(protobuf.Marshal(req)) + `"}}`
	w := &recorder{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		r, _ := http.NewRequest("POST", "http://127.0.0.1:26657/", strings.NewReader(body))
		r.RemoteAddr = "127.0.0.1:40000"
		clear(w.h)
		w.status = 0
		w.body.Reset()
		h.ServeHTTP(w, r)
		if w.status != 200 || !bytes.Contains(w.body.Bytes(), []byte(`"code":0,`)) {
			b.Fatalf("status %d: %s", w.status, w.body.Bytes())
		}
	}
}

type recorder struct {
	h      http.Header
	status int
	body   bytes.Buffer
}

func (w *recorder) Header() http.Header         { return w.h }
func (w *recorder) WriteHeader(code int)        { w.status = code }
func (w *recorder) Write(b []byte) (int, error) { return w.body.Write(b) }
