// Package front is the one HTTP front every chaind listener is built
// through: per-client rate limits and connection caps, body size caps,
// CORS, allowed Host names and authentication hooks, for the whole
// listener or for the paths under a prefix of it. A listener is
// declared once (Listener: kind, address, handler, Options) and Listen
// builds it, so no port can be opened without the node's limits.
//
// Limits are kept per client IP and shared by all listeners of a Front: a
// client gets PerSecond calls a second and Conns connections in total, not
// per port. Protocol handlers that carry several calls in one request (a
// JSON-RPC batch, the messages of a WebSocket connection) set
// Options.PerCall and charge each call through the Client in the
// request's context; every other request is charged one call by the
// front. Refusals are written by the listener's Refuser, so each protocol
// answers in its own error shape.
//
// Two choices worth knowing: a charge is all or nothing, so a refused
// batch takes no tokens (and one larger than a bucket, say 11 calls under
// 10 per second, is always refused, without Retry-After); and a connection
// past the cap is written one 429 as it is accepted and closed, before
// anything is read from it, so the client learns why and holds nothing.
//
// The front sits below the protocol packages (rpc and the later REST,
// gRPC and explorer ones) and imports none of them.
package front

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"path"
	"strconv"
	"strings"
	"time"
)

// Reason says why the front refused a request.
type Reason int

const (
	RateLimited        Reason = iota + 1 // out of call tokens (429)
	TooManyConnections                   // the client IP holds Limits.Conns connections (429)
	BodyTooLarge                         // the body is over Options.BodyLimit (413)
	HostNotAllowed                       // the Host header is not in Options.VirtualHosts (403)
	Unauthorized                         // Options.Auth or a Guard refused the request (401)
)

// Refusal is one refused request, handed to the listener's Refuser.
type Refusal struct {
	Reason  Reason
	Status  int    // HTTP status to answer with
	Message string // human-readable cause
	// Wait is how long until a rate-limited request can succeed; 0 or
	// Never when no Retry-After applies. The front has set Retry-After.
	Wait time.Duration
}

// A Refuser writes a refusal in the listener's protocol: status, content
// type and body. Headers the front owns (Retry-After, Connection, CORS)
// are already set.
type Refuser func(w http.ResponseWriter, r *http.Request, ref Refusal)

// PlainRefuser answers refusals as text/plain, for listeners that have no
// error shape of their own.
func PlainRefuser(w http.ResponseWriter, _ *http.Request, ref Refusal) {
	http.Error(w, ref.Message, ref.Status)
}

// Options are a listener's access rules. The zero value has no body cap,
// no CORS origins, accepts any Host and answers refusals as plain text.
type Options struct {
	BodyLimit    int64    // request body bytes; 0: no cap
	CORSOrigins  []string // allowed Origin values; "*" allows all; empty allows none
	VirtualHosts []string // allowed Host header names; "*" or empty allows all

	// CORSHeaders are request headers a cross-origin page may send
	// besides Content-Type and Authorization (a protocol's own, such as
	// gRPC-Web's X-Grpc-Web); CORSExpose the answer headers it may read.
	CORSHeaders, CORSExpose []string

	// Auth, when set, may refuse a request (answered 401 with its error's
	// text) before it reaches the handler.
	Auth func(r *http.Request) error

	// Guards add the checks of routes that share the listener with others
	// that need none; a request passes Auth and every guard of its path.
	Guards []Guard

	// Refuse writes refusals; nil means PlainRefuser.
	Refuse Refuser

	// PerCall says the handler charges each call it serves through
	// ClientFrom(ctx).Charge, instead of the front charging one per
	// request before calling it. A request whose handler charged nothing
	// still costs one call, booked when it returns, so a handler that
	// forgets cannot open a hole in the limits.
	PerCall bool

	// Observe, when set, is told of every request the listener answers,
	// the front's refusals included: its status and how long it took to
	// answer. An upgraded (hijacked) connection reports 101 and the time
	// to the upgrade. A connection closed at accept for being over a cap
	// never becomes a request and is not reported.
	Observe func(r *http.Request, status int, d time.Duration)
}

// A Guard is an authentication check for the paths under a prefix of a
// listener, such as debug routes that share a port with an open API.
type Guard struct {
	// Prefix is matched against the request's path made clean as
	// net/http's ServeMux makes it before routing ("/log/" guards /log/
	// and all below it), so no spelling of a path reaches a guarded route
	// around its guard.
	Prefix string
	// Auth may refuse a request, answered 401 with its error's text. It
	// must be set.
	Auth func(r *http.Request) error
	// Refuse writes this guard's refusals, for routes whose error shape
	// is not the listener's; nil means the listener's Refuser.
	Refuse Refuser
}

