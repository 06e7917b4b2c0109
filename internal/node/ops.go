package node

import (
	"encoding/json"
	"net/http"
	"net/netip"
	"path/filepath"
	"time"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/fdlimit"
	"github.com/chaind/chaind/internal/front"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/rpc"
	"github.com/chaind/chaind/rpc/opslog"
)

// OpsConfig is what an operator of a public node sets beyond the ports:
// the debug routes' passphrase, where the client address comes from, and
// the capture's size.
type OpsConfig struct {
	// DebugPassphrase turns on POST /authenticate and the /log/* routes
	// of the JSON-RPC port; without it they answer 404.
	DebugPassphrase []byte
	// CaptureBytes bounds each debug capture table (0: 16 MiB).
	CaptureBytes int64
	// TrustedProxies are the peers whose X-Forwarded-For names the client
	// (for limits and captured transactions).
	TrustedProxies []netip.Prefix
	// DebugTrusted are the operator's addresses: their logins are held
	// to their own failures only, never to the lock-out that failures
	// from many addresses put on everyone else.
	DebugTrusted []netip.Prefix
	// Limits override the public limits and the per-call caps.
	Limits Limits
	// Metrics serves Prometheus text on /metrics of MetricsPort (0: any
	// free port).
	Metrics     bool
	MetricsPort int
}

// Limits are the node's configurable limits; a zero field keeps its default. The per-client
// rates and connections apply only to a Public node; the caps on single calls and queues (batch,
// body, response, logs, eth_call, WebSocket, the transaction pool's bytes) protect every node.
type Limits struct {
	PerSecond, PerMinute, Conns int // per client address (defaults 10, 600, 5)

	Batch         int   // calls per batch (1000)
	BodyBytes     int64 // request body (5 MiB)
	ResponseBytes int64 // batch response (25 MiB)
	TxPoolBytes   int64 // the transaction pool, blob sidecars included (txpool.Config.MaxBytes, 256 MiB)

	LogRange   uint64 // eth_getLogs block range (10,000)
	LogResults int    // eth_getLogs results (10,000)

	CallGas     uint64        // gas of eth_call, eth_estimateGas, ... (50M)
	CallTimeout time.Duration // time of the same (5 s)
	// CallReturnData caps eth_call's return data in bytes
	// (ethapi.DefaultReturnDataLimit, 1 MiB).
	CallReturnData int

	// FDReserve is how many open files the node keeps for itself (the
	// store, p2p peers, logs) out of the process's limit; the listeners'
	// connection caps share the rest, and the store holds at most what is
	// left of it after 64 for the node and 4 per p2p peer open as table
	// files (0: 1024 plus 4 per p2p peer, 960 of them the store's tables;
	// see fdReserve).
	FDReserve int

	WSSubs  int // subscriptions per WebSocket connection (100)
	WSQueue int // outbound messages waiting per connection before it is cut (4096)
	// WSQueueBytes is the bytes waiting per connection before it is cut
	// with close code 1008 (16 MiB).
	WSQueueBytes int64

	// H2Resets and H2Control bound, per gRPC connection and second, the
	// streams reset and the control frames (PING, SETTINGS, empty
	// frames), past which it gets GOAWAY ENHANCE_YOUR_CALM
	// (h2.DefaultResetsPerSecond, 100, and DefaultControlPerSecond, 1000).
	H2Resets, H2Control int
}

// public is the per-client limits of a Public node.
func (l Limits) public() front.Limits {
	out := front.PublicLimits
	if l.PerSecond > 0 {
		out.PerSecond = l.PerSecond
	}
	if l.PerMinute > 0 {
		out.PerMinute = l.PerMinute
	}
	if l.Conns > 0 {
		out.Conns = l.Conns
	}
	return out
}

// minClientFDs is the least the listeners get together however tight the
// file limit: a node nobody can query is no use either.
const minClientFDs = 64

// The descriptors the node reserves for itself, beside its store's table
// files: the store's log, manifest, lock and tip files, the debug
// capture, name lookups and the like (nodeFDs), and each p2p peer's
// connection and dials (fdsPerPeer).
const (
	nodeFDs    = 64
	fdsPerPeer = 4
	// minStoreTables is the least the store may hold open, however small
	// the reserve: fewer would reopen a table file for nearly every read.
	minStoreTables = 32
	// minHandshakeFDs is the fewest inbound handshakes the p2p budget
	// leaves room for beside the peers, so peers can still come and go.
	minHandshakeFDs = 8
)

