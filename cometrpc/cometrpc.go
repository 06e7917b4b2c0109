// Package cometrpc serves a read-only CometBFT RPC (the v0.38 shapes) so
// Cosmos clients written for CometBFT chains (@cosmjs/stargate's
// StargateClient and QueryClient, wallets, dashboards) read chaind
// unchanged: JSON-RPC 2.0 over HTTP POST, the URI form
// (GET /block?height=5) CometBFT serves beside it, and WebSocket at
// /websocket with subscriptions to NewBlock and Tx events (ws.go, hub.go).
//
// Transactions appear as Cosmos EVM shows them (query.CosmosTx: a
// MsgEthereumTx in a TxRaw, named by the sha256 of those bytes), with the
// events Cosmos EVM emits for them (query.TxResult); tx_search runs the
// event query subset clients use (internal/query/eventquery) over the
// chain's indexes (query.TxSearch), as the Cosmos tx service does.
//
// Everything is read through the shared query layer (internal/query) and
// the neutral backend: abci_query routes a "/cosmos.bank.v1beta1.Query/
// Balance"-style path to the same handler the gRPC port runs, with the
// same height resolution. Broadcasting is refused: transactions enter
// chaind as Ethereum transactions (eth_sendRawTransaction).
package cometrpc

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/front"
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/types"
)

// Version is the CometBFT release whose RPC shapes this package serves;
// status reports it as node_info.version because clients pick their
// decoder by it (cosmjs's connectComet chooses its 0.38 client for
// "0.38.*").
const Version = "0.38.17"

// Backend is what the RPC reads besides the query layer.
type Backend struct {
	Blocks    backend.Blocks
	Consensus backend.ConsensusSet
	Network   backend.Network
	// Validator is the node's validator address; zero on a node that
	// does not validate.
	Validator types.Address
	// ValidatorKey is its compressed secp256k1 public key.
	ValidatorKey []byte
	// P2PAddr is the node's p2p listen address ("" without p2p).
	P2PAddr string

	Pool backend.TxPool
	// Heads feeds the WebSocket subscriptions and the CometBFT hash index
	// (Run); nil: no subscriptions.
	Heads backend.HeadFeed
	// Genesis returns the chain's genesis as chaind reads it (JSON), for
	// the genesis document's app_state.
	Genesis func() ([]byte, error)
	Params  Params
}

// Server answers CometBFT RPC requests.
type Server struct {
	q      *query.Querier
	b      Backend
	events *hub

	genesisOnce sync.Once
	genesis     json.RawMessage
	genesisErr  error
}

// New returns the RPC handler over q and b; Run feeds its subscriptions.
func New(q *query.Querier, b Backend) *Server {
	return &Server{q: q, b: b, events: newHub()}
}

// Listener declares the CometBFT RPC port behind the node's front.
func Listener(addr string, h http.Handler, o front.Options) front.Listener {
	o.Refuse = Refuse
	return front.Listener{Kind: "cometrpc", Addr: addr, Handler: h, Options: o}
}

// Refuse writes a front refusal as a JSON-RPC error, as CometBFT answers
// a request it will not serve.
func Refuse(w http.ResponseWriter, _ *http.Request, ref front.Refusal) {
	writeJSON(w, ref.Status, response{JSONRPC: "2.0", ID: json.RawMessage("-1"),
		Error: &rpcError{Code: codeInternal, Message: "Internal error", Data: ref.Message}})
}

// The JSON-RPC error codes CometBFT uses.
const (
	codeParse          = -32700
	codeInvalidRequest = -32600
	codeNoMethod       = -32601
	codeInvalidParams  = -32602
	codeInternal       = -32603
)

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    string `json:"data,omitempty"`
}

type request struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"` // none on a parse error
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// errParams marks parameters that do not convert to the method's
// arguments (not a number, not hex, not base64, the wrong JSON type):
// -32602, with the data "error converting json params to arguments: ...".
// Every other handler error, a height out of range or a bad page
// included, is -32603 with the reason as data: CometBFT checks those in
// the method, after the conversion (testdata/comet0.38).
var errParams = errors.New("error converting json params to arguments")

