package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"time"
)

// rawConn is the load generator's side of one keep-alive HTTP/1.1
// connection. The generator shares the machine's cores with the node it
// measures, so its hot path is a prebuilt request written with one syscall
// and a response parsed just far enough to find and check the body:
// net/http's client spent about as much CPU per request as the server it
// was driving, which measured the client as much as the node.
type rawConn struct {
	addr string
	req  []byte // the whole request: head and body
	conn net.Conn
	br   *bufio.Reader
}

// newRawConn prepares (but does not dial) a connection that will POST body
// to rawURL for ever.
func newRawConn(rawURL string, body []byte) (*rawConn, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	if u.Scheme != "http" {
		return nil, fmt.Errorf("%s: only http:// endpoints can be driven", rawURL)
	}
	host := u.Host
	if u.Port() == "" {
		host = net.JoinHostPort(u.Hostname(), "80")
	}
	path := u.RequestURI()
	head := fmt.Sprintf("POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
		path, u.Host, len(body))
	return &rawConn{addr: host, req: append([]byte(head), body...)}, nil
}

func (c *rawConn) close() {
	if c.conn != nil {
		c.conn.Close()
		c.conn = nil
	}
}

// roundTrip sends the request and reads the response body into buf[:0].
// Any error leaves the connection closed; the next call dials again.
func (c *rawConn) roundTrip(buf []byte) ([]byte, error) {
	if c.conn == nil {
		conn, err := net.DialTimeout("tcp", c.addr, 5*time.Second)
		if err != nil {
			return buf, err
		}
		c.conn = conn
		if c.br == nil {
			c.br = bufio.NewReaderSize(conn, 16<<10)
		} else {
			c.br.Reset(conn)
		}
	}
	buf, keep, err := c.exchange(buf[:0])
	if err != nil || !keep {
		c.close()
	}
	return buf, err
}

var (
	errBadStatusLine = errors.New("malformed HTTP status line")
	errBadHeader     = errors.New("malformed HTTP header line")
	errBadChunk      = errors.New("malformed chunked body")
)

func (c *rawConn) exchange(buf []byte) ([]byte, bool, error) {
	if _, err := c.conn.Write(c.req); err != nil {
		return buf, false, err
	}
	line, err := c.br.ReadSlice('\n')
	if err != nil {
		return buf, false, err
	}
	// "HTTP/1.1 200 OK\r\n"
	if len(line) < 12 || !bytes.HasPrefix(line, []byte("HTTP/1.")) || line[8] != ' ' {
		return buf, false, errBadStatusLine
	}
	status, err := strconv.Atoi(string(line[9:12]))
	if err != nil {
		return buf, false, errBadStatusLine
	}
	keep := line[7] == '1'
	length, chunked := -1, false
	for {
		line, err = c.br.ReadSlice('\n')
		if err != nil {
			return buf, false, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			break
		}
		i := bytes.IndexByte(line, ':')
		if i <= 0 {
			return buf, false, errBadHeader
		}
		name, value := line[:i], bytes.TrimSpace(line[i+1:])
		switch {
		case asciiEqualFold(name, "content-length"):
			n, err := strconv.Atoi(string(value))
			if err != nil || n < 0 {
				return buf, false, errBadHeader
			}
			length = n
		case asciiEqualFold(name, "transfer-encoding"):
			chunked = asciiEqualFold(value, "chunked")
		case asciiEqualFold(name, "connection"):
			if asciiEqualFold(value, "close") {
				keep = false
			} else if asciiEqualFold(value, "keep-alive") {
				keep = true
			}
		}
	}
	switch {
	case chunked:
		buf, err = readChunked(c.br, buf)
	case length >= 0:
		buf, err = readN(c.br, buf, length)
	default:
		// No framing: the body runs to the end of the connection.
		buf, err = readAllInto(c.br, buf)
		keep = false
	}
	if err != nil {
		return buf, false, err
	}
	if status != 200 {
		return buf, keep, fmt.Errorf("HTTP %d: %.200s", status, bytes.TrimSpace(buf))
	}
	return buf, keep, nil
}

func readN(r io.Reader, buf []byte, n int) ([]byte, error) {
	start := len(buf)
	buf = append(buf, make([]byte, n)...)
	_, err := io.ReadFull(r, buf[start:])
	return buf, err
}

func readChunked(br *bufio.Reader, buf []byte) ([]byte, error) {
	for {
		line, err := br.ReadSlice('\n')
		if err != nil {
			return buf, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if i := bytes.IndexByte(line, ';'); i >= 0 {
			line = line[:i]
		}
		n, err := strconv.ParseUint(string(bytes.TrimSpace(line)), 16, 31)
		if err != nil {
			return buf, errBadChunk
		}
		if n == 0 {
			// Trailers, then the empty line.
			for {
				line, err := br.ReadSlice('\n')
				if err != nil {
					return buf, err
				}
				if len(bytes.TrimRight(line, "\r\n")) == 0 {
					return buf, nil
				}
			}
		}
		if buf, err = readN(br, buf, int(n)); err != nil {
			return buf, err
		}
		if crlf, err := br.ReadSlice('\n'); err != nil || len(bytes.TrimRight(crlf, "\r\n")) != 0 {
			return buf, errBadChunk
		}
	}
}

func asciiEqualFold[T string | []byte](b T, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		x := b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if x != s[i] {
			return false
		}
	}
	return true
}
