// Package rpc is chaind's JSON-RPC 2.0 server: a hand-written codec and
// method registry served over HTTP (net/http) and WebSocket
// (github.com/coder/websocket), with batches, notifications, subscriptions
// and per-listener method sets. Limits, CORS and host checks are the
// shared HTTP front's (internal/front); this package charges each call of
// a batch or WebSocket message to the client's limits through it.
//
// It is the transport only and knows nothing of Ethereum: methods are
// plain functions over positional parameters, registered by the packages
// that define them (rpc/ethapi for the Ethereum namespaces), and a method
// chooses its error code by returning an *Error.
package rpc

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chaind/chaind/internal/front"
)

// Params are the positional parameters of a call, split but not decoded.
type Params []json.RawMessage

// Len is the number of parameters given.
func (p Params) Len() int { return len(p) }

// Has reports whether parameter i was given and is not null.
func (p Params) Has(i int) bool {
	return i < len(p) && !bytes.Equal(bytes.TrimSpace(p[i]), []byte("null"))
}

// Decode decodes parameter i into v; a missing parameter is an error.
func (p Params) Decode(i int, v any) error {
	if i >= len(p) {
		return InvalidParams(i, errors.New("missing value"))
	}
	if err := decodeParam(p[i], v); err != nil {
		return InvalidParams(i, err)
	}
	return nil
}

// Optional decodes parameter i into v when present and not null; it
// reports whether it did.
func (p Params) Optional(i int, v any) (bool, error) {
	if !p.Has(i) {
		return false, nil
	}
	return true, p.Decode(i, v)
}

// Handler serves one method. The result is marshalled with encoding/json
// (json.RawMessage passes through untouched).
type Handler func(ctx context.Context, params Params) (any, error)

// method is a registered handler and its parameter bounds.
type method struct {
	h         Handler
	minParams int
	maxParams int // -1: no upper bound
}

// Server dispatches JSON-RPC requests to registered methods.
type Server struct {
	mu      sync.RWMutex
	methods map[string]method
	log     *slog.Logger
	all     *view // every method: HandleMessage and listeners without an API list
	obs     []Observer
	unknown []func(ctx context.Context) // told of calls of methods not served (ObserveUnknown)
	why     map[string]string           // why a method is not served here (Unserved)
	// ws counts WebSocket connections: open now and accepted in all.
	ws struct {
		open  atomic.Int64
		total atomic.Uint64
	}

	BatchLimit    int   // items per batch (default 1000)
	ResponseLimit int64 // bytes per response, a whole batch's included (default 25 MiB)
}

// NewServer returns a server with no methods.
func NewServer(log *slog.Logger) *Server {
	if log == nil {
		log = slog.Default()
	}
	s := &Server{methods: map[string]method{}, log: log, BatchLimit: 1000, ResponseLimit: 25 << 20}
	s.all = &view{s: s}
	return s
}

// Register adds a method taking between min and max positional parameters
// (max -1 for no bound). Registering a name twice replaces it.
func (s *Server) Register(name string, min, max int, h Handler) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.methods[name] = method{h: h, minParams: min, maxParams: max}
}

// Unserved gives the reason name is not served on this node, which a
// call of it answers after "method not found" while no method of that
// name is registered: a method other nodes serve says why this one does
// not.
func (s *Server) Unserved(name, why string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.why == nil {
		s.why = map[string]string{}
	}
	s.why[name] = why
}

// errNotServed is the error of a call of a method not served: with the
// reason Unserved gave, when no method of that name is registered at all.
func (s *Server) errNotServed(name string, registered bool) *Error {
	err := errMethodNotFound(name)
	if !registered {
		s.mu.RLock()
		why := s.why[name]
		s.mu.RUnlock()
		if why != "" {
			err.Message += ": " + why
		}
	}
	return err
}

// Lookup returns the handler registered under name and its parameter
// bounds, so that a wrapper can be registered in its place.
func (s *Server) Lookup(name string) (h Handler, min, max int, ok bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	m, ok := s.methods[name]
	return m.h, m.minParams, m.maxParams, ok
}

