package node

import (
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/front"
	"github.com/chaind/chaind/internal/node/bft"
	"github.com/chaind/chaind/internal/store"
)

// health is whether the node does its job. A validator whose consensus
// stopped (on a transient error it is retrying, or a permanent one it
// fails on) is unhealthy whatever its RPC still answers, so that load
// balancers (/health), clients (eth_syncing) and monitoring (the
// chaind_consensus_healthy metric) stop trusting its head.
type health struct {
	down     atomic.Bool
	restarts atomic.Uint64 // driver restarts after transient errors

	mu       sync.Mutex
	reason   string
	since    time.Time
	headDown uint64        // head when consensus went down
	failure  error         // the permanent error, once failed
	failed   chan struct{} // closed on failure
}

// faults are a test's injected failures (nil: none): each wraps a store
// the node writes to.
type faults struct {
	kv    func(store.KV) store.KV
	state func(bft.StateStore) bft.StateStore
}

// setDown marks the node unhealthy for reason; the first call of an
// outage records when and at which head.
func (n *Node) setDown(reason string) {
	h := &n.health
	h.mu.Lock()
	defer h.mu.Unlock()
	if !h.down.Load() {
		h.since, h.headDown = time.Now(), n.Chain.Head().Number()
	}
	if h.failure == nil {
		h.reason = reason
	}
	h.down.Store(true)
}

// consensusDown records that the validator's driver stopped with a
// transient error and will be restarted after the back-off in.
func (n *Node) consensusDown(err error, in time.Duration) {
	n.setDown("consensus stopped: " + err.Error())
	n.health.restarts.Add(1)
	n.log.Error("consensus stopped by a transient error; restarting it", "err", err, "in", in, "head", n.Chain.Head().Number())
}

// consensusUp records that the validator works again: it committed a
// block or ran long enough without failing. Cheap when nothing was down.
func (n *Node) consensusUp() {
	h := &n.health
	if !h.down.Load() {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.failure != nil || !h.down.Load() {
		return // a failed node stays failed until the process restarts
	}
	n.log.Info("consensus recovered", "head", n.Chain.Head().Number(), "down for", time.Since(h.since).Round(time.Millisecond))
	h.down.Store(false)
	h.reason = ""
}

// fail records a permanent error: the node stays unhealthy and Failed is
// closed, on which the process exits non-zero (cmd/chaind) so that its
// supervisor restarts it from disk. Crash-only: nothing in process can be
// trusted to repair what the error broke, and everything committed is on
// disk already.
func (n *Node) fail(err error) {
	n.log.Error("consensus failed with a permanent error; the node must be restarted", "err", err)
	n.setDown(err.Error())
	h := &n.health
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.failure == nil {
		h.failure, h.reason = err, err.Error()
		close(h.failed)
	}
}

// Failed is closed when the node has failed permanently (Failure says
// why): its process should exit non-zero.
func (n *Node) Failed() <-chan struct{} { return n.health.failed }

// Failure is the permanent error the node failed on, nil before.
func (n *Node) Failure() error {
	n.health.mu.Lock()
	defer n.health.mu.Unlock()
	return n.health.failure
}

// Healthy reports whether the node works, and why not.
func (n *Node) Healthy() (bool, string) {
	h := &n.health
	if !h.down.Load() {
		return true, ""
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return false, h.reason
}

// stalled is the sync progress a validator whose consensus is down
// reports through eth_syncing: the head it stopped at, and the highest
// head known (a peer's, when it has peers).
func (n *Node) stalled(highest uint64) (backend.SyncProgress, bool) {
	h := &n.health
	if !h.down.Load() {
		return backend.SyncProgress{}, false
	}
	h.mu.Lock()
	start := h.headDown
	h.mu.Unlock()
	head := n.Chain.Head().Number()
	return backend.SyncProgress{StartingBlock: start, CurrentBlock: head, HighestBlock: max(head, highest)}, true
}

// healthPaths are the routes of the health check on the JSON-RPC port:
// /health as many node operators probe it, /readyz as Kubernetes does.
var healthPaths = []string{"/health", "/readyz"}

// withHealth serves the health check beside the listener's handler.
func (n *Node) withHealth(l front.Listener) front.Listener {
	mux := http.NewServeMux()
	for _, p := range healthPaths {
		mux.HandleFunc(p, n.serveHealth)
	}
	mux.Handle("/", l.Handler)
	l.Handler = mux
	return l
}

// serveHealth answers 200 {"status":"ok"} or 503 with the reason.
func (n *Node) serveHealth(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	type answer struct {
		Status string `json:"status"`
		Reason string `json:"reason,omitempty"`
		Head   uint64 `json:"head"`
	}
	a := answer{Status: "ok", Head: n.Chain.Head().Number()}
	code := http.StatusOK
	if ok, reason := n.Healthy(); !ok {
		a.Status, a.Reason, code = "unhealthy", reason, http.StatusServiceUnavailable
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(code)
	if r.Method == http.MethodGet {
		json.NewEncoder(w).Encode(a)
	}
}
