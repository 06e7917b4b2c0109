package rpc

import (
	"compress/gzip"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/chaind/chaind/internal/front"
)

// HTTPConfig configures a JSON-RPC listener's handler. Limits, CORS and
// host checks are the front's (see Listener).
type HTTPConfig struct {
	// APIs are the namespaces the listener serves (eth, net, web3, debug,
	// ...); methods of others answer -32601 as if they did not exist. nil
	// serves every registered method.
	APIs      []string
	WebSocket bool // accept WebSocket upgrades on this endpoint
	WS        WSConfig
}

// DefaultBodyLimit caps a JSON-RPC request body (5 MiB) unless the
// listener's front options set another cap.
const DefaultBodyLimit = 5 << 20

// Listener declares a JSON-RPC listener for the front: the handler for cfg
// behind the given front options, with JSON-RPC-shaped refusals and each
// call of a batch or WebSocket message charged to the client's limits.
func (s *Server) Listener(kind, addr string, cfg HTTPConfig, opts front.Options) front.Listener {
	if opts.BodyLimit == 0 {
		opts.BodyLimit = DefaultBodyLimit
	}
	opts.Refuse = Refuse
	opts.PerCall = true
	return front.Listener{Kind: kind, Addr: addr, Handler: s.HTTPHandler(cfg), Options: opts}
}

// HTTPHandler serves JSON-RPC over HTTP POST, and WebSocket upgrades when
// cfg.WebSocket is set, from one handler. It expects to run behind the
// front (see Listener), which caps the body and puts the client's rate
// limits in the request's context.
func (s *Server) HTTPHandler(cfg HTTPConfig) http.Handler {
	return &httpHandler{s: s, v: s.view(cfg.APIs), cfg: cfg}
}

type httpHandler struct {
	s   *Server
	v   *view
	cfg HTTPConfig
}

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.cfg.WebSocket && isWebSocket(r) {
		h.v.serveWS(w, r, h.cfg.WS)
		return
	}
	switch r.Method {
	case http.MethodOptions:
		w.WriteHeader(http.StatusNoContent)
		return
	case http.MethodGet:
		// A bare GET is a health probe by load balancers.
		w.WriteHeader(http.StatusOK)
		return
	case http.MethodPost:
	default:
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	if ct := r.Header.Get("Content-Type"); ct != "" && !strings.HasPrefix(ct, "application/json") {
		http.Error(w, "invalid content type, only application/json is supported", http.StatusUnsupportedMediaType)
		return
	}
	body, err := readBody(r)
	if err != nil {
		if limit, ok := front.IsTooLarge(err); ok {
			Refuse(w, r, front.TooLarge(limit))
			return
		}
		http.Error(w, "cannot read body", http.StatusBadRequest)
		return
	}
	resp, wait, limited := h.v.handle(r.Context(), body)
	hdr := w.Header()
	hdr["Content-Type"] = jsonContentType
	if limited {
		front.SetRetryAfter(hdr, wait)
		if resp == nil { // only notifications: still say why
			resp = marshal(response{JSONRPC: "2.0", ID: nullID, Error: &Error{Code: CodeLimitExceeded, Message: front.Limited(wait).Message}})
		}
		w.WriteHeader(http.StatusTooManyRequests)
		w.Write(resp)
		return
	}
	if resp == nil {
		w.WriteHeader(http.StatusOK)
		return
	}
	if len(resp) > 1024 && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		hdr.Set("Content-Encoding", "gzip")
		hdr.Add("Vary", "Accept-Encoding")
		gz := gzip.NewWriter(w)
		gz.Write(resp)
		gz.Close()
		return
	}
	// net/http adds Content-Length itself to an answer that fits its
	// buffer; larger ones would otherwise be sent chunked.
	if len(resp) >= 2048 {
		hdr.Set("Content-Length", strconv.Itoa(len(resp)))
	}
	w.Write(resp)
}

// jsonContentType is shared by every answer; net/http only reads it.
var jsonContentType = []string{"application/json"}

// readBody reads the request body. A small body whose length is declared
// is read into one buffer of exactly that size; larger ones grow as they
// arrive, so a client cannot make the node reserve megabytes by merely
// announcing them. The front has refused declared lengths over the cap and
// bounds undeclared ones.
func readBody(r *http.Request) ([]byte, error) {
	if n := r.ContentLength; n >= 0 && n <= 64<<10 {
		body := make([]byte, n)
		if _, err := io.ReadFull(r.Body, body); err != nil {
			return nil, err
		}
		return body, nil
	}
	return io.ReadAll(r.Body)
}

// Refuse writes the front's refusals as JSON-RPC: the front's HTTP status
// and a JSON-RPC error with a null id, since the front refuses before the
// body is read. Limits are -32005 like the calls this package refuses
// itself; host and authentication refusals are -32600 and -32000.
func Refuse(w http.ResponseWriter, _ *http.Request, ref front.Refusal) {
	code := CodeLimitExceeded
	switch ref.Reason {
	case front.HostNotAllowed:
		code = CodeInvalidRequest
	case front.Unauthorized:
		code = CodeServer
	}
	w.Header()["Content-Type"] = jsonContentType
	w.WriteHeader(ref.Status)
	w.Write(marshal(response{JSONRPC: "2.0", ID: nullID, Error: &Error{Code: code, Message: ref.Message}}))
}

func isWebSocket(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket") &&
		strings.Contains(strings.ToLower(r.Header.Get("Connection")), "upgrade")
}