// Call is one served call of a registered method, as observers see it.
type Call struct {
	Method   string
	Params   json.RawMessage // as sent
	Result   any             // nil on error
	Err      error
	Duration time.Duration
}

// An Observer is told of every call of a registered method once it has
// been served (unknown methods are not reported, so a client cannot grow
// an observer's tables with made-up names). It runs on the serving
// goroutine and must be quick.
type Observer func(ctx context.Context, c Call)

// Observe adds an observer of served calls.
func (s *Server) Observe(o Observer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.obs = append(slices.Clip(s.obs), o)
}

// ObserveUnknown adds an observer of calls of methods the server does
// not serve (on the port they came to). It is not told the name, which
// is the client's to make up: a metric counts them under one label.
func (s *Server) ObserveUnknown(o func(ctx context.Context)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.unknown = append(slices.Clip(s.unknown), o)
}

// WebSocketConns is how many WebSocket connections are open now and how
// many were accepted since the server started, over all its listeners.
func (s *Server) WebSocketConns() (open int64, total uint64) {
	return s.ws.open.Load(), s.ws.total.Load()
}

// Methods lists the registered method names, sorted.
func (s *Server) Methods() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	names := make([]string, 0, len(s.methods))
	for n := range s.methods {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// request is one decoded JSON-RPC request object.
type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

func (r *request) isNotification() bool { return r.ID == nil }

// validID reports whether the id is a string, a number or null, the only
// forms JSON-RPC 2.0 allows.
func validID(id json.RawMessage) bool {
	if id == nil {
		return true
	}
	switch c := bytes.TrimSpace(id); {
	case len(c) == 0:
		return false
	case c[0] == '"', c[0] == '-', c[0] >= '0' && c[0] <= '9':
		return true
	default:
		return string(c) == "null"
	}
}

// HandleMessage handles one HTTP body or WebSocket message (a request or a
// batch) with every registered method and returns the response bytes, or
// nil when there is nothing to send (only notifications).
func (s *Server) HandleMessage(ctx context.Context, msg []byte) []byte {
	if ctx == nil {
		// Callers outside a request (tests, tools) have passed nil; the
		// limits now look in the context, so give them an empty one.
		ctx = context.Background()
	}
	resp, _, _ := s.all.handle(ctx, msg)
	return resp
}

// view is one listener's window on the registry: the methods of the
// namespaces it serves; the others answer "method not found" as if they
// did not exist.
type view struct {
	s  *Server
	ns []string // nil: every namespace
}

// view returns the registry as seen by a listener serving the given
// namespaces (the part of a method name before its first '_'); nil serves
// everything.
func (s *Server) view(namespaces []string) *view {
	if namespaces == nil {
		return s.all
	}
	return &view{s: s, ns: slices.Clone(namespaces)}
}

func (v *view) allows(name string) bool {
	if v.ns == nil {
		return true
	}
	ns, _, _ := strings.Cut(name, "_")
	return slices.Contains(v.ns, ns)
}

// Namespaces lists the namespaces of the registered methods, sorted.
func (s *Server) Namespaces() []string {
	var out []string
	for _, m := range s.Methods() {
		ns, _, _ := strings.Cut(m, "_")
		if len(out) == 0 || out[len(out)-1] != ns {
			out = append(out, ns)
		}
	}
	return out
}

// handle serves one message. Its calls are charged to the client's rate
// limits first, all of them at once (each element of a batch is a call):
// when the charge is refused, nothing runs, limited is set with the
// front's wait, and resp holds a -32005 error for each request of the
// message, with its id.
func (v *view) handle(ctx context.Context, msg []byte) (resp []byte, wait time.Duration, limited bool) {
	msg = bytes.TrimSpace(msg)
	if len(msg) == 0 || msg[0] != '[' {
		if wait, ok := front.ClientFrom(ctx).Charge(1); !ok {
			return limitedResponse([]json.RawMessage{msg}, false, wait), wait, true
		}
		return v.handleOne(ctx, msg), 0, false
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(msg, &raws); err != nil {
		// A batch that cannot be read, an empty one or one over the cap
		// runs nothing, but answering it is work all the same: it costs
		// one call, and past the limits it is refused like any call, so
		// a flood of them is held to the client's rate.
		if wait, ok := front.ClientFrom(ctx).Charge(1); !ok {
			return limitedResponse([]json.RawMessage{nil}, false, wait), wait, true
		}
		return marshal(response{JSONRPC: "2.0", ID: nullID, Error: errParse}), 0, false
	}
	if len(raws) == 0 || len(raws) > v.s.BatchLimit {
		if wait, ok := front.ClientFrom(ctx).Charge(1); !ok {
			return limitedResponse([]json.RawMessage{nil}, false, wait), wait, true
		}
		if len(raws) == 0 {
			return marshal(response{JSONRPC: "2.0", ID: nullID, Error: errEmptyBatch}), 0, false
		}
		return marshal(response{JSONRPC: "2.0", ID: nullID, Error: &Error{Code: CodeInvalidRequest,
			Message: fmt.Sprintf("batch too large: %d items, limit %d", len(raws), v.s.BatchLimit)}}), 0, false
	}
	if wait, ok := front.ClientFrom(ctx).Charge(len(raws)); !ok {
		return limitedResponse(raws, true, wait), wait, true
	}
	var (
		out  bytes.Buffer
		size int64
		n    int
	)
	out.WriteByte('[')
	for _, raw := range raws {
		resp := v.handleOne(ctx, raw)
		if resp == nil {
			continue
		}
		size += int64(len(resp))
		if size > v.s.ResponseLimit {
			resp = marshal(response{JSONRPC: "2.0", ID: idOf(raw), Error: v.s.tooLarge()})
		}
		if n > 0 {
			out.WriteByte(',')
		}
		out.Write(resp)
		n++
	}
	if n == 0 {
		return nil, 0, false
	}
	out.WriteByte(']')
	return out.Bytes(), 0, false
}

// limitedResponse answers the requests of a refused message with -32005
// errors carrying their ids: one object for a single request, an array
// for a batch. Notifications get no entry; a message of nothing else gets
// nil.
func limitedResponse(reqs []json.RawMessage, batch bool, wait time.Duration) []byte {
	e := &Error{Code: CodeLimitExceeded, Message: front.Limited(wait).Message}
	var out []response
	for _, raw := range reqs {
		var r struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(raw, &r) == nil && r.ID == nil {
			continue // a notification
		}
		id := r.ID
		if id == nil || !validID(id) {
			id = nullID
		}
		out = append(out, response{JSONRPC: "2.0", ID: id, Error: e})
	}
	switch {
	case len(out) == 0:
		return nil
	case !batch:
		return marshal(out[0])
	}
	b, err := json.Marshal(out)
	if err != nil {
		return marshal(response{JSONRPC: "2.0", ID: nullID, Error: e})
	}
	return b
}

var nullID = json.RawMessage("null")

func idOf(raw json.RawMessage) json.RawMessage {
	var r struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(raw, &r) != nil || r.ID == nil || !validID(r.ID) {
		return nullID
	}
	return r.ID
}

func (v *view) handleOne(ctx context.Context, raw json.RawMessage) []byte {
	var req request
	if err := decodeRequest(raw, &req); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return marshal(response{JSONRPC: "2.0", ID: nullID, Error: errParse})
		}
		// Well-formed JSON of the wrong shape: a number, or a method that
		// is not a string.
		return marshal(response{JSONRPC: "2.0", ID: idOf(raw), Error: errInvalidRequest})
	}
	if req.JSONRPC != "2.0" || req.Method == "" || !validID(req.ID) {
		id := req.ID
		if id == nil || !validID(id) {
			id = nullID
		}
		return marshal(response{JSONRPC: "2.0", ID: id, Error: errInvalidRequest})
	}
	result, err := v.call(ctx, &req)
	if req.isNotification() {
		return nil
	}
	if err != nil {
		return marshal(response{JSONRPC: "2.0", ID: req.ID, Error: toError(err)})
	}
	// Assembled by hand: json.Marshal of the envelope would scan the
	// already-encoded result and id a second time.
	id := bytes.TrimSpace(req.ID)
	out := make([]byte, 0, len(id)+96)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, id...)
	out = append(out, `,"result":`...)
	out, merr := appendResult(out, result)
	if merr != nil {
		return marshal(response{JSONRPC: "2.0", ID: req.ID, Error: &Error{Code: CodeInternal, Message: "cannot encode result: " + merr.Error()}})
	}
	if int64(len(out)) >= v.s.ResponseLimit {
		// One answer over the cap is not sent whatever made it large.
		return marshal(response{JSONRPC: "2.0", ID: req.ID, Error: v.s.tooLarge()})
	}
	return append(out, '}')
}

