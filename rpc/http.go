package rpc

import (
	"compress/gzip"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// HTTPConfig sets the limits and access rules of the HTTP endpoint.
type HTTPConfig struct {
	BodyLimit    int64    // request body bytes (default 5 MiB)
	CORSOrigins  []string // allowed Origin values; "*" allows all; empty allows none
	VirtualHosts []string // allowed Host header names; "*" or empty allows all
	Limiter      *Limiter // per-client limits (nil: none)
	WebSocket    bool     // accept WebSocket upgrades on this endpoint
	WS           WSConfig
}

// HTTPHandler serves JSON-RPC over HTTP POST, and WebSocket upgrades when
// cfg.WebSocket is set, from one handler.
func (s *Server) HTTPHandler(cfg HTTPConfig) http.Handler {
	if cfg.BodyLimit == 0 {
		cfg.BodyLimit = 5 << 20
	}
	return &httpHandler{s: s, cfg: cfg}
}

type httpHandler struct {
	s   *Server
	cfg HTTPConfig
}

func (h *httpHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !h.hostAllowed(r.Host) {
		http.Error(w, "invalid host specified", http.StatusForbidden)
		return
	}
	h.cors(w, r)
	if h.cfg.WebSocket && isWebSocket(r) {
		h.s.ServeWS(w, r, h.cfg.WS, h.cfg.Limiter)
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
	if lim := h.cfg.Limiter; lim != nil {
		release, wait, ok := lim.Acquire(remoteIP(r))
		if !ok {
			writeLimited(w, wait)
			return
		}
		defer release()
	}
	body, err := h.readBody(w, r)
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			http.Error(w, "content length too large ("+strconv.FormatInt(mbe.Limit, 10)+" bytes max)", http.StatusRequestEntityTooLarge)
			return
		}
		http.Error(w, "cannot read body", http.StatusBadRequest)
		return
	}
	resp := h.s.HandleMessage(r.Context(), body)
	hdr := w.Header()
	hdr["Content-Type"] = jsonContentType
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

// readBody reads the request body within the configured limit. A small
// body whose length is declared is read into one buffer of exactly that
// size; larger ones grow as they arrive, so a client cannot make the node
// reserve megabytes by merely announcing them.
func (h *httpHandler) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	if n := r.ContentLength; n >= 0 && n <= min(h.cfg.BodyLimit, 64<<10) {
		body := make([]byte, n)
		if _, err := io.ReadFull(r.Body, body); err != nil {
			return nil, err
		}
		return body, nil
	}
	return io.ReadAll(http.MaxBytesReader(w, r.Body, h.cfg.BodyLimit))
}

// writeLimited answers a rate-limited request: HTTP 429, Retry-After, and a
// JSON-RPC error -32005 so clients that only read the body understand too.
func writeLimited(w http.ResponseWriter, wait time.Duration) {
	secs := int((wait + time.Second - 1) / time.Second)
	if secs < 1 {
		secs = 1
	}
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusTooManyRequests)
	w.Write(marshal(response{JSONRPC: "2.0", ID: nullID, Error: errLimit}))
}

func (h *httpHandler) hostAllowed(host string) bool {
	if len(h.cfg.VirtualHosts) == 0 {
		return true
	}
	if hst, _, err := net.SplitHostPort(host); err == nil {
		host = hst
	}
	for _, v := range h.cfg.VirtualHosts {
		if v == "*" || strings.EqualFold(v, host) {
			return true
		}
	}
	return false
}

func (h *httpHandler) cors(w http.ResponseWriter, r *http.Request) {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return
	}
	for _, o := range h.cfg.CORSOrigins {
		if o == "*" || strings.EqualFold(o, origin) {
			w.Header().Set("Access-Control-Allow-Origin", origin)
			w.Header().Set("Access-Control-Allow-Methods", "POST, GET, OPTIONS")
			w.Header().Set("Access-Control-Allow-Headers", "Content-Type, Authorization")
			w.Header().Set("Access-Control-Max-Age", "600")
			w.Header().Add("Vary", "Origin")
			return
		}
	}
}

func isWebSocket(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket") &&
		strings.Contains(strings.ToLower(r.Header.Get("Connection")), "upgrade")
}

func remoteIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
