package node

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/chaind/chaind/internal/devload"
)

type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// /metrics is served on its own listener, logged like the others, and
// parsed by the Prometheus project's own text parser (a nested module
// under internal/metrics/testdata, so the node's go.mod stays clean).
func TestMetricsEndpoint(t *testing.T) {
	var logs syncBuf
	n, _ := publicNode(t, Config{HTTPPort: 0, WSPort: -1, Log: slog.New(slog.NewTextHandler(&logs, nil)),
		Ops: OpsConfig{Metrics: true, MetricsPort: 0}})
	if !strings.Contains(logs.String(), "listening kind=metrics addr="+n.Addr("metrics")) || n.Addr("metrics") == "" {
		t.Fatalf("metrics listener not logged:\n%s", logs.String())
	}
	url := "http://" + n.Addr("http")
	postText(t, url, `{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}`)
	postText(t, url, `{"jsonrpc":"2.0","id":2,"method":"eth_blockNumber"}`)
	postText(t, url, `{"jsonrpc":"2.0","id":3,"method":"eth_getBalance","params":["nonsense","latest"]}`)
	code, text := get(t, "http://"+n.Addr("metrics")+"/metrics")
	if code != 200 {
		t.Fatalf("/metrics: %d", code)
	}
	got := promParse(t, text)
	for _, want := range []string{
		`COUNTER chaind_rpc_requests_total{method="eth_blockNumber",outcome="ok"} 2`,
		`COUNTER chaind_rpc_requests_total{method="eth_getBalance",outcome="error"} 1`,
		`HISTOGRAM chaind_rpc_request_duration_seconds{method="eth_blockNumber"} count=2 buckets=15`,
		`GAUGE chaind_head_number{} 0`,
		`GAUGE chaind_txpool_pending{} 0`,
		`COUNTER chaind_consensus_timeouts_total{}`,
		`GAUGE chaind_p2p_peers{} 0`,
		`GAUGE chaind_store_bytes{} 0`,
		`SUMMARY go_gc_duration_seconds{}`,
		`COUNTER chaind_http_requests_total{listener="http",api="jsonrpc",code="200"} 3`,
		`HISTOGRAM chaind_http_request_duration_seconds{listener="http",api="jsonrpc"} count=3 buckets=15`,
		`GAUGE chaind_rpc_websocket_connections{} 0`,
		`COUNTER process_cpu_seconds_total{}`,
		`GAUGE go_goroutines{}`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("parsed metrics lack %q:\n%s", want, got)
		}
	}
}

// TestBlockIntervalSkipsGenesis: the genesis is dated when its file was
// written (here 2023), so block 1 has no interval to report; block 2 has
// its distance from block 1.
func TestBlockIntervalSkipsGenesis(t *testing.T) {
	n := newTestNode(t, "", 0) // seals only when a transaction is pending
	defer n.Close()
	keys := devload.Keys("node-test", 3)
	txs, err := devload.NewSigner(8118).Workload(devload.KindTransfer, keys[1], 0, 2, devload.TokenAddress)
	if err != nil {
		t.Fatal(err)
	}
	for i, tx := range txs {
		if err := n.backend.SendTransaction(context.Background(), tx); err != nil {
			t.Fatal(err)
		}
		waitNonce(t, n, devload.Address(keys[1]), uint64(i+1))
		h := n.Chain.Head()
		want := 0.0
		if h.Number() >= 2 {
			p, err := n.Chain.BlockByNumber(h.Number() - 1)
			if err != nil {
				t.Fatal(err)
			}
			want = float64(h.Time() - p.Time())
		}
		if got := n.chainm.BlockInterval(); got != want {
			t.Fatalf("head %d (time %d, genesis %d): interval %v s, want %v", h.Number(), h.Time(), n.Chain.Genesis().Time(), got, want)
		}
	}
}
