package front

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
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
}

// Server is a listener being served.
type Server struct {
	kind string
	addr string
	srv  *http.Server
	h2   ConnServer
}

// Kind is the listener's kind.
func (s *Server) Kind() string { return s.kind }

// Addr is the address the listener is bound to.
func (s *Server) Addr() string { return s.addr }

// Shutdown stops accepting and waits, until ctx ends, for requests in
// flight. Hijacked (WebSocket) connections are their handlers' to close.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	if s.h2 != nil {
		err = errors.Join(err, s.h2.Shutdown(ctx))
	}
	return err
}

// Listen binds l.Addr and serves l.Handler behind the front's middleware
// and connection cap, logging "listening kind=... addr=...".
//
// A connection past a client's cap is not dropped silently: it is served
// one answer, the listener's 429 refusal with "Connection: close", and
// then closed, so the client learns why instead of seeing a reset. It does
// not count toward the cap, and net/http's ReadHeaderTimeout bounds how
// long it can be held before its request arrives.
func (f *Front) Listen(l Listener) (*Server, error) {
	ln, err := net.Listen("tcp", l.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen %s: %w", l.Kind, err)
	}
	// An idle keep-alive connection is closed after two minutes: a client
	// that opens connections and walks away must not hold them (and their
	// goroutines) for good.
	srv := &http.Server{Handler: f.Handler(l.Options, l.Handler), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	sniff := l.H2C && l.H2 != nil
	if l.H2C && !sniff {
		srv.Protocols = new(http.Protocols)
		srv.Protocols.SetHTTP1(true)
		srv.Protocols.SetUnencryptedHTTP2(true)
		ln = bufferedListener{ln}
	}
	if f.lim != nil && f.lim.cfg.Conns > 0 {
		ln = &cappedListener{Listener: ln, lim: f.lim}
		srv.ConnContext = func(ctx context.Context, c net.Conn) context.Context {
			if overCap(c) {
				return context.WithValue(ctx, overCapKey{}, true)
			}
			return ctx
		}
	}
	if sniff {
		// The sorting listener reads each connection through its own
		// buffer, so it sits outside the connection cap.
		ln = newSniffListener(ln, l.H2, srv.Handler)
	}
	s := &Server{kind: l.Kind, addr: ln.Addr().String(), srv: srv}
	if sniff {
		s.h2 = l.H2
	}
	f.log.Info("listening", "kind", l.Kind, "addr", s.addr)
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

// overCapKey marks, in a connection's context, that it was accepted past
// its client's cap.
type overCapKey struct{}

// cappedListener counts each client IP's open connections. Every
// connection of the listener passes through it, so a cap holds whatever
// the connection is then used for: keep-alive requests (one connection,
// counted once) or a hijacked WebSocket.
type cappedListener struct {
	net.Listener
	lim *limiter
}

func (l *cappedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	ip := c.RemoteAddr().String()
	if h, _, err := net.SplitHostPort(ip); err == nil {
		ip = h
	}
	if !l.lim.open(ip) {
		return &refusedConn{c}, nil
	}
	return &countedConn{Conn: c, lim: l.lim, ip: ip}, nil
}

// countedConn gives its slot back when closed, once, by whichever of
// net/http or a WebSocket library closes it.
type countedConn struct {
	net.Conn
	lim  *limiter
	ip   string
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() { c.lim.closed(c.ip) })
	return c.Conn.Close()
}

// refusedConn is a connection past its client's cap (see Listen).
type refusedConn struct{ net.Conn }
