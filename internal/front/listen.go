package front

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Listener declares one port of the node.
type Listener struct {
	Kind    string // "http", "ws", "rest", ...: names it in logs and Server.Kind
	Addr    string // host:port to bind; port 0 picks a free one
	Handler http.Handler
	Options Options
	// H2C serves HTTP/2 without TLS ("prior knowledge" cleartext
	// HTTP/2, what gRPC clients speak) beside HTTP/1.1.
	H2C bool
	// H2, with H2C, serves the connections that open with the HTTP/2
	// preface instead of net/http; the others (HTTP/1.1) stay with
	// net/http. Nil leaves HTTP/2 to net/http too.
	H2 ConnServer
	// MaxConns caps the listener's open connections over all clients
	// (0: no cap), so that its clients together cannot take the
	// descriptors the node needs for itself; see internal/fdlimit.
	MaxConns int
}

// Server is a listener being served.
type Server struct {
	kind string
	addr string
	srv  *http.Server
	h2   ConnServer
	// fresh are the connections that have not begun a request, closed
	// at Shutdown rather than waited for (fresh.go).
	fresh *freshConns
}

// Kind is the listener's kind.
func (s *Server) Kind() string { return s.kind }

// Addr is the address the listener is bound to.
func (s *Server) Addr() string { return s.addr }

// Shutdown stops accepting and waits, until ctx ends, for requests in
// flight. Connections that have not begun a request are closed at once.
// Hijacked (WebSocket) connections are their handlers' to close.
func (s *Server) Shutdown(ctx context.Context) error {
	s.fresh.close()
	err := s.srv.Shutdown(ctx)
	if s.h2 != nil {
		err = errors.Join(err, s.h2.Shutdown(ctx))
	}
	return err
}

// Listen binds l.Addr and serves l.Handler behind the front's middleware
// and connection caps, logging "listening kind=... addr=...".
//
// A connection past its client's cap, or past the listener's MaxConns,
// is answered at once, before anything is read from it: the listener's
// refusal (429, or 503 for a full listener) with "Connection: close",
// written as the connection is accepted, and the connection closed. It
// never reaches net/http or the HTTP/2 server, holds no descriptor past
// that write and does not count toward any cap, so a client that opens
// thousands of silent sockets gets each one closed within the accept
// loop's turn rather than held until a read timeout.
func (f *Front) Listen(l Listener) (*Server, error) {
	ln, err := net.Listen("tcp", l.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", l.Kind, err)
	}
	// An idle keep-alive connection is closed after two minutes: a client
	// that opens connections and walks away must not hold them (and their
	// goroutines) for good.
	handler := f.Handler(l.Options, l.Handler)
	fresh := &freshConns{}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute, ConnState: fresh.track}
	perIP := f.lim != nil && f.lim.cfg.Conns > 0
	if perIP || l.MaxConns > 0 {
		// Innermost, so a refused connection costs no buffer.
		ln = newCappedListener(ln, f, l)
	}
	sniff := l.H2C && l.H2 != nil
	if l.H2C && !sniff {
		srv.Protocols = new(http.Protocols)
		srv.Protocols.SetHTTP1(true)
		srv.Protocols.SetUnencryptedHTTP2(true)
		ln = bufferedListener{ln}
	}
	if sniff {
		ln = newSniffListener(ln, l.H2, srv.Handler)
	}
	s := &Server{kind: l.Kind, addr: ln.Addr().String(), srv: srv, fresh: fresh}
	if sniff {
		s.h2 = l.H2
	}
	f.log.Info("listening", "kind", l.Kind, "addr", s.addr, "max_conns", l.MaxConns)
	go srv.Serve(ln)
	return s, nil
}

// Conns is how many connections the client at ip holds open on the
// front's listeners (0 without a connection cap).
func (f *Front) Conns(ip string) int {
	if f.lim == nil {
		return 0
	}
	return f.lim.conns(ip)
}

// cappedListener counts each client IP's open connections and the
// listener's own. Every connection of the listener passes through it, so
// a cap holds whatever the connection is then used for: keep-alive
// requests (one connection, counted once), a hijacked WebSocket or an
// HTTP/2 connection.
type cappedListener struct {
	net.Listener
	lingering chan struct{} // one token per lingering refused connection
	lim       *limiter      // nil or no Conns: no per-IP cap
	max       int64         // 0: no listener cap
	open      atomic.Int64
	// Refusals written as a connection is accepted, rendered once in the
	// listener's shape.
	perIPRefusal, fullRefusal []byte
}

func newCappedListener(ln net.Listener, f *Front, l Listener) *cappedListener {
	c := &cappedListener{Listener: ln, max: int64(l.MaxConns), lingering: make(chan struct{}, maxLingering)}
	h := f.Handler(l.Options, http.NotFoundHandler()).(*handler)
	render := h.rendered
	if l.H2C {
		// A cleartext HTTP/2 port's clients (gRPC) speak HTTP/2 from
		// their first byte and would read an HTTP/1.1 answer as a bad
		// frame.
		render = h2Refusal
	}
	if f.lim != nil && f.lim.cfg.Conns > 0 {
		c.lim = f.lim
		c.perIPRefusal = render(Refusal{Reason: TooManyConnections, Status: http.StatusTooManyRequests,
			Message: "too many connections from your address (" + strconv.Itoa(f.lim.cfg.Conns) + " max)"})
	}
	c.fullRefusal = render(Refusal{Reason: TooManyConnections, Status: http.StatusServiceUnavailable,
		Message: "too many connections to this port (" + strconv.Itoa(l.MaxConns) + " max)"})
	return c
}

