package front

import (
	"bufio"
	"net"
)

// net/http's HTTP/2 server reads each frame's nine-byte header and then
// its payload straight from the connection: two read calls into the
// kernel per frame, four or more per gRPC call. Reading the connection
// through a buffer lets one call take in every frame that has arrived,
// which on a busy connection is many calls' worth.

// readBufferSize is the buffer of each HTTP/2 listener's connections.
const readBufferSize = 16 << 10

// bufferedListener hands out connections that are read through a buffer.
type bufferedListener struct{ net.Listener }

func (l bufferedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &bufferedConn{Conn: c, r: bufio.NewReaderSize(c, readBufferSize)}, nil
}

// bufferedConn is a connection read through a buffer; writes, deadlines
// and Close go to the connection.
type bufferedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *bufferedConn) Read(p []byte) (int, error) { return c.r.Read(p) }
