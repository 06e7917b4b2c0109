// Package explorer serves the block explorer: a JSON API under /api/ and
// the web page that reads it, embedded in the binary. It reads the node
// only through package backend, and every listing it serves comes from the
// node's history index, so no request scans the chain.
//
// Answers carry "success": true; failures are {"success": false, "error":
// "..."} with 400 for input that cannot be right, 404 for something the
// node does not have and 405 for a method other than GET or HEAD.
package explorer

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/front"
	"github.com/chaind/chaind/internal/types"
)

// Backend is what the explorer reads.
type Backend interface {
	backend.Blocks
	backend.Receipts
	backend.TxIndex
	backend.ChainConfig
	backend.StateReader
	backend.History
	backend.TxPool
	backend.Tracer
}

// RoleReader tells the staking roles of an address ("validator",
// "delegator", ...). The staking module provides it; without one the
// explorer knows validators only from the validator set.
type RoleReader interface {
	Roles(addr types.Address) ([]string, error)
}

// Config is what an explorer serves from.
type Config struct {
	Backend    Backend
	Validators backend.Validators // the validator set and its cycles
	Roles      RoleReader         // optional
	// Staking, Governance and Signing read the proof-of-stake state; nil
	// (or a chain without staking) leaves the validator pages to the
	// validator set and serves no governance.
	Staking    backend.Staking
	Governance backend.Governance
	Signing    backend.Signing
	// WebSocket returns the URL of the node's JSON-RPC WebSocket, which the
	// page subscribes to newHeads on; "" when none is served. The host may
	// be empty ("ws://:8546"): the page then uses its own.
	WebSocket func() string
}

// Explorer is the explorer's HTTP handler.
type Explorer struct {
	cfg Config
	mux *http.ServeMux

	blockMu    sync.Mutex
	blockCache map[types.Hash]cachedBlock // rendered canonical blocks
	blockOrder []types.Hash

	abi   *systemABI // the system contracts' calls and events
	stake stakeState
}

// New returns the explorer of a backend.
func New(cfg Config) *Explorer {
	e := &Explorer{cfg: cfg, mux: http.NewServeMux(), blockCache: map[types.Hash]cachedBlock{}}
	if cfg.Signing != nil {
		e.abi = newSystemABI(cfg.Signing.SystemContracts())
	}
	api := map[string]func(*http.Request) (any, error){
		"/api/block/{id}":       e.block,
		"/api/blocks":           e.blocks,
		"/api/transaction/{id}": e.transaction,
		"/api/transaction":      e.transactions,
		"/api/account/{id}":     e.account,
		"/api/validators":       e.validators,
		"/api/validator/{id}":   e.validator,
		"/api/cycles":           e.cycles,
		"/api/cycle/{id}":       e.cycle,
		"/api/stats":            e.stats,
		"/api/chart":            e.chart,
		"/api/proposals":        e.proposals,
		"/api/proposal/{id}":    e.proposal,
		"/api/config":           e.config,
	}
	for path, fn := range api {
		e.mux.Handle(path, apiHandler(fn))
	}
	e.mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, &apiError{http.StatusNotFound, "no such endpoint: " + r.URL.Path})
	})
	e.mux.Handle("/", pageHandler())
	return e
}

// ServeHTTP serves the API and the page.
func (e *Explorer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		writeError(w, &apiError{http.StatusMethodNotAllowed, "method " + r.Method + " not allowed"})
		return
	}
	e.mux.ServeHTTP(w, r)
}

// Options are the front options of the explorer's listener: refusals in
// its own JSON error shape.
func Options(cors []string, vhosts []string) front.Options {
	return front.Options{CORSOrigins: cors, VirtualHosts: vhosts, Refuse: Refuse}
}

// Refuse writes a refusal of the front (rate limit, host, ...) as the
// explorer's JSON error.
func Refuse(w http.ResponseWriter, _ *http.Request, ref front.Refusal) {
	writeError(w, &apiError{ref.Status, ref.Message})
}

// apiError is a failure with its HTTP status.
type apiError struct {
	status int
	msg    string
}

func (e *apiError) Error() string { return e.msg }

func badRequest(msg string) error { return &apiError{http.StatusBadRequest, msg} }
func notFound(msg string) error   { return &apiError{http.StatusNotFound, msg} }

// raw is an answer already rendered.
type raw []byte

func apiHandler(fn func(*http.Request) (any, error)) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		v, err := fn(r)
		if err != nil {
			writeError(w, err)
			return
		}
		body, ok := v.(raw)
		if !ok {
			if body, err = json.Marshal(v); err != nil {
				writeError(w, err)
				return
			}
		}
		h := w.Header()
		h.Set("Content-Type", "application/json")
		h.Set("Cache-Control", "no-cache")
		w.Write(body)
	})
}

func writeError(w http.ResponseWriter, err error) {
	var ae *apiError
	switch {
	case errors.As(err, &ae):
	case errors.Is(err, backend.ErrNotFound), errors.Is(err, backend.ErrCycleNotFound),
		errors.Is(err, backend.ErrValidatorNotFound), errors.Is(err, backend.ErrProposalNotFound):
		ae = &apiError{http.StatusNotFound, err.Error()}
	case errors.Is(err, backend.ErrNotIndexed):
		ae = &apiError{http.StatusNotFound, "that range is older than this node's history index"}
	default:
		ae = &apiError{http.StatusInternalServerError, err.Error()}
	}
	body, _ := json.Marshal(struct {
		Success bool   `json:"success"`
		Error   string `json:"error"`
	}{false, ae.msg})
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(ae.status)
	w.Write(body)
}

// config tells the page what it needs to know about the node.
func (e *Explorer) config(*http.Request) (any, error) {
	ws := ""
	if e.cfg.WebSocket != nil {
		ws = e.cfg.WebSocket()
	}
	return struct {
		Success   bool   `json:"success"`
		ChainID   uint64 `json:"chainId"`
		WebSocket string `json:"webSocket"`
		Symbol    string `json:"symbol"`
		Decimals  int    `json:"decimals"`
		Staking   bool   `json:"staking"` // validators have stake; governance is on
	}{true, e.cfg.Backend.ChainID(), ws, "CHAIN", 18, e.stakingOn()}, nil
}

// trimID is a path value without surrounding space.
func trimID(r *http.Request) string { return strings.TrimSpace(r.PathValue("id")) }
