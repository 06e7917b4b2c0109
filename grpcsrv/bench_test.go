package grpcsrv

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"net/http"
	"runtime/pprof"
	"sync"
	"testing"

	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/query/querytest"
)

// BenchmarkValidatorsLoad is the gRPC load test: unary Validators calls
// (200 validators, the default page of 100) over one HTTP/2 connection
// on loopback, 32 calls in flight at once. It reports calls per second,
// the 50th and 99th percentile latencies, and the processor time per call
// of the whole process (server and generator: on a loaded machine the rate
// swings with the neighbours, the processor time much less).
func BenchmarkValidatorsLoad(b *testing.B) {
	addr := serve(b, 200)
	p := new(http.Protocols)
	p.SetUnencryptedHTTP2(true)
	c := &http.Client{Transport: &http.Transport{Protocols: p, MaxConnsPerHost: 1}}
	url := "http://" + addr + "/cosmos.staking.v1beta1.Query/Validators"
	body := appendFrame(nil, protobuf.Marshal(&query.QueryValidatorsRequest{}))
	// The generator's own cost is kept low (it shares the cores with the
	// server it measures): answers are read into reused buffers.
	bufs := sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}
	hdr := http.Header{"Content-Type": {"application/grpc"}, "Te": {"trailers"}}
	do := func() error {
		req, _ := http.NewRequest("POST", url, bytes.NewReader(body))
		req.Header = hdr
		resp, err := c.Do(req)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		bp := bufs.Get().(*[]byte)
		defer bufs.Put(bp)
		*bp, err = readAll(resp.Body, (*bp)[:0])
		if err != nil {
			return err
		}
		// One uncompressed message filling the body, then status 0.
		framed := *bp
		st := resp.Trailer.Get("Grpc-Status")
		if st != "0" || len(framed) <= frameHeaderLen || framed[0] != 0 || int(binary.BigEndian.Uint32(framed[1:])) != len(framed)-frameHeaderLen {
			return fmt.Errorf("grpc-status %q, %d bytes framed", st, len(framed))
		}
		return nil
	}
	// The load generator's goroutines (workers, and the goroutines of
	// the client connection the first call dials) carry the label
	// side=client, so a CPU profile of this benchmark splits into the
	// server's cost and the generator's: go tool pprof -tagfocus side=client.
	var s querytest.LoadStats
	var err error
	pprof.Do(context.Background(), pprof.Labels("side", "client"), func(context.Context) {
		if err = do(); err != nil {
			return
		}
		b.ResetTimer()
		s = querytest.Load(32, b.N, do)
		b.StopTimer()
	})
	if err != nil {
		b.Fatal(err)
	}
	if s.Errors > 0 {
		b.Fatalf("%d errors, first: %v", s.Errors, s.FirstErr)
	}
	b.ReportMetric(s.Rate(), "calls/s")
	b.ReportMetric(float64(s.CPU.Microseconds())/float64(s.Calls), "cpu-µs/call")
	b.ReportMetric(float64(s.P50.Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(s.P99.Microseconds())/1000, "p99-ms")
}

// readAll appends everything r has to buf.
func readAll(r io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}
