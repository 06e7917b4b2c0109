package node

import (
	"net"
	"net/http"
	"strconv"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/front"
	chainmetrics "github.com/chaind/chaind/internal/metrics"
	"github.com/chaind/chaind/internal/node/nodemetrics"
	"github.com/chaind/chaind/internal/node/p2pnet"
	"github.com/chaind/chaind/internal/pos"
	"github.com/chaind/chaind/internal/types"
)

// openMetrics registers what the node exposes on /metrics. The registry
// exists even when the listener is off, so counting costs the same either
// way and tests can read it.
func (n *Node) openMetrics() {
	r := chainmetrics.New()
	n.metrics = r
	nodemetrics.RegisterRPC(r, n.RPC)
	n.http = nodemetrics.NewHTTP(r)
	n.prunePause = r.NewHistogramVec("chaind_prune_pause_seconds", "Time a pruning pass could hold up block production, by kind: state (per slice of deletes, the lock a commit also takes), state-wait (a commit waiting for the deletes of a node it writes again) or history (per slice, the chain's lock).", chainmetrics.DefaultBuckets, "kind")
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
	var me *types.Address
	if n.cfg.Validator != nil {
		a := types.Address(crypto.AddressOf(n.cfg.Validator))
		me = &a
	}
	n.chainm = nodemetrics.RegisterChain(r, nodemetrics.Sources{
		Chain: n.Chain, PoolBytes: n.Pool.Bytes, PoolStats: n.Pool.Stats, PoolSubscriberDrops: n.Pool.SubscriberDrops, Validators: func() consensus.ValidatorSource {
			if v := n.Validators(); v != nil { // the running consensus's, or before it starts the chain's own
				return v
			}
			if e := pos.Of(n.Chain); e != nil {
				return e.Validators(n.Chain)
			}
			return nil
		}, Validator: me,
		Syncing: func() bool {
			if nn := n.net.Load(); nn != nil {
				_, ok := nn.Progress()
				return ok
			}
			return false
		},
		Best: func() uint64 {
			if nn := n.net.Load(); nn != nil {
				return nn.BestHeight()
			}
			return 0
		},
	})
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
