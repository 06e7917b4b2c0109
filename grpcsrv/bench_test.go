package grpcsrv

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"testing"

	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/query/querytest"
)

// BenchmarkValidatorsLoad is the gRPC load test: unary Validators calls
// (200 validators, the default page of 100) over one HTTP/2 connection
// on loopback, 32 calls in flight at once. It reports calls per second
// and the 50th and 99th percentile latencies.
func BenchmarkValidatorsLoad(b *testing.B) {
	addr := serve(b, 200)
	p := new(http.Protocols)
	p.SetUnencryptedHTTP2(true)
	c := &http.Client{Transport: &http.Transport{Protocols: p, MaxConnsPerHost: 1}}
	url := "http://" + addr + "/cosmos.staking.v1beta1.Query/Validators"
	body := appendFrame(nil, protobuf.Marshal(&query.QueryValidatorsRequest{}))
	do := func() error {
		req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/grpc")
		req.Header.Set("TE", "trailers")
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		msg, err := readFrame(resp.Body, DefaultMaxMessage)
		if err != nil {
			return err
		}
		io.Copy(io.Discard, resp.Body)
		if st := resp.Trailer.Get("Grpc-Status"); st != "0" || len(msg) == 0 {
			return fmt.Errorf("grpc-status %q, %d bytes", st, len(msg))
		}
		return nil
	}
	if err := do(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	s := querytest.Load(32, b.N, do)
	b.StopTimer()
	if s.Errors > 0 {
		b.Fatalf("%d errors, first: %v", s.Errors, s.FirstErr)
	}
	b.ReportMetric(s.Rate(), "calls/s")
	b.ReportMetric(float64(s.P50.Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(s.P99.Microseconds())/1000, "p99-ms")
}