func paramsErr(format string, a ...any) error {
	return fmt.Errorf("%w: %s", errParams, fmt.Sprintf(format, a...))
}

// maxBatch bounds a JSON-RPC batch; the front bounds the body in bytes.
const maxBatch = 100

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
		s.servePost(w, r)
	case http.MethodGet:
		if r.URL.Path == "/websocket" {
			s.serveWS(w, r)
			return
		}
		s.serveURI(w, r)
	case http.MethodOptions:
		w.WriteHeader(http.StatusOK)
	default:
		w.Header().Set("Allow", "GET, POST")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	}
}

// bodies are the buffers POST bodies are read into. A request's values
// are copied out of its body as its method reads them (the params
// readers copy), and its answer is written before the buffer goes back,
// so the next request reuses it: one allocation fewer per call.
var bodies = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBody is the largest body buffer kept for reuse.
const maxPooledBody = 64 << 10

func (s *Server) servePost(w http.ResponseWriter, r *http.Request) {
	buf := bodies.Get().(*bytes.Buffer)
	buf.Reset()
	defer func() {
		if buf.Cap() <= maxPooledBody {
			bodies.Put(buf)
		}
	}()
	_, err := buf.ReadFrom(r.Body)
	body := buf.Bytes()
	if err != nil {
		writeJSON(w, http.StatusBadRequest, response{JSONRPC: "2.0", ID: json.RawMessage("-1"),
			Error: &rpcError{Code: codeInvalidRequest, Message: "Invalid Request", Data: "error reading request body: " + err.Error()}})
		return
	}
	body = bytes.TrimSpace(body)
	if len(body) > 0 && body[0] == '[' {
		var reqs []json.RawMessage
		if err := json.Unmarshal(body, &reqs); err != nil {
			writeJSON(w, http.StatusInternalServerError, parseError(err))
			return
		}
		if len(reqs) == 0 || len(reqs) > maxBatch {
			writeJSON(w, http.StatusOK, response{JSONRPC: "2.0", ID: json.RawMessage("-1"),
				Error: &rpcError{Code: codeInvalidRequest, Message: "Invalid Request", Data: fmt.Sprintf("a batch holds 1 to %d requests", maxBatch)}})
			return
		}
		out := make([]response, 0, len(reqs))
		for _, raw := range reqs {
			if resp, ok := s.serveOne(r, raw); ok {
				out = append(out, resp)
			}
		}
		if len(out) == 0 {
			return // notifications only: nothing to answer
		}
		writeJSON(w, http.StatusOK, out)
		return
	}
	resp, ok := s.serveOne(r, body)
	if !ok {
		return // a notification: CometBFT answers an empty 200
	}
	status := http.StatusOK
	if resp.Error != nil && resp.Error.Code == codeParse {
		status = http.StatusInternalServerError // as CometBFT answers a body that is not JSON
	}
	writeResponse(w, status, &resp)
}

// parseError answers a body that is not JSON: no id, as CometBFT.
func parseError(err error) response {
	return response{JSONRPC: "2.0",
		Error: &rpcError{Code: codeParse, Message: "Parse error. Invalid JSON", Data: "error unmarshaling request: " + err.Error()}}
}

// serveOne answers one request of a POST; ok is false for a
// notification (a request without an id), which gets no answer.
func (s *Server) serveOne(r *http.Request, raw []byte) (response, bool) {
	req, p, quick := quickRequest(raw)
	if !quick {
		if err := json.Unmarshal(raw, &req); err != nil {
			return parseError(err), true
		}
	}
	if len(req.ID) == 0 || string(req.ID) == "null" {
		return response{}, false
	}
	if req.JSONRPC != "2.0" {
		return response{JSONRPC: "2.0", ID: req.ID,
			Error: &rpcError{Code: codeInvalidRequest, Message: "Invalid Request", Data: "jsonrpc must be 2.0"}}, true
	}
	if !quick {
		var err error
		if p, err = objectParams(req.Method, req.Params); err != nil {
			return errorResponse(req.ID, err), true
		}
	}
	return s.call(r.Context(), callInfo{host: r.Host}, req.ID, req.Method, p), true
}

