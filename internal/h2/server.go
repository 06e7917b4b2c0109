// Package h2 is a small HTTP/2 server (RFC 9113) for cleartext
// connections opened with prior knowledge, as gRPC clients open them. It
// serves an http.Handler, so one handler serves both this server and
// net/http's, and implements what such clients use: SETTINGS, PING,
// GOAWAY, RST_STREAM, flow control both ways, HEADERS and CONTINUATION
// with HPACK (hpack.go), DATA, trailers, concurrent and bidirectional
// streams. It does not push, does not do priorities (PRIORITY frames are
// read and ignored) and does not serve CONNECT.
//
// Its reason to exist is the write path: every connection has one
// buffer that frames of all its streams are appended to, and one writer
// that sends whatever has gathered in one write call when a stream
// flushes or ends. A whole unary answer (headers, data, trailers) is
// one write, and a busy connection's answers share writes.
package h2

import (
	"context"
	"net"
	"net/http"
	"sync"
	"time"
)

// Server serves HTTP/2 connections. Its zero value is usable; the zero
// fields take the defaults documented on them.
type Server struct {
	// MaxConcurrentStreams is how many streams a client may have open
	// (SETTINGS_MAX_CONCURRENT_STREAMS); default 250. Streams whose
	// handler still runs count, even if the client reset them.
	MaxConcurrentStreams uint32
	// MaxHeaderListSize bounds a request's decoded headers
	// (SETTINGS_MAX_HEADER_LIST_SIZE, RFC 9113 §6.5.2 accounting);
	// default 64 KiB. A larger request is answered 431.
	MaxHeaderListSize uint32
	// StreamWindow is the receive window of each stream; default 256 KiB.
	StreamWindow uint32
	// ConnWindow is the receive window of the connection; default 1 MiB.
	ConnWindow uint32
	// IdleTimeout closes a connection without streams after this long
	// (GOAWAY, then close); default 2 minutes.
	IdleTimeout time.Duration
	// PrefaceTimeout bounds the wait for the client's preface and
	// SETTINGS; default 10 seconds.
	PrefaceTimeout time.Duration
	// MaxResetsPerSecond bounds the streams a connection may see reset,
	// by the client (RST_STREAM) or by the server for the client's
	// fault, with a burst of twice as many; past it the connection gets
	// GOAWAY ENHANCE_YOUR_CALM. Default 100 (abuse.go).
	MaxResetsPerSecond int
	// MaxControlPerSecond bounds, the same way, the frames that need an
	// answer (PING, SETTINGS) or carry nothing (PRIORITY, empty DATA or
	// CONTINUATION, unknown types). Default 1000.
	MaxControlPerSecond int

	mu       sync.Mutex
	conns    map[*conn]struct{}
	shutdown bool
	done     chan struct{} // closed when shutdown and the last connection ended
}

func (s *Server) defaults() {
	if s.MaxConcurrentStreams == 0 {
		s.MaxConcurrentStreams = 250
	}
	if s.MaxHeaderListSize == 0 {
		s.MaxHeaderListSize = 64 << 10
	}
	if s.StreamWindow == 0 {
		s.StreamWindow = 256 << 10
	}
	if s.ConnWindow == 0 {
		s.ConnWindow = 1 << 20
	}
	if s.IdleTimeout == 0 {
		s.IdleTimeout = 2 * time.Minute
	}
	if s.PrefaceTimeout == 0 {
		s.PrefaceTimeout = 10 * time.Second
	}
	if s.MaxResetsPerSecond <= 0 {
		s.MaxResetsPerSecond = DefaultResetsPerSecond
	}
	if s.MaxControlPerSecond <= 0 {
		s.MaxControlPerSecond = DefaultControlPerSecond
	}
}

// ServeConn serves one connection until it ends, handing each request to
// h with a context derived from ctx. The connection must start with the
// client preface (which ServeConn reads). It closes c before returning.
func (s *Server) ServeConn(ctx context.Context, c net.Conn, h http.Handler) {
	s.mu.Lock()
	if s.shutdown {
		s.mu.Unlock()
		c.Close()
		return
	}
	s.defaults()
	if s.conns == nil {
		s.conns = map[*conn]struct{}{}
	}
	cn := newConn(s, ctx, c, h)
	s.conns[cn] = struct{}{}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.conns, cn)
		if s.shutdown && len(s.conns) == 0 && s.done != nil {
			close(s.done)
			s.done = nil
		}
		s.mu.Unlock()
	}()
	cn.serve()
}

// Shutdown tells every connection to go away (GOAWAY: no new streams)
// and waits, until ctx ends, for their streams to finish; connections
// still open then are closed. Connections served later are closed at
// once.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.shutdown = true
	var done chan struct{}
	if len(s.conns) > 0 {
		if s.done == nil {
			s.done = make(chan struct{})
		}
		done = s.done
	}
	conns := make([]*conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.goAway(ErrNo, "server shutting down")
	}
	if done == nil {
		return nil
	}
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		for _, c := range conns {
			c.close()
		}
		return ctx.Err()
	}
}