// refusalWriteTimeout bounds the one write to a refused connection; a
// few hundred bytes to a fresh socket go straight to the kernel's
// buffer, so it is only reached by something very wrong.
const refusalWriteTimeout = 100 * time.Millisecond

// A refused connection is half-closed after its answer and then read
// (and discarded) for up to refusalLinger before it is closed, so that a
// client which had already sent its request reads the answer instead of
// a reset. At most maxLingering connections linger at once; past that a
// refused connection is closed right after its answer, so a flood of
// refusals holds at most that many descriptors.
const (
	refusalLinger = 250 * time.Millisecond
	maxLingering  = 64
	lingerDrain   = 64 << 10 // bytes read from a lingering connection at most
)

func (l *cappedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		ip := c.RemoteAddr().String()
		if h, _, err := net.SplitHostPort(ip); err == nil {
			ip = h
		}
		if l.max > 0 && l.open.Add(1) > l.max {
			l.open.Add(-1)
			l.refuse(c, l.fullRefusal)
			continue
		}
		if l.lim != nil && !l.lim.open(ip) {
			l.release()
			l.refuse(c, l.perIPRefusal)
			continue
		}
		return &countedConn{Conn: c, l: l, ip: ip}, nil
	}
}

func (l *cappedListener) release() {
	if l.max > 0 {
		l.open.Add(-1)
	}
}

// refuse writes a refusal to a connection nothing was read from and
// closes it: at once, or after a short linger (see refusalLinger).
func (l *cappedListener) refuse(c net.Conn, refusal []byte) {
	c.SetWriteDeadline(time.Now().Add(refusalWriteTimeout))
	if _, err := c.Write(refusal); err != nil {
		c.Close()
		return
	}
	tc, ok := c.(*net.TCPConn)
	if !ok {
		c.Close()
		return
	}
	select {
	case l.lingering <- struct{}{}:
	default:
		c.Close()
		return
	}
	tc.CloseWrite()
	go func() {
		defer func() { <-l.lingering }()
		c.SetReadDeadline(time.Now().Add(refusalLinger))
		io.Copy(io.Discard, io.LimitReader(c, lingerDrain))
		c.Close()
	}()
}

// countedConn gives its slots back when closed, once, by whichever of
// net/http, the HTTP/2 server or a WebSocket library closes it.
type countedConn struct {
	net.Conn
	l    *cappedListener
	ip   string
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() {
		if c.l.lim != nil {
			c.l.lim.closed(c.ip)
		}
		c.l.release()
	})
	return c.Conn.Close()
}

// rendered is a refusal in the listener's shape as a whole HTTP/1.1
// response that closes the connection, written by the listener without a
// request (its Refuser sees a bare POST /).
func (h *handler) rendered(ref Refusal) []byte {
	r, _ := http.NewRequest(http.MethodPost, "/", nil)
	rec := &recorder{h: http.Header{}}
	h.refuse(rec, r, ref)
	if rec.code == 0 {
		rec.code = http.StatusOK
	}
	resp := &http.Response{StatusCode: rec.code, ProtoMajor: 1, ProtoMinor: 1, Header: rec.h,
		ContentLength: int64(rec.body.Len()), Body: io.NopCloser(&rec.body), Close: true}
	var out bytes.Buffer
	resp.Write(&out)
	return out.Bytes()
}

// h2Refusal is a refusal as an HTTP/2 server opens and at once ends a
// connection (RFC 9113 3.4, 6.8): an empty SETTINGS frame, then GOAWAY
// with no stream processed, ENHANCE_YOUR_CALM and the reason as its
// debug data, which HTTP/2 clients report.
func h2Refusal(ref Refusal) []byte {
	const settings, goaway, enhanceYourCalm = 0x4, 0x7, 0xb
	frame := func(out []byte, typ byte, payload []byte) []byte {
		n := len(payload)
		out = append(out, byte(n>>16), byte(n>>8), byte(n), typ, 0, 0, 0, 0, 0)
		return append(out, payload...)
	}
	payload := binary.BigEndian.AppendUint32(nil, 0) // last stream id
	payload = binary.BigEndian.AppendUint32(payload, enhanceYourCalm)
	payload = append(payload, ref.Message...)
	return frame(frame(nil, settings, nil), goaway, payload)
}

// recorder is the ResponseWriter a refusal is rendered into.
type recorder struct {
	h    http.Header
	code int
	body bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.h }
func (r *recorder) Write(p []byte) (int, error) {
	if r.code == 0 {
		r.code = http.StatusOK
	}
	return r.body.Write(p)
}
func (r *recorder) WriteHeader(code int) {
	if r.code == 0 {
		r.code = code
	}
}