// Config configures a Front.
type Config struct {
	Limits Limits // zero: no limits (a node not started --public)
	// TrustedProxies are the peers whose X-Forwarded-For is believed: a
	// request from one of them is limited and recorded under the client
	// address the proxy reports. From anyone else the header is ignored,
	// so a client cannot pick its own address.
	TrustedProxies []netip.Prefix
	Now            func() time.Time // clock of the rate limits; nil: time.Now
	Log            *slog.Logger     // where "listening" lines go; nil: discarded
}

// Front builds a node's listeners on one set of per-client limits.
type Front struct {
	lim     *limiter // nil: no limits
	log     *slog.Logger
	proxies []netip.Prefix
}

// New returns a front with the given limits.
func New(cfg Config) *Front {
	f := &Front{log: cfg.Log, proxies: cfg.TrustedProxies}
	if f.log == nil {
		f.log = slog.New(slog.DiscardHandler)
	}
	if cfg.Limits != (Limits{}) {
		f.lim = newLimiter(cfg.Limits, cfg.Now)
	}
	return f
}

// Handler wraps h in the front's middleware with the given options. Listen
// uses it; it is exported for tests and benchmarks that serve without a
// socket. Connection caps need Listen's listener and do not apply here.
func (f *Front) Handler(o Options, h http.Handler) http.Handler {
	if o.Refuse == nil {
		o.Refuse = PlainRefuser
	}
	hd := &handler{f: f, o: o, next: h, allowHeaders: strings.Join(append([]string{"Content-Type", "Authorization"}, o.CORSHeaders...), ", ")}
	hd.exposeHeaders = strings.Join(o.CORSExpose, ", ")
	return hd
}

type handler struct {
	f    *Front
	o    Options
	next http.Handler
	// The CORS header values, joined once.
	allowHeaders, exposeHeaders string
}

func (h *handler) refuse(w http.ResponseWriter, r *http.Request, ref Refusal) {
	SetRetryAfter(w.Header(), ref.Wait)
	h.o.Refuse(w, r, ref)
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if h.o.Observe != nil {
		sw := &statusWriter{ResponseWriter: w}
		start := time.Now()
		defer func() { h.o.Observe(r, sw.status(), time.Since(start)) }()
		w = sw
	}
	if !hostAllowed(h.o.VirtualHosts, r.Host) {
		h.refuse(w, r, Refusal{Reason: HostNotAllowed, Status: http.StatusForbidden, Message: "invalid host specified"})
		return
	}
	preflight := h.cors(w, r)
	c := &Client{lim: h.f.lim, ip: h.f.ClientIP(r)}
	if preflight {
		if c.lim != nil {
			c.lim.take(c.ip, 1)
		}
		w.WriteHeader(http.StatusNoContent)
		return
	}
	if refuse, err := h.authorize(r); err != nil {
		// A refused request costs the call a served one would, so that
		// guessing tokens is held to the client's rate.
		if c.lim != nil {
			c.lim.take(c.ip, 1)
		}
		refuse(w, r, Refusal{Reason: Unauthorized, Status: http.StatusUnauthorized, Message: err.Error()})
		return
	}
	if lim := h.o.BodyLimit; lim > 0 {
		if r.ContentLength > lim {
			h.refuse(w, r, TooLarge(lim))
			return
		}
		// A declared length within the cap is all net/http will read;
		// only a body of unknown length needs the counting reader.
		if r.ContentLength < 0 {
			r.Body = http.MaxBytesReader(w, r.Body, lim)
		}
	}
	ctx := context.WithValue(r.Context(), clientKey{}, c)
	if c.lim == nil {
		h.next.ServeHTTP(w, r.WithContext(ctx))
		return
	}
	if !h.o.PerCall {
		if wait, ok := c.Charge(1); !ok {
			h.refuse(w, r, Limited(wait))
			return
		}
	}
	h.next.ServeHTTP(w, r.WithContext(ctx))
	if !c.charged {
		c.lim.take(c.ip, 1)
	}
}

