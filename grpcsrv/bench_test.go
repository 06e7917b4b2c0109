package grpcsrv

import (
	"bytes"
	"context"
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
//
// Two generators drive it: h2load, the lean client of h2load_test.go
// (the figure the goal is measured by), and nethttp, Go's own HTTP/2
// client, whose cost shows how much of a machine a full client takes.
// The generators' goroutines carry the label side=client, so a CPU
// profile splits into the server's cost and theirs:
// go tool pprof -tagfocus side=client (or -tagignore) grpcsrv.test cpu.out.
func BenchmarkValidatorsLoad(b *testing.B) {
	addr := serve(b, 200)
	const path = "/cosmos.staking.v1beta1.Query/Validators"
	body := appendFrame(nil, protobuf.Marshal(&query.QueryValidatorsRequest{}))
	p := new(http.Protocols)
	p.SetUnencryptedHTTP2(true)
	c := &http.Client{Transport: &http.Transport{Protocols: p, MaxConnsPerHost: 1}}
	hdr := http.Header{"Content-Type": {"application/grpc"}, "Te": {"trailers"}}
	bufs := sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}
	// full is one call by Go's client: the answer's bytes, once the
	// status trailer said OK.
	full := func(into []byte) ([]byte, error) {
		req, _ := http.NewRequest("POST", "http://"+addr+path, bytes.NewReader(body))
		req.Header = hdr
		resp, err := c.Do(req)
		if err != nil {
			return nil, err
		}
		defer resp.Body.Close()
		into, err = readAll(resp.Body, into[:0])
		if err != nil {
			return nil, err
		}
		if st := resp.Trailer.Get("Grpc-Status"); st != "0" {
			return nil, fmt.Errorf("grpc-status %q", st)
		}
		return into, nil
	}
	// The answer every call must get: one message, a page of 100.
	var want []byte
	pprof.Do(context.Background(), pprof.Labels("side", "client"), func(context.Context) {
		want, _ = full(nil)
	})
	msg, err := readFrame(bytes.NewReader(want), DefaultMaxMessage)
	var resp query.QueryValidatorsResponse
	if err != nil || protobuf.Unmarshal(msg, &resp) != nil || len(resp.Validators) != 100 || len(msg)+frameHeaderLen != len(want) {
		b.Fatalf("first answer: %v, %d validators", err, len(resp.Validators))
	}

	run := func(b *testing.B, do func() error) {
		var s querytest.LoadStats
		pprof.Do(context.Background(), pprof.Labels("side", "client"), func(context.Context) {
			b.ResetTimer()
			s = querytest.Load(32, b.N, do)
			b.StopTimer()
		})
		if s.Errors > 0 {
			b.Fatalf("%d errors, first: %v", s.Errors, s.FirstErr)
		}
		b.ReportMetric(s.Rate(), "calls/s")
		b.ReportMetric(float64(s.CPU.Microseconds())/float64(s.Calls), "cpu-µs/call")
		b.ReportMetric(float64(s.P50.Microseconds())/1000, "p50-ms")
		b.ReportMetric(float64(s.P99.Microseconds())/1000, "p99-ms")
	}
	b.Run("h2load", func(b *testing.B) {
		var l *h2Load
		var err error
		pprof.Do(context.Background(), pprof.Labels("side", "client"), func(context.Context) {
			l, err = dialH2Load(addr, path, body, want)
		})
		if err != nil {
			b.Fatal(err)
		}
		defer l.close()
		run(b, l.call)
	})
	b.Run("nethttp", func(b *testing.B) {
		run(b, func() error {
			bp := bufs.Get().(*[]byte)
			defer bufs.Put(bp)
			got, err := full(*bp)
			*bp = got
			if err == nil && !bytes.Equal(got, want) {
				err = fmt.Errorf("answer of %d bytes differs from the expected %d", len(got), len(want))
			}
			return err
		})
	})
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
