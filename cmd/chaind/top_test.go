package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/metrics"
)

func TestTopRender(t *testing.T) {
	r := metrics.New()
	calls := r.NewCounterVec("chaind_rpc_requests_total", "x", "method", "outcome")
	lat := r.NewHistogramVec("chaind_rpc_request_duration_seconds", "x", metrics.DefaultBuckets, "method")
	r.GaugeFunc("chaind_head_number", "x", func() float64 { return 1234 })
	r.GaugeFunc("chaind_block_interval_seconds", "x", func() float64 { return 0.25 })
	calls.Add(10, "eth_call", "ok")
	calls.Add(2, "eth_call", "error")
	lat.Observe(0.004, "eth_call")
	lat.Observe(0.006, "eth_call")
	srv := httptest.NewServer(r.Handler())
	defer srv.Close()
	c := &http.Client{Timeout: 5 * time.Second}
	prev, err := scrape(c, srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	calls.Add(6, "eth_call", "ok")
	cur, _ := scrape(c, srv.URL)
	cur.at = prev.at.Add(2 * time.Second)
	var b strings.Builder
	render(&b, srv.URL, cur, prev)
	out := b.String()
	for _, want := range []string{"head      1234", "block interval 250ms", "eth_call", "18", "3.0", "5.00"} {
		if !strings.Contains(out, want) {
			t.Errorf("screen lacks %q:\n%s", want, out)
		}
	}
	if code := runTop([]string{"--once", "--url", srv.URL}); code != 0 {
		t.Fatalf("top --once: exit %d", code)
	}
	if code := runTop([]string{"--once", "--url", "http://127.0.0.1:1/metrics"}); code == 0 {
		t.Fatal("top on a bad URL exited 0")
	}
}
