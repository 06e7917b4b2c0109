package front

import (
	"net"
	"net/http"
	"sync"
)

// freshConns tracks the connections net/http holds that have not read a
// byte of a request yet (http.StateNew). http.Server.Shutdown counts such
// a connection as idle only once it is five seconds old, in case its
// first request is under way: one a client opened and left silent (a
// transport's spare dial, a browser's preconnect, a port check) kept the
// node's Close waiting for its whole grace period with no request open.
// At shutdown they are closed at once; a request whose first bytes were
// just arriving on one is lost, as it would be moments later anyway.
type freshConns struct {
	mu     sync.Mutex
	conns  map[net.Conn]struct{}
	closed bool // shutting down: a connection accepted now is closed as it comes
}

// track is the server's ConnState hook.
func (f *freshConns) track(c net.Conn, s http.ConnState) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if s != http.StateNew {
		delete(f.conns, c)
		return
	}
	if f.closed {
		c.Close()
		return
	}
	if f.conns == nil {
		f.conns = map[net.Conn]struct{}{}
	}
	f.conns[c] = struct{}{}
}

// close closes the connections that have read nothing, and from now on
// every new one.
func (f *freshConns) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	for c := range f.conns {
		c.Close()
	}
	clear(f.conns)
}
