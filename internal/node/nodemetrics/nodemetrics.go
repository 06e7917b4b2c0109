// Package nodemetrics registers the families a node reports about its
// chain (block execution, gas, transactions), its validator (signed and
// missed blocks, voting power), sync progress, the pool and its HTTP
// listeners. The node hands it what to read at wiring time (Sources); it
// reads nothing else.
package nodemetrics

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/front"
	"github.com/chaind/chaind/internal/metrics"
	"github.com/chaind/chaind/internal/pos"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
)

// Bucket bounds of the per-block histograms.
var (
	blockSecondsBuckets = []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}
	blockGasBuckets     = []float64{0, 21_000, 100_000, 500_000, 1e6, 2.5e6, 5e6, 1e7, 1.5e7, 2e7, 3e7, 4.5e7, 6e7, 1e8}
	blockTxsBuckets     = []float64{0, 1, 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000}
)

// Sources is what the chain families read.
type Sources struct {
	Chain *chain.Chain
	// PoolBytes is the bytes the pool's transactions take; PoolStats its
	// pending and queued transactions.
	PoolBytes func() int64
	PoolStats func() (pending, queued int)
	// PoolSubscriberDrops counts the transactions the pool's subscribers
	// (gossip, RPC feeds, the warmer) missed with their buffers full.
	PoolSubscriberDrops func() uint64
	// Validators is the node's validator sets (nil on a chain without).
	Validators func() consensus.ValidatorSource
	// Validator is this node's validator address; nil if it validates not.
	Validator *types.Address
	// Syncing reports whether the node catches up with its peers; Best is
	// the highest head a peer has told of (0 without a network).
	Syncing func() bool
	Best    func() uint64
}

// Chain holds the families of one node's chain.
type Chain struct {
	src            Sources
	signed, missed *metrics.CounterVec
}

// RegisterChain registers the families of blocks, validators, sync and
// the pool on r, and has the chain report its work on each block.
func RegisterChain(r *metrics.Registry, s Sources) *Chain {
	c := &Chain{src: s}
	r.GaugeFunc("chaind_head_number", "Number of the head block.", func() float64 { return float64(s.Chain.Head().Number()) })
	r.GaugeFunc("chaind_head_timestamp_seconds", "Timestamp of the head block.", func() float64 { return float64(s.Chain.Head().Time()) })
	r.GaugeFunc("chaind_block_interval_seconds", "Time between the head block and its parent (0 until the chain has two blocks after its genesis).", c.BlockInterval)
	r.GaugeFunc("chaind_txpool_pending", "Transactions in the pool ready to be included.", func() float64 {
		p, _ := s.PoolStats()
		return float64(p)
	})
	r.GaugeFunc("chaind_txpool_queued", "Transactions in the pool waiting for a nonce gap to close.", func() float64 {
		_, q := s.PoolStats()
		return float64(q)
	})
	exec := r.NewHistogramVec("chaind_block_execution_seconds", "Time to execute a block's transactions and end-of-block rules, by source: built (proposed by this node) or validated (from a validator, sync or an import).", blockSecondsBuckets, "source")
	commit := r.NewHistogramVec("chaind_block_commit_seconds", "Time to commit a block's state and store it as the new head.", blockSecondsBuckets)
	gas := r.NewHistogramVec("chaind_block_gas_used", "Gas used by each block that became the head (the sum is all gas used since start).", blockGasBuckets)
	txs := r.NewHistogramVec("chaind_block_transactions", "Transactions in each block that became the head (the sum is all transactions since start).", blockTxsBuckets)
	s.Chain.SetObserver(chain.Observer{
		Executed: func(_ *types.Block, built bool, d time.Duration) {
			src := "validated"
			if built {
				src = "built"
			}
			exec.Observe(d.Seconds(), src)
		},
		Committed: func(b *types.Block, d time.Duration) {
			commit.Observe(d.Seconds())
			gas.Observe(float64(b.GasUsed()))
			txs.Observe(float64(len(b.Transactions())))
		},
	})
	r.GaugeFunc("chaind_head_gas_used", "Gas used by the head block.", func() float64 { return float64(s.Chain.Head().GasUsed()) })
	r.GaugeFunc("chaind_head_gas_limit", "Gas limit of the head block.", func() float64 { return float64(s.Chain.Head().GasLimit()) })
	r.GaugeFunc("chaind_head_transactions", "Transactions in the head block.", func() float64 { return float64(len(s.Chain.Head().Transactions())) })
	r.GaugeFunc("chaind_txpool_bytes", "Bytes the pool's transactions take (encoded, with blob sidecars).", func() float64 { return float64(s.PoolBytes()) })
	r.CounterFunc("chaind_txpool_subscriber_dropped_total", "Executable transactions a pool subscriber (gossip, RPC feeds, the account warmer) missed because its buffer was full in count or bytes.", func() float64 { return float64(s.PoolSubscriberDrops()) })

	c.signed = r.NewCounterVec("chaind_validator_signed_blocks_total", "Blocks since start whose certificate, as the next block records it, holds this validator's precommit (0 on a node that does not validate).")
	c.missed = r.NewCounterVec("chaind_validator_missed_blocks_total", "Blocks since start for which this validator was in the set but the next block records its precommit as absent.")
	c.signed.Add(0)
	c.missed.Add(0)
	r.GaugeFunc("chaind_validator_voting_power", "This validator's voting power in the set of the next height (0 out of the set or on a node that does not validate).", func() float64 {
		set := c.nextSet()
		if set == nil || s.Validator == nil {
			return 0
		}
		return float64(set.Power(*s.Validator))
	})
	r.GaugeFunc("chaind_validator_set_voting_power", "Total voting power of the validator set of the next height (0 on a chain without one).", func() float64 {
		if set := c.nextSet(); set != nil {
			return float64(set.TotalPower())
		}
		return 0
	})
	r.GaugeFunc("chaind_validator_set_size", "Validators in the set of the next height (0 on a chain without one).", func() float64 {
		if set := c.nextSet(); set != nil {
			return float64(set.Len())
		}
		return 0
	})

	registerCaches(r, s.Chain)

	r.GaugeFunc("chaind_sync_syncing", "1 while the node catches up with its peers' blocks, else 0.", func() float64 {
		if s.Syncing() {
			return 1
		}
		return 0
	})
	r.GaugeFunc("chaind_sync_highest_block", "Highest head a peer has told of, or this node's own head if higher.", func() float64 {
		highest, _ := c.syncLag()
		return float64(highest)
	})
	r.GaugeFunc("chaind_sync_lag_blocks", "Blocks between the highest head a peer has told of and this node's head.", func() float64 {
		_, lag := c.syncLag()
		return float64(lag)
	})
	return c
}

