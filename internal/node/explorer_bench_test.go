package node

import (
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkExplorerBlock is GET /api/block/N over loopback HTTP with
// keep-alive connections from parallel clients, N cycling over a chain
// with traffic; it reports requests per second.
func BenchmarkExplorerBlock(b *testing.B) {
	x := startExplorerNode(b)
	head := x.n.Chain.Head().Number()
	tr := &http.Transport{MaxIdleConnsPerHost: 64}
	client := &http.Client{Transport: tr}
	defer tr.CloseIdleConnections()
	var next atomic.Uint64
	b.SetParallelism(4)
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			n := next.Add(1)%head + 1
			resp, err := client.Get(fmt.Sprintf("%s/api/block/%d", x.base, n))
			if err != nil {
				b.Error(err)
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Errorf("block %d: status %d", n, resp.StatusCode)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "req/s")
}