// tooLarge is the error of an answer, or of the rest of a batch's
// answers, over ResponseLimit.
func (s *Server) tooLarge() *Error {
	return &Error{Code: CodeLimitExceeded, Message: fmt.Sprintf("response too large: over the %d-byte response limit", s.ResponseLimit)}
}

// call runs the handler, turning a panic into an internal error so one bad
// request cannot take the server down.
func (v *view) call(ctx context.Context, req *request) (result any, err error) {
	s := v.s
	s.mu.RLock()
	m, ok := s.methods[req.Method]
	obs, unknown := s.obs, s.unknown
	s.mu.RUnlock()
	if !ok || !v.allows(req.Method) {
		for _, o := range unknown {
			o(ctx)
		}
		return nil, s.errNotServed(req.Method, ok)
	}
	if len(obs) > 0 {
		start := time.Now()
		defer func() {
			c := Call{Method: req.Method, Params: req.Params, Result: result, Err: err, Duration: time.Since(start)}
			for _, o := range obs {
				o(ctx, c)
			}
		}()
	}
	params, perr := splitParams(req.Params)
	if perr != nil {
		return nil, perr
	}
	if len(params) < m.minParams {
		return nil, &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("missing value for required argument %d", len(params))}
	}
	if m.maxParams >= 0 && len(params) > m.maxParams {
		return nil, &Error{Code: CodeInvalidParams, Message: fmt.Sprintf("too many arguments, want at most %d", m.maxParams)}
	}
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("rpc handler panic", "method", req.Method, "panic", r, "stack", string(debug.Stack()))
			result, err = nil, &Error{Code: CodeInternal, Message: "internal error"}
		}
	}()
	return m.h(ctx, params)
}