// registerCaches registers the read caches' use: how each served (the
// hit rates --cache's split is judged by) and what it holds, and the
// store's pinned index and filter blocks.
func registerCaches(r *metrics.Registry, c *chain.Chain) {
	each := func(f func(u chain.CacheUse) float64) func(metrics.Emit) {
		return func(emit metrics.Emit) {
			caches, _, _ := c.Caches()
			for _, u := range caches {
				emit(f(u), u.Name)
			}
		}
	}
	labels := []string{"cache"}
	r.CounterVecFunc("chaind_cache_hits_total", "Lookups a read cache answered, by cache: trie_nodes (the chain's trie nodes), state_reads (accounts and slots by state root), code, store_blocks (the store's block cache).", labels, each(func(u chain.CacheUse) float64 { return float64(u.Hits) }))
	r.CounterVecFunc("chaind_cache_misses_total", "Lookups a read cache did not answer, by cache (as chaind_cache_hits_total).", labels, each(func(u chain.CacheUse) float64 { return float64(u.Misses) }))
	r.GaugeVecFunc("chaind_cache_bytes", "Bytes a read cache holds, by cache (as chaind_cache_hits_total).", labels, each(func(u chain.CacheUse) float64 { return float64(u.Bytes) }))
	ofStore := func(f func(st store.CacheStats) float64) func() float64 {
		return func() float64 {
			if _, st, ok := c.Caches(); ok {
				return f(st)
			}
			return 0
		}
	}
	r.GaugeFunc("chaind_store_pinned_bytes", "Bytes of the tables' index and filter blocks the store holds pinned (taken from its block cache's share of --cache).", ofStore(func(st store.CacheStats) float64 { return float64(st.PinnedBytes) }))
	r.GaugeFunc("chaind_store_pinned_tables", "Tables whose index and filter blocks are pinned.", ofStore(func(st store.CacheStats) float64 { return float64(st.PinnedTables) }))
	r.GaugeFunc("chaind_store_tables", "Tables of the store.", ofStore(func(st store.CacheStats) float64 { return float64(st.Tables) }))
}

