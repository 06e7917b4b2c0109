package rpc

import (
	"context"
	"fmt"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// A WebSocket client that asks for large answers and reads none of them
// grows the node's heap by a bounded amount: it is cut with close code
// 1008 once more than QueueBytes waits, instead of the node holding every
// answer (up to 4096 of them, gigabytes, while the queue was bounded only
// in messages). The heap is sampled while the client keeps asking.
func TestWebSocketNeverReadingBounded(t *testing.T) {
	const answer = 4 << 20
	s := testServer()
	big := strings.Repeat("x", answer)
	var served atomic.Int64
	var conn atomic.Pointer[Notifier]
	s.Register("big", 0, 0, func(ctx context.Context, _ Params) (any, error) {
		n, _ := NotifierFrom(ctx)
		conn.Store(n)
		served.Add(1)
		return big, nil
	})
	srv := httptest.NewServer(s.HTTPHandler(HTTPConfig{WebSocket: true}))
	defer srv.Close()

	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > peak.Load() {
				peak.Store(ms.HeapAlloc)
			}
			select {
			case <-stop:
				return
			case <-time.After(5 * time.Millisecond):
			}
		}
	}()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, _, err := websocket.Dial(ctx, "ws"+srv.URL[4:], nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	// 100 answers of 4 MiB would be 400 MiB held; the client reads none
	// of them while asking.
	for i := range 100 {
		if err := c.Write(ctx, websocket.MessageText, []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"big"}`, i))); err != nil {
			break // cut: the rest would go nowhere
		}
	}
	// Wait until the server has served every call or cut the client,
	// then read to the end.
	for served.Load() < 100 {
		if n := conn.Load(); n != nil && isClosed(n.closed) {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("served %d calls before the deadline", served.Load())
		}
		time.Sleep(10 * time.Millisecond)
	}
	close(stop)
	<-sampled
	c.SetReadLimit(answer + 1024)
	var status websocket.StatusCode = -1
	for {
		if _, _, err := c.Read(ctx); err != nil {
			status = websocket.CloseStatus(err)
			break
		}
	}
	if grew := int64(peak.Load()) - int64(base); grew > 256<<20 {
		t.Fatalf("heap grew by %d MiB, want at most 256", grew>>20)
	} else {
		t.Logf("heap grew by at most %d MiB (sampled)", grew>>20)
	}
	if status != websocket.StatusPolicyViolation {
		t.Fatalf("connection ended with status %d, want 1008 (policy violation)", status)
	}
}

func isClosed(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}