// authorize runs the listener's Auth and the guards of the request's path.
// A refusal comes with the Refuser of the rule that refused.
func (h *handler) authorize(r *http.Request) (Refuser, error) {
	if h.o.Auth != nil {
		if err := h.o.Auth(r); err != nil {
			return h.o.Refuse, err
		}
	}
	if len(h.o.Guards) == 0 {
		return nil, nil
	}
	p := cleanPath(r.URL.Path)
	for _, g := range h.o.Guards {
		if !strings.HasPrefix(p, g.Prefix) {
			continue
		}
		if err := g.Auth(r); err != nil {
			if g.Refuse != nil {
				return g.Refuse, err
			}
			return h.o.Refuse, err
		}
	}
	return nil, nil
}

// cleanPath is p as ServeMux routes it: rooted, without . and .. elements
// or doubled slashes, keeping a trailing slash.
func cleanPath(p string) string {
	if p == "" || p[0] != '/' {
		p = "/" + p
	}
	np := path.Clean(p)
	if p[len(p)-1] == '/' && np != "/" {
		np += "/"
	}
	return np
}

// TooLarge is the refusal of a body over limit bytes, for handlers that
// find out while reading (a body of unknown length).
func TooLarge(limit int64) Refusal {
	return Refusal{Reason: BodyTooLarge, Status: http.StatusRequestEntityTooLarge,
		Message: "content length too large (" + strconv.FormatInt(limit, 10) + " bytes max)"}
}

// Limited is the refusal of a request whose charge was refused with wait.
func Limited(wait time.Duration) Refusal {
	msg := "rate limit exceeded"
	if wait == Never {
		msg = "rate limit exceeded: more calls at once than the limits allow"
	}
	return Refusal{Reason: RateLimited, Status: http.StatusTooManyRequests, Message: msg, Wait: wait}
}

// IsTooLarge reports whether err is a body read stopped at the front's
// BodyLimit.
func IsTooLarge(err error) (limit int64, ok bool) {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return mbe.Limit, true
	}
	return 0, false
}

// SetRetryAfter sets the Retry-After header for a refused charge's wait,
// in whole seconds rounded up. It sets nothing for 0 or Never: retrying
// the same request later would not help.
func SetRetryAfter(h http.Header, wait time.Duration) {
	if wait <= 0 || wait == Never {
		return
	}
	secs := max(1, int64((wait+time.Second-1)/time.Second))
	h.Set("Retry-After", strconv.FormatInt(secs, 10))
}

func hostAllowed(allowed []string, host string) bool {
	if len(allowed) == 0 {
		return true
	}
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	for _, v := range allowed {
		if v == "*" || strings.EqualFold(v, host) {
			return true
		}
	}
	return false
}

// cors sets the CORS headers for an allowed Origin and reports whether the
// request is a preflight, which the front answers itself.
func (h *handler) cors(w http.ResponseWriter, r *http.Request) (preflight bool) {
	preflight = r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != ""
	origin := r.Header.Get("Origin")
	if origin == "" {
		return preflight
	}
	for _, o := range h.o.CORSOrigins {
		if o == "*" || strings.EqualFold(o, origin) {
			hdr := w.Header()
			hdr.Set("Access-Control-Allow-Origin", origin)
			hdr.Set("Access-Control-Allow-Methods", "POST, GET, OPTIONS")
			hdr.Set("Access-Control-Allow-Headers", h.allowHeaders)
			if h.exposeHeaders != "" {
				hdr.Set("Access-Control-Expose-Headers", h.exposeHeaders)
			}
			hdr.Set("Access-Control-Max-Age", "600")
			hdr.Add("Vary", "Origin")
			break
		}
	}
	return preflight
}

// ClientIP is the address a request is limited and recorded under: its
// peer's, or, when the peer is a trusted proxy, the nearest address in
// X-Forwarded-For that is not itself a trusted proxy.
func (f *Front) ClientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if len(f.proxies) == 0 || !f.trusted(host) {
		return host
	}
	hops := r.Header.Values("X-Forwarded-For")
	// Walk from the nearest hop back: each trusted proxy vouches for the
	// one before it; the first untrusted one is the client.
	for i := len(hops) - 1; i >= 0; i-- {
		parts := strings.Split(hops[i], ",")
		for j := len(parts) - 1; j >= 0; j-- {
			a, err := netip.ParseAddr(strings.TrimSpace(parts[j]))
			if err != nil {
				return host // garbage from a proxy: fall back to the peer
			}
			host = a.Unmap().String()
			if !f.trusted(host) {
				return host
			}
		}
	}
	return host
}

func (f *Front) trusted(ip string) bool {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return false
	}
	a = a.Unmap()
	for _, p := range f.proxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