// serveURI answers the GET form: the path names the method, the query
// string its parameters (strings may be quoted, bytes given as 0x-hex).
// GET / lists the methods, as CometBFT does.
func (s *Server) serveURI(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(r.URL.Path, "/")
	if name == "" {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		for _, n := range methodNames() {
			fmt.Fprintf(w, "//%s/%s\n", r.Host, n)
		}
		return
	}
	if _, ok := methods[name]; !ok || wsMethods[name] {
		http.NotFound(w, r) // CometBFT routes only its HTTP methods
		return
	}
	p := params{}
	for k, vs := range r.URL.Query() {
		if len(vs) > 0 {
			p[k] = uriValue(vs[0])
		}
	}
	resp := s.call(r.Context(), callInfo{host: r.Host}, json.RawMessage("-1"), name, p)
	status := http.StatusOK
	if resp.Error != nil {
		status = http.StatusInternalServerError // as CometBFT's URI handler answers every error
	}
	writeJSON(w, status, resp)
}

// uriValue turns one URI argument into the JSON value the same parameter
// has in a POST: "quoted" is a string, anything else is taken as written
// (a number, a boolean, 0x-hex bytes).
func uriValue(v string) json.RawMessage {
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		b, _ := json.Marshal(v[1 : len(v)-1])
		return b
	}
	if v == "true" || v == "false" {
		return json.RawMessage(v)
	}
	b, _ := json.Marshal(v)
	return b
}

func (s *Server) call(ctx context.Context, ci callInfo, id json.RawMessage, name string, p params) response {
	m, ok := methods[name]
	if !ok {
		return response{JSONRPC: "2.0", ID: id, Error: &rpcError{Code: codeNoMethod, Message: "Method not found"}}
	}
	if wsMethods[name] && !ci.ws {
		// Not a method over HTTP in CometBFT either; the data says where
		// it is served.
		return response{JSONRPC: "2.0", ID: id, Error: &rpcError{Code: codeNoMethod, Message: "Method not found", Data: errWSOnly.Error()}}
	}
	res, err := m(s, ctx, ci, p)
	if err != nil {
		return errorResponse(id, err)
	}
	return response{JSONRPC: "2.0", ID: id, Result: res}
}

func errorResponse(id json.RawMessage, err error) response {
	if errors.Is(err, errParams) {
		return response{JSONRPC: "2.0", ID: id, Error: &rpcError{Code: codeInvalidParams, Message: "Invalid params", Data: err.Error()}}
	}
	return response{JSONRPC: "2.0", ID: id, Error: &rpcError{Code: codeInternal, Message: "Internal error", Data: err.Error()}}
}

// jsonType is the Content-Type of every answer, one slice shared by
// every header it is put in (never appended to in place: Add copies).
var jsonType = []string{"application/json"}

// The envelope around a rendered result.
var (
	resultHead = []byte(`{"jsonrpc":"2.0","id":`)
	resultKey  = []byte(`,"result":`)
	resultEnd  = []byte{'}'}
)

