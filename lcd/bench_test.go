package lcd

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/chaind/chaind/internal/front"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/query/querytest"
)

// BenchmarkValidatorsLoad is the REST load test: 32 client connections on
// loopback reading the validators list (200 validators, the default page
// of 100) as fast as the server answers. It reports requests per second
// and the 50th and 99th percentile latencies.
func BenchmarkValidatorsLoad(b *testing.B) {
	f := front.New(front.Config{})
	srv, err := f.Listen(Listener("127.0.0.1:0", New(query.New(querytest.New(200).Backend())), front.Options{}))
	if err != nil {
		b.Fatal(err)
	}
	defer srv.Shutdown(context.Background())
	const conns = 32
	c := &http.Client{Transport: &http.Transport{MaxConnsPerHost: conns, MaxIdleConnsPerHost: conns}}
	url := "http://" + srv.Addr() + "/cosmos/staking/v1beta1/validators"
	get := func() error {
		resp, err := c.Get(url)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			return err
		}
		if resp.StatusCode != 200 {
			return fmt.Errorf("status %d", resp.StatusCode)
		}
		return nil
	}
	if err := get(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	s := querytest.Load(conns, b.N, get)
	b.StopTimer()
	if s.Errors > 0 {
		b.Fatalf("%d errors, first: %v", s.Errors, s.FirstErr)
	}
	b.ReportMetric(s.Rate(), "req/s")
	b.ReportMetric(float64(s.P50.Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(s.P99.Microseconds())/1000, "p99-ms")
}

// BenchmarkValidatorsHandler is the server's own cost of one validators
// page (200 validators, 100 a page), without sockets: the front's
// middleware, routing, the cached answer and writing it.
func BenchmarkValidatorsHandler(b *testing.B) {
	f := front.New(front.Config{})
	l := Listener("", New(query.New(querytest.New(200).Backend())), front.Options{})
	h := f.Handler(l.Options, l.Handler)
	w := &discard{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		req, _ := http.NewRequest("GET", "http://127.0.0.1:1317/cosmos/staking/v1beta1/validators", nil)
		req.RemoteAddr = "127.0.0.1:40000"
		clear(w.h)
		w.status, w.n = 0, 0
		h.ServeHTTP(w, req)
		if w.status != 200 || w.n == 0 {
			b.Fatalf("status %d, %d bytes", w.status, w.n)
		}
	}
}

type discard struct {
	h      http.Header
	status int
	n      int
}

func (w *discard) Header() http.Header         { return w.h }
func (w *discard) WriteHeader(code int)        { w.status = code }
func (w *discard) Write(b []byte) (int, error) { w.n += len(b); return len(b), nil }
