package node

import (
	"context"
	"github.com/chaind/chaind/internal/node/p2pnet"
	"github.com/chaind/chaind/internal/pos"
	"net"
	"net/http"
	"strconv"

	"github.com/chaind/chaind/internal/front"
	chainmetrics "github.com/chaind/chaind/internal/metrics"
	"github.com/chaind/chaind/rpc"
)

// openMetrics registers what the node exposes on /metrics. The registry
// exists even when the listener is off, so counting costs the same either
// way and tests can read it.
func (n *Node) openMetrics() {
	r := chainmetrics.New()
	n.metrics = r
	calls := r.NewCounterVec("chaind_rpc_requests_total", "JSON-RPC calls, by method and outcome (ok or error); calls of methods the port does not serve count as method other.", "method", "outcome")
	lat := r.NewHistogramVec("chaind_rpc_request_duration_seconds", "Time to serve a JSON-RPC call, by method.", chainmetrics.DefaultBuckets, "method")
	n.RPC.Observe(func(_ context.Context, c rpc.Call) {
		outcome := "ok"
		if c.Err != nil {
			outcome = "error"
		}
		calls.Add(1, c.Method, outcome)
		lat.Observe(c.Duration.Seconds(), c.Method)
	})
	// Names the node does not serve are the client's to invent: one label.
	n.RPC.ObserveUnknown(func(context.Context) { calls.Add(1, "other", "error") })
	n.http = newHTTPMetrics(r)
	r.GaugeFunc("chaind_rpc_websocket_connections", "JSON-RPC WebSocket connections open now, over the HTTP and WebSocket ports.", func() float64 {
		open, _ := n.RPC.WebSocketConns()
		return float64(open)
	})
	r.CounterFunc("chaind_rpc_websocket_connections_total", "JSON-RPC WebSocket connections accepted.", func() float64 {
		_, total := n.RPC.WebSocketConns()
		return float64(total)
	})
	n.prunePause = r.NewHistogramVec("chaind_prune_pause_seconds", "Time a pruning pass held the chain, blocking block production: one observation per slice, by what was pruned (state or history).", chainmetrics.DefaultBuckets, "kind")
	r.GaugeFunc("chaind_head_number", "Number of the head block.", func() float64 { return float64(n.Chain.Head().Number()) })
	r.GaugeFunc("chaind_head_timestamp_seconds", "Timestamp of the head block.", func() float64 { return float64(n.Chain.Head().Time()) })
	r.GaugeFunc("chaind_block_interval_seconds", "Time between the head block and its parent (0 until the chain has two blocks after its genesis).", n.blockInterval)
	r.GaugeFunc("chaind_txpool_pending", "Transactions in the pool ready to be included.", func() float64 {
		p, _ := n.Pool.Stats()
		return float64(p)
	})
	r.GaugeFunc("chaind_txpool_queued", "Transactions in the pool waiting for a nonce gap to close.", func() float64 {
		_, q := n.Pool.Stats()
		return float64(q)
	})
	r.CounterFunc("chaind_consensus_rounds_total", "Consensus rounds entered by this validator (every height starts one).", func() float64 { return float64(n.bftStats.Rounds.Load()) })
	r.CounterFunc("chaind_consensus_timeouts_total", "Consensus propose, prevote and precommit timeouts that fired.", func() float64 { return float64(n.bftStats.Timeouts.Load()) })
	r.GaugeFunc("chaind_healthy", "1 while the node works, 0 while its consensus is stopped or it failed (the reason is on /health).", func() float64 {
		if ok, _ := n.Healthy(); ok {
			return 1
		}
		return 0
	})
	r.CounterFunc("chaind_consensus_restarts_total", "Restarts of the consensus driver after transient errors (descriptors or disk space ran out).", func() float64 { return float64(n.health.restarts.Load()) })
	r.GaugeFunc("chaind_p2p_peers", "Connected peers.", func() float64 { return float64(n.backend.PeerCount()) })
	p2pnet.Metrics(r, n.net.Load)
	r.GaugeFunc("chaind_store_bytes", "Bytes of the data directory's tables and log (0 in memory).", func() float64 {
		if s, ok := n.kv.(interface{ Size() int64 }); ok {
			return float64(s.Size())
		}
		return 0
	})
	n.openChainMetrics(r)
	chainmetrics.RegisterGo(r)
	if err := chainmetrics.RegisterProcess(r); err != nil {
		n.log.Warn("no process metrics", "err", err)
	}
}

// metricsListener is the /metrics port, when on: built through the front
// like every listener (so its host checks apply), with its own kind.
func (n *Node) metricsListener() []front.Listener {
	if !n.cfg.Ops.Metrics {
		return nil
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", n.metrics.Handler())
	return []front.Listener{{Kind: "metrics", Addr: net.JoinHostPort(n.cfg.Host, strconv.Itoa(n.cfg.Ops.MetricsPort)), Handler: mux}}
}

// Metrics is the node's metrics registry.
func (n *Node) Metrics() *chainmetrics.Registry { return n.metrics }

// blockInterval is the time between the head and its parent. The genesis
// carries the time its file was written (a --dev genesis a fixed date),
// not when the chain started, so the first block's distance from it is
// no block interval: until a second block follows it there is none.
func (n *Node) blockInterval() float64 {
	h := n.Chain.Head()
	if h.Number() <= n.Chain.Genesis().Number()+1 {
		return 0
	}
	p, err := n.Chain.BlockByNumber(h.Number() - 1)
	if err != nil || p.Time() > h.Time() {
		return 0
	}
	if pos.Of(n.Chain) != nil { // to the millisecond (pos.CheckTime)
		return float64(pos.TimeMs(h.HeaderRef())-pos.TimeMs(p.HeaderRef())) / 1000
	}
	return float64(h.Time() - p.Time())
}