// writeResponse writes one answer. A result rendered already (a cached
// abci_query answer) is written as it is, around the envelope, in
// pieces: json.Marshal would scan and copy it again, and joining the
// pieces would copy it once more.
func writeResponse(w http.ResponseWriter, status int, r *response) {
	raw, ok := r.Result.(json.RawMessage)
	if !ok || r.Error != nil {
		writeJSON(w, status, *r)
		return
	}
	h := w.Header()
	h["Content-Type"] = jsonType
	h["Content-Length"] = []string{strconv.Itoa(len(resultHead) + len(r.ID) + len(resultKey) + len(raw) + len(resultEnd))}
	w.WriteHeader(status)
	w.Write(resultHead)
	w.Write(r.ID)
	w.Write(resultKey)
	w.Write(raw)
	w.Write(resultEnd)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	if r, ok := v.(response); ok && r.Error == nil {
		if _, ok := r.Result.(json.RawMessage); ok {
			writeResponse(w, status, &r)
			return
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		status, b = http.StatusInternalServerError, []byte(`{"jsonrpc":"2.0","id":-1,"error":{"code":-32603,"message":"Internal error"}}`)
	}
	w.Header()["Content-Type"] = jsonType
	w.WriteHeader(status)
	w.Write(b)
}

// params are a request's named parameters; positional ones are named by
// the method's parameter list.
type params map[string]json.RawMessage

func objectParams(method string, raw json.RawMessage) (params, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return params{}, nil
	}
	if raw[0] == '[' {
		var list []json.RawMessage
		if err := json.Unmarshal(raw, &list); err != nil {
			return nil, paramsErr("%v", err)
		}
		names := paramNames[method]
		if len(list) > len(names) {
			return nil, paramsErr("expected at most %d parameters, got %d", len(names), len(list))
		}
		p := params{}
		for i, v := range list {
			p[names[i]] = v
		}
		return p, nil
	}
	var p params
	if err := json.Unmarshal(raw, &p); err != nil {
		return nil, paramsErr("%v", err)
	}
	return p, nil
}

// int64Param reads an optional integer parameter, given as a number or a
// decimal string (CometBFT's JSON form of 64-bit integers).
func (p params) int64Param(name string) (int64, bool, error) {
	raw, ok := p[name]
	if !ok || string(raw) == "null" {
		return 0, false, nil
	}
	var s string
	if plainString(raw) {
		s = string(raw[1 : len(raw)-1])
	} else if err := json.Unmarshal(raw, &s); err != nil {
		s = string(raw)
	}
	if s == "" {
		return 0, false, nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		// CometBFT reads the text inside the quotes as a JSON number, and
		// says what the JSON decoder says.
		var x int64
		if jerr := json.Unmarshal([]byte(s), &x); jerr != nil {
			return 0, false, paramsErr("%v", jerr)
		}
		return 0, false, paramsErr("%s: %q is not an integer", name, s)
	}
	return n, true, nil
}

func (p params) stringParam(name string) (string, error) {
	raw, ok := p[name]
	if !ok || string(raw) == "null" {
		return "", nil
	}
	if plainString(raw) {
		return string(raw[1 : len(raw)-1]), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", paramsErr("%s: want a string", name)
	}
	return s, nil
}

// hexParam reads a parameter of hex-encoded bytes, "0x" optional; a
// plain string is decoded from the request as it lies, without a copy of
// its text first.
func (p params) hexParam(name string) ([]byte, error) {
	var text []byte
	if raw := p[name]; plainString(raw) {
		text = raw[1 : len(raw)-1]
	} else {
		s, err := p.stringParam(name)
		if err != nil {
			return nil, err
		}
		text = []byte(s)
	}
	text = bytes.TrimPrefix(bytes.TrimPrefix(text, []byte("0x")), []byte("0X"))
	out := make([]byte, hex.DecodedLen(len(text)))
	if _, err := hex.Decode(out, text); err != nil {
		return nil, paramsErr("%v", err)
	}
	return out, nil
}

func (p params) boolParam(name string) (bool, error) {
	raw, ok := p[name]
	if !ok || string(raw) == "null" {
		return false, nil
	}
	var b bool
	if err := json.Unmarshal(raw, &b); err != nil {
		var s string
		if json.Unmarshal(raw, &s) == nil && (s == "true" || s == "false") {
			return s == "true", nil
		}
		return false, paramsErr("%s: want a boolean", name)
	}
	return b, nil
}

// plainString reports whether raw is a JSON string of printable ASCII
// without escapes, whose text is what lies between its quotes.
func plainString(raw []byte) bool {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return false
	}
	for _, c := range raw[1 : len(raw)-1] {
		if c == '"' || c == '\\' || c < 0x20 || c >= 0x80 {
			return false
		}
	}
	return true
}

// callInfo is what a handler knows of the request besides its params.
type callInfo struct {
	host string // the Host the client called, for rpc_address
	ws   bool   // the call came over WebSocket
}

type handler func(s *Server, ctx context.Context, ci callInfo, p params) (any, error)
