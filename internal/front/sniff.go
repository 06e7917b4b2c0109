package front

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
	"time"
)

// ConnServer serves whole connections with a server of its own (an HTTP/2
// server for the gRPC port), beside net/http.
type ConnServer interface {
	// ServeConn serves c until it ends, handing requests to h, and
	// closes it.
	ServeConn(ctx context.Context, c net.Conn, h http.Handler)
	// Shutdown stops the connections gracefully, until ctx ends.
	Shutdown(ctx context.Context) error
}

// h2Preface opens every HTTP/2 connection made with prior knowledge.
const h2Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

// prefaceTimeout bounds how long a new connection may take to show which
// protocol it speaks, as net/http's ReadHeaderTimeout bounds a request.
const prefaceTimeout = 10 * time.Second

// sniffListener sorts a listener's connections by their first bytes:
// those that open with the HTTP/2 preface go to a ConnServer, the others
// (HTTP/1.1) come out of Accept for net/http.
type sniffListener struct {
	net.Listener
	srv     ConnServer
	handler http.Handler

	conns     chan net.Conn
	done      chan struct{}
	closeOnce sync.Once
	err       error // why accepting stopped, once done is closed
}

func newSniffListener(ln net.Listener, srv ConnServer, h http.Handler) *sniffListener {
	l := &sniffListener{Listener: ln, srv: srv, handler: h, conns: make(chan net.Conn), done: make(chan struct{})}
	go l.acceptLoop()
	return l
}

func (l *sniffListener) acceptLoop() {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() || !errors.Is(err, net.ErrClosed) && !isDone(l.done) {
				// Out of descriptors or similar: wait, as net/http does.
				time.Sleep(10 * time.Millisecond)
				continue
			}
			l.stop(err)
			return
		}
		go l.sniff(c)
	}
}

func isDone(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

func (l *sniffListener) stop(err error) {
	l.closeOnce.Do(func() {
		l.err = err
		close(l.done)
	})
}

// sniff reads as much of the preface as it takes to tell the protocols
// apart, and hands the connection on.
func (l *sniffListener) sniff(c net.Conn) {
	bc := &bufferedConn{Conn: c, r: bufio.NewReaderSize(c, readBufferSize)}
	c.SetReadDeadline(time.Now().Add(prefaceTimeout))
	h2 := false
	for n := 1; n <= len(h2Preface); n++ {
		p, err := bc.r.Peek(n)
		if err != nil {
			if n == 1 {
				c.Close() // closed or silent before its first byte
				return
			}
			break // let net/http answer whatever this is
		}
		if string(p) != h2Preface[:n] {
			break
		}
		h2 = n == len(h2Preface)
	}
	c.SetReadDeadline(time.Time{})
	if h2 {
		l.srv.ServeConn(context.Background(), bc, l.handler)
		return
	}
	select {
	case l.conns <- bc:
	case <-l.done:
		c.Close()
	}
}

func (l *sniffListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, l.err
	}
}

func (l *sniffListener) Close() error {
	err := l.Listener.Close()
	l.stop(net.ErrClosed)
	return err
}