// fdReserve is how many descriptors the node keeps out of the listeners'
// reach (reserve) and how many of them its store may hold open as table
// files (tables): one rule, so the store never uses more than the
// listeners leave it. By default the store gets
// store.DefaultMaxOpenTables; a reserve set with --limits.fd-reserve
// gives the store what is left of it after the node's own and the peers'.
func (c *Config) fdReserve() (reserve, tables int) {
	own := nodeFDs + c.p2pFDs()
	if r := c.Ops.Limits.FDReserve; r > 0 {
		return r, max(r-own, minStoreTables)
	}
	return own + store.DefaultMaxOpenTables, store.DefaultMaxOpenTables
}

// StoreOptions are the options of the node's store: its cache (what the
// chain's node cache leaves), the table files fdReserve leaves it, a quiet start.
func (c *Config) StoreOptions() store.Options {
	_, tables := c.fdReserve()
	return store.Options{CacheMiB: c.CacheMiB - chain.NodeCacheMiB(c.CacheMiB), MaxOpenTables: tables, QuietStart: store.NodeQuietStart}
}

// p2pFDs is the part of the reserve the p2p host may hold, handed to it
// as its descriptor budget (p2p.Config.FDBudget), which its peers, the
// static peers it dials past MaxPeers and its handshakes in progress must
// fit: fdsPerPeer per peer, and room for at least minHandshakeFDs
// handshakes however few peers are allowed.
func (c *Config) p2pFDs() int {
	peers, static := 50, 0
	if c.P2P != nil {
		if c.P2P.MaxPeers > 0 {
			peers = c.P2P.MaxPeers
		}
		static = len(c.P2P.StaticPeers)
	}
	return max(fdsPerPeer*peers, peers+minHandshakeFDs) + static
}

// capListeners gives each listener its share of the descriptors left for
// clients once the node's own are reserved, so that clients, however
// many, can never take the descriptors the store and consensus need. The
// process's limit was raised to its hard limit at start (fdlimit.Raise,
// cmd/chaind; Go's runtime does the same since 1.19).
func (n *Node) capListeners(ls []front.Listener) {
	limit, err := fdlimit.Current()
	if err != nil {
		n.log.Warn("open-file limit unknown: listeners have no global connection cap", "err", err)
		return
	}
	reserve, tables := n.cfg.fdReserve()
	share := fdlimit.Split(fdlimit.Budget(limit, reserve, minClientFDs), len(ls))
	for i := range ls {
		ls[i].MaxConns = share
	}
	n.log.Info("connection caps", "open_files", limit, "reserved", reserve, "store_tables", tables, "per_listener", share)
}

func (l Limits) applyRPC(s *rpc.Server) {
	if l.Batch > 0 {
		s.BatchLimit = l.Batch
	}
	if l.ResponseBytes > 0 {
		s.ResponseLimit = l.ResponseBytes
	}
}

func (l Limits) ws() rpc.WSConfig {
	return rpc.WSConfig{MessageLimit: l.BodyBytes, QueueLimit: l.WSQueue, QueueBytes: l.WSQueueBytes, MaxSubs: l.WSSubs}
}

// openOps opens the debug capture, kept under the data directory, when a
// passphrase is set, and reports every served call to it.
func (n *Node) openOps() error {
	if len(n.cfg.Ops.DebugPassphrase) == 0 {
		return nil
	}
	dir := ""
	if n.cfg.DataDir != "" {
		dir = filepath.Join(n.cfg.DataDir, "debuglog")
	}
	l, err := opslog.New(opslog.Config{Passphrase: n.cfg.Ops.DebugPassphrase, Dir: dir, MaxBytes: n.cfg.Ops.CaptureBytes,
		Trusted: n.cfg.Ops.DebugTrusted})
	if err != nil {
		return err
	}
	n.opslog = l
	n.RPC.Observe(l.Observe)
	return nil
}

func (n *Node) closeOps() error {
	if n.opslog == nil {
		return nil
	}
	return n.opslog.Close()
}

// withOpsRoutes puts the login and debug routes in front of the JSON-RPC
// listener's handler, and the debug routes' token check in its options;
// with the routes off their paths answer 404, not the JSON-RPC port's
// health-probe 200.
func (n *Node) withOpsRoutes(l front.Listener) front.Listener {
	var ops http.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		json.NewEncoder(w).Encode(map[string]string{"message": "debug routes are off: start the node with --debug.passphrase-file or CHAIND_DEBUG_PASSPHRASE"})
	})
	if n.opslog != nil {
		ops = n.opslog.Handler(&l.Options)
	}
	mux := http.NewServeMux()
	mux.Handle("/authenticate", ops)
	mux.Handle(opslog.Prefix, ops)
	mux.Handle("/", l.Handler)
	l.Handler = mux
	return l
}
