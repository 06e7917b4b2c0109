package node

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/devload"
)

// On a --public validator a client holding its five connections has 300
// more, spread over every port (JSON-RPC, WebSocket, REST, gRPC,
// explorer, metrics), each answered 429 and closed within a second of
// being opened, without sending a byte; the chain keeps growing
// throughout, and every port gets its own global cap out of the file
// limit.
func TestPublicConnectionsOverCapClosed(t *testing.T) {
	zero := 0
	keys := devload.Keys("node-test", 3)
	n, _ := publicNode(t, Config{HTTPPort: 0, WSPort: 0, RESTPort: &zero, GRPCPort: &zero, Explorer: true,
		Validator: keys[0], BlockTime: 20 * time.Millisecond, Ops: OpsConfig{Metrics: true}})
	kinds := []string{"http", "ws", "rest", "grpc", "explorer", "metrics"}
	for _, k := range kinds {
		if n.Addr(k) == "" {
			t.Fatalf("no %s listener", k)
		}
	}
	for i := range 5 {
		dial(t, n.Addr(kinds[i]))
	}
	waitConns(t, n, 5)
	start := n.Chain.Head().Number()

	_, grpcPort, _ := net.SplitHostPort(n.Addr("grpc"))
	grpcPort = ":" + grpcPort
	const over = 300
	errs := make(chan error, over)
	for i := range over {
		addr := n.Addr(kinds[i%len(kinds)])
		go func() {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				errs <- err
				return
			}
			defer c.Close()
			opened := time.Now()
			c.SetReadDeadline(opened.Add(time.Second))
			b, err := io.ReadAll(c)
			if err != nil && !errors.Is(err, syscall.ECONNRESET) {
				errs <- fmt.Errorf("%s: %v after %v (read %q)", addr, err, time.Since(opened), b)
				return
			}
			// The gRPC port speaks HTTP/2: a GOAWAY with the reason.
			if !strings.HasPrefix(string(b), "HTTP/1.1 429 ") && !(strings.HasSuffix(addr, grpcPort) &&
				strings.HasSuffix(string(b), "too many connections from your address (5 max)")) {
				errs <- fmt.Errorf("%s: got %q", addr, b)
				return
			}
			errs <- nil
		}()
	}
	for range over {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if got := n.front.Conns("127.0.0.1"); got != 5 {
		t.Fatalf("client holds %d connections after the refusals, want 5", got)
	}
	deadline := time.Now().Add(20 * time.Second)
	for n.Chain.Head().Number() < start+3 {
		if time.Now().After(deadline) {
			t.Fatalf("head stuck at %d (was %d before the flood)", n.Chain.Head().Number(), start)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