// nextSet is the validator set of the height after the head, nil when
// the chain has none.
func (c *Chain) nextSet() *consensus.ValidatorSet {
	src := c.src.Validators()
	if src == nil {
		return nil
	}
	set, err := src.ValidatorSet(c.src.Chain.Head().Number() + 1)
	if err != nil {
		return nil
	}
	return set
}

// syncLag is the highest head known (a peer's or this node's own) and how
// far this node's head is behind it, from one read of the head.
func (c *Chain) syncLag() (highest, lag uint64) {
	head := c.src.Chain.Head().Number()
	highest = max(c.src.Best(), head)
	return highest, highest - head
}

// FollowSigning counts, for a validator on a proof-of-stake chain and
// until stop is closed, each block from the start on as signed or
// missed: block h+1 names the validators of height h whose precommit
// for h was absent from the certificate it commits to
// (pos.ConsensusData). Blocks a busy moment skipped in the subscription
// are read back by number, so none is left out.
func (c *Chain) FollowSigning(stop <-chan struct{}) {
	if c.src.Validator == nil || pos.Of(c.src.Chain) == nil {
		return
	}
	me := *c.src.Validator
	heads, unsub := c.src.Chain.Subscribe(64)
	defer unsub()
	next := c.src.Chain.Head().Number() + 1
	for {
		select {
		case <-stop:
			return
		case head, ok := <-heads:
			if !ok {
				return
			}
			if head.Number() < next-1 {
				next = head.Number() // the head went back (a dev reset): count from the new one
			}
			for ; next <= head.Number(); next++ {
				b := head
				if next != head.Number() {
					var err error
					if b, err = c.src.Chain.BlockByNumber(next); err != nil {
						break
					}
				}
				c.CountSigning(me, b)
			}
		}
	}
}

// CountSigning counts block b for validator me: missed if b records me
// absent from its parent's certificate, signed if not, neither if the
// parent's set leaves me out.
func (c *Chain) CountSigning(me types.Address, b *types.Block) {
	if b.Number() < 2 { // the genesis has no certificate
		return
	}
	src := c.src.Validators()
	if src == nil {
		return
	}
	set, err := src.ValidatorSet(b.Number() - 1)
	if err != nil {
		return
	}
	if _, in := set.Index(me); !in {
		return
	}
	data, err := pos.DecodeConsensusData(b.HeaderRef().Extra)
	if err != nil {
		return
	}
	for _, a := range data.Absent {
		if a == me {
			c.missed.Add(1)
			return
		}
	}
	c.signed.Add(1)
}

// Signed and Missed are the counts so far.
func (c *Chain) Signed() float64 { return c.signed.Value() }
func (c *Chain) Missed() float64 { return c.missed.Value() }

// HTTP counts's requests, by listener kind, the
// API the request went to and its status.
type HTTP struct {
	reqs *metrics.CounterVec
	lat  *metrics.HistogramVec
	// GRPC is the observer of the gRPC calls the listeners serve
	// (NewGRPC; grpcsrv.Server.Observe).
	GRPC func(method string, code int, d time.Duration)
}

// NewHTTP registers the families of HTTP requests on r, and of the gRPC
// calls among them (GRPC).
func NewHTTP(r *metrics.Registry) *HTTP {
	return &HTTP{
		reqs: r.NewCounterVec("chaind_http_requests_total", "HTTP requests answered, by listener (its kind: http, ws, rest, grpc, cometrpc, explorer, metrics), API (jsonrpc, graphql, websocket for upgrades, health, ops, or the listener's kind) and status code; the front's refusals (429, 413...) included.", "listener", "api", "code"),
		lat:  r.NewHistogramVec("chaind_http_request_duration_seconds", "Time to answer an HTTP request, by listener and API (for a WebSocket, the time to the upgrade).", metrics.DefaultBuckets, "listener", "api"),
		GRPC: NewGRPC(r),
	}
}

// Routes names what a request to a JSON-RPC port went to: those ports
// also carry GraphQL, the health check, the debug routes and WebSocket
// upgrades. The other listeners serve one API each, named by their kind.
type Routes struct {
	IsGraphQL func(*http.Request) bool
	Health    []string // health check paths
	OpsPaths  []string // debug routes served at exactly these paths
	OpsPrefix string   // and every path under this prefix
}

// Observe has the front report each listener's requests.
func (m *HTTP) Observe(ls []front.Listener, routes Routes) {
	for i := range ls {
		kind := ls[i].Kind
		ls[i].Options.Observe = func(r *http.Request, status int, d time.Duration) {
			api := routes.api(kind, r, status)
			m.reqs.Add(1, kind, api, strconv.Itoa(status))
			m.lat.Observe(d.Seconds(), kind, api)
		}
	}
}