// splitParams accepts a positional array, null or absent params. Named
// (object) params are not used by any Ethereum method.
func splitParams(raw json.RawMessage) (Params, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	if raw[0] != '[' {
		return nil, &Error{Code: CodeInvalidParams, Message: "non-array args"}
	}
	p, ok := splitArray(raw)
	if !ok {
		// Deeper than the scanner goes (maxFastDepth): encoding/json splits
		// it, or gives its error.
		if err := json.Unmarshal(raw, &p); err != nil {
			return nil, &Error{Code: CodeInvalidParams, Message: "invalid params: " + err.Error()}
		}
	}
	// Trailing nulls count as absent optional parameters, as geth does.
	for len(p) > 0 && bytes.Equal(bytes.TrimSpace(p[len(p)-1]), []byte("null")) {
		p = p[:len(p)-1]
	}
	return p, nil
}

func toError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var de DataError
	if errors.As(err, &de) {
		return &Error{Code: de.ErrorCode(), Message: err.Error(), Data: de.ErrorData()}
	}
	var ce CodeError
	if errors.As(err, &ce) {
		return &Error{Code: ce.ErrorCode(), Message: err.Error()}
	}
	return &Error{Code: CodeServer, Message: err.Error()}
}

// CodeError lets a backend error choose its JSON-RPC code without knowing
// this package.
type CodeError interface {
	error
	ErrorCode() int
}

// DataError is a CodeError with a data member (e.g. revert bytes).
type DataError interface {
	CodeError
	ErrorData() any
}

func marshal(r response) []byte {
	b, err := json.Marshal(r)
	if err != nil {
		b, _ = json.Marshal(response{JSONRPC: "2.0", ID: nullID, Error: &Error{Code: CodeInternal, Message: "internal error"}})
	}
	return b
}