// api names what a request went to: a fixed few values whatever the
// client sends.
func (rt Routes) api(kind string, r *http.Request, status int) string {
	switch {
	case status == http.StatusSwitchingProtocols:
		return "websocket"
	case kind != "http" && kind != "ws":
		return kind
	case rt.IsGraphQL(r):
		return "graphql"
	case slices.Contains(rt.Health, r.URL.Path):
		return "health"
	case slices.Contains(rt.OpsPaths, r.URL.Path) || (rt.OpsPrefix != "" && strings.HasPrefix(r.URL.Path, rt.OpsPrefix)):
		return "ops"
	}
	return "jsonrpc"
}

// BlockInterval is the time between the head and its parent. The genesis
// carries the time its file was written (a --dev genesis a fixed date),
// not when the chain started, so the first block's distance from it is
// no block interval: until a second block follows it there is none.
func (c *Chain) BlockInterval() float64 {
	h := c.src.Chain.Head()
	if h.Number() <= c.src.Chain.Genesis().Number()+1 {
		return 0
	}
	p, err := c.src.Chain.BlockByNumber(h.Number() - 1)
	if err != nil || p.Time() > h.Time() {
		return 0
	}
	if pos.Of(c.src.Chain) != nil { // to the millisecond (pos.CheckTime)
		return float64(pos.TimeMs(h.HeaderRef())-pos.TimeMs(p.HeaderRef())) / 1000
	}
	return float64(h.Time() - p.Time())
}

// RegisterRPC registers the JSON-RPC families of srv: calls by method and
// outcome, their latency, and WebSocket connections.
func RegisterRPC(r *metrics.Registry, srv *rpc.Server) {
	calls := r.NewCounterVec("chaind_rpc_requests_total", "JSON-RPC calls, by method and outcome (ok or error); calls of methods the port does not serve count as method other.", "method", "outcome")
	lat := r.NewHistogramVec("chaind_rpc_request_duration_seconds", "Time to serve a JSON-RPC call, by method.", metrics.DefaultBuckets, "method")
	srv.Observe(func(_ context.Context, c rpc.Call) {
		outcome := "ok"
		if c.Err != nil {
			outcome = "error"
		}
		calls.Add(1, c.Method, outcome)
		lat.Observe(c.Duration.Seconds(), c.Method)
	})
	// Names the node does not serve are the client's to invent: one label.
	srv.ObserveUnknown(func(context.Context) { calls.Add(1, "other", "error") })
	r.GaugeFunc("chaind_rpc_websocket_connections", "JSON-RPC WebSocket connections open now, over the HTTP and WebSocket ports.", func() float64 {
		open, _ := srv.WebSocketConns()
		return float64(open)
	})
	r.CounterFunc("chaind_rpc_websocket_connections_total", "JSON-RPC WebSocket connections accepted.", func() float64 {
		_, total := srv.WebSocketConns()
		return float64(total)
	})
}

// grpcCodes are the gRPC status codes by number, as Prometheus gRPC
// exporters label them.
var grpcCodes = []string{"OK", "Canceled", "Unknown", "InvalidArgument", "DeadlineExceeded", "NotFound", "AlreadyExists",
	"PermissionDenied", "ResourceExhausted", "FailedPrecondition", "Aborted", "OutOfRange", "Unimplemented", "Internal",
	"Unavailable", "DataLoss", "Unauthenticated"}

// NewGRPC registers the gRPC port's families on r, calls by method and
// status code and their latency by method, and returns the observer the
// gRPC server reports to (grpcsrv.Server.Observe).
func NewGRPC(r *metrics.Registry) func(method string, code int, d time.Duration) {
	calls := r.NewCounterVec("chaind_grpc_requests_total", "gRPC calls answered, by method (full name; other for one the port does not serve) and status code (its name; http for a request refused before gRPC).", "method", "code")
	lat := r.NewHistogramVec("chaind_grpc_request_duration_seconds", "Time to answer a gRPC call, by method.", metrics.DefaultBuckets, "method")
	return func(method string, code int, d time.Duration) {
		name := "http"
		if code >= 0 && code < len(grpcCodes) {
			name = grpcCodes[code]
		} else if code >= 0 {
			name = "Unknown"
		}
		calls.Add(1, method, name)
		lat.Observe(d.Seconds(), method)
	}
}
