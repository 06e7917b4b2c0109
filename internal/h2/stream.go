package h2

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/textproto"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
)

// A stream is one request and its response. The handler's goroutine owns
// the response fields; the rest is guarded by the connection's mu.
type stream struct {
	c      *conn
	id     uint32
	ctx    context.Context
	cancel context.CancelFunc

	rcond      sync.Cond // Body.Read waits for data
	buf        []byte    // received body bytes not yet read, from off
	off        int
	recvDone   bool  // END_STREAM received (or the stream was reset)
	recvErr    error // what Body.Read returns once the stream failed
	bodyClosed bool
	recvWindow int64 // bytes the client may still send on the stream
	recvCredit int64
	received   int64
	declared   int64 // content-length, -1 if none
	sendWindow int64
	err        error // the stream was reset or the connection closed

	// Handler goroutine only.
	hdr         http.Header
	status      int
	wroteHeader bool
	sentHeader  bool
	block       []byte // the encoded response headers, snapshot of WriteHeader
	trailerKeys []string
	closeConn   bool // the handler set "Connection: close"
}

var (
	errConnClosed = errors.New("http2: connection closed")
	errBodyClosed = errors.New("http2: request body closed")
)

type resetError struct {
	code   ErrCode
	byPeer bool
}

func (e *resetError) Error() string {
	if e.byPeer {
		return "http2: stream reset by the client: " + e.code.String()
	}
	return "http2: stream reset: " + e.code.String()
}

func errResetByPeer(code ErrCode) error   { return &resetError{code: code, byPeer: true} }
func errResetByServer(code ErrCode) error { return &resetError{code: code} }

// fail ends a stream abnormally: reads and writes fail with err and the
// handler's context is canceled. c.mu is held.
func (st *stream) fail(err error) {
	if st.err == nil {
		st.err = err
	}
	if st.recvErr == nil {
		st.recvErr = err
	}
	st.rcond.Broadcast()
	st.c.scond.Broadcast()
	st.cancel()
}

// creditLocked returns n consumed bytes to the stream window.
func (st *stream) creditLocked(n int64) {
	st.recvCredit += n
	c := st.c
	if st.recvDone || st.err != nil || c.closed || st.recvCredit < int64(c.srv.StreamWindow)/4 {
		return
	}
	c.out = appendFrameHdr(c.out, 4, frameWindowUpdate, 0, st.id)
	c.out = appendUint32(c.out, uint32(st.recvCredit))
	st.recvWindow += st.recvCredit
	st.recvCredit = 0
	c.flushLocked()
}

// onHeaders handles a complete header block: a new request, or the
// trailers of one.
func (c *conn) onHeaders(id uint32, end bool) error {
	// Every block is decoded, whatever becomes of its stream, to keep the
	// decoder's table in step with the client's.
	var fields []HeaderField
	var size uint32
	tooBig := false
	err := c.dec.Decode(c.block, func(f HeaderField) error {
		size += f.size()
		if size > c.srv.MaxHeaderListSize {
			tooBig = true
		} else if !tooBig {
			fields = append(fields, f)
		}
		return nil
	})
	if err != nil {
		return err
	}
	c.mu.Lock()
	if st := c.streams[id]; st != nil {
		defer c.mu.Unlock()
		if st.recvDone {
			return &StreamError{Stream: id, Code: ErrStreamClosed, Reason: "HEADERS after END_STREAM"}
		}
		if !end {
			return &StreamError{Stream: id, Code: ErrProtocol, Reason: "trailers without END_STREAM"}
		}
		st.recvDone = true
		if st.declared >= 0 && st.received != st.declared {
			return &StreamError{Stream: id, Code: ErrProtocol, Reason: "body length differs from content-length"}
		}
		st.rcond.Signal()
		return nil
	}
	if id%2 == 0 {
		c.mu.Unlock()
		return connErr(ErrProtocol, "client opened even stream %d", id)
	}
	if id <= c.maxStreamID {
		_, reset := c.resetIDs[id]
		c.mu.Unlock()
		if reset {
			return nil // trailers of a stream the server reset
		}
		return connErr(ErrStreamClosed, "HEADERS on closed stream %d", id)
	}
	c.maxStreamID = id
	if c.goingAway {
		// Past the last stream GOAWAY announced: ignored, as the client
		// was told it would be.
		c.mu.Unlock()
		return nil
	}
	if uint32(c.active) >= c.srv.MaxConcurrentStreams {
		c.mu.Unlock()
		return &StreamError{Stream: id, Code: ErrRefusedStream, Reason: "too many concurrent streams"}
	}
	c.mu.Unlock()
	if tooBig {
		c.mu.Lock()
		block := appendField(nil, ":status", "431")
		c.out = appendHeaderFrames(c.out, id, block, true, c.peerFrame)
		c.flushLocked()
		c.mu.Unlock()
		if !end {
			c.resetStream(id, ErrNo)
		}
		return nil
	}
	st := &stream{c: c, id: id, declared: -1, recvDone: end,
		recvWindow: int64(c.srv.StreamWindow)}
	st.rcond.L = &c.mu
	r, err := c.newRequest(st, fields, end)
	if err != nil {
		return &StreamError{Stream: id, Code: ErrProtocol, Reason: err.Error()}
	}
	c.mu.Lock()
	st.sendWindow = c.peerWindow
	c.streams[id] = st
	c.active++
	if c.active == 1 && c.idle != nil {
		c.idle.Stop()
	}
	c.mu.Unlock()
	go st.run(r)
	return nil
}

// newRequest checks a request's header fields (RFC 9113 §8.2-8.3) and
// builds the http.Request the handler gets.
func (c *conn) newRequest(st *stream, fields []HeaderField, end bool) (*http.Request, error) {
	var method, scheme, path, authority string
	hdr := make(http.Header, len(fields))
	regular := false
	for _, f := range fields {
		if strings.HasPrefix(f.Name, ":") {
			if regular {
				return nil, errors.New("pseudo-header after a regular header")
			}
			var p *string
			switch f.Name {
			case ":method":
				p = &method
			case ":scheme":
				p = &scheme
			case ":path":
				p = &path
			case ":authority":
				p = &authority
			default:
				return nil, fmt.Errorf("unknown pseudo-header %s", f.Name)
			}
			if *p != "" {
				return nil, fmt.Errorf("pseudo-header %s repeated", f.Name)
			}
			*p = f.Value
			continue
		}
		regular = true
		if !validName(f.Name) {
			return nil, fmt.Errorf("invalid header name %q", f.Name)
		}
		if !validValue(f.Value) {
			return nil, fmt.Errorf("invalid value of header %s", f.Name)
		}
		switch f.Name {
		case "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade":
			return nil, fmt.Errorf("connection-specific header %s", f.Name)
		case "te":
			if f.Value != "trailers" {
				return nil, errors.New(`te header other than "trailers"`)
			}
		}
		k := canonicalKey(f.Name)
		hdr[k] = append(hdr[k], f.Value)
	}
	if method == "" || scheme == "" || path == "" {
		return nil, errors.New("missing :method, :scheme or :path")
	}
	if method == http.MethodConnect {
		return nil, errors.New("CONNECT is not served")
	}
	if cookies := hdr["Cookie"]; len(cookies) > 1 {
		hdr["Cookie"] = []string{strings.Join(cookies, "; ")}
	}
	u, err := url.ParseRequestURI(path)
	if err != nil {
		return nil, fmt.Errorf("invalid :path: %v", err)
	}
	if authority == "" {
		authority = hdr.Get("Host")
	}
	r := &http.Request{Method: method, URL: u, Proto: "HTTP/2.0", ProtoMajor: 2, Header: hdr,
		Host: authority, RemoteAddr: c.remote, RequestURI: path, ContentLength: -1}
	if cl := hdr["Content-Length"]; len(cl) > 0 {
		n, err := strconv.ParseInt(cl[0], 10, 64)
		if err != nil || n < 0 || len(cl) > 1 {
			return nil, errors.New("invalid content-length")
		}
		r.ContentLength, st.declared = n, n
		if end && n != 0 {
			return nil, errors.New("body length differs from content-length")
		}
	}
	if end {
		r.ContentLength, r.Body = 0, http.NoBody
	} else {
		r.Body = body{st}
	}
	st.ctx, st.cancel = context.WithCancel(c.ctx)
	return r.WithContext(st.ctx), nil
}

// validName reports whether a header name is lower-case token
// characters, as HTTP/2 requires.
func validName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b >= 'A' && b <= 'Z' || b <= ' ' || b >= 0x7f || strings.IndexByte("\"(),/:;<=>?@[\\]{}", b) >= 0 {
			return false
		}
	}
	return true
}

// validValue reports whether a header value has no NUL, CR or LF.
func validValue(s string) bool {
	return strings.IndexAny(s, "\x00\r\n") < 0
}

// The keys of the headers gRPC requests and answers carry, mapped both
// ways once rather than converted per call.
var (
	canonicalKeys = map[string]string{}
	lowerKeys     = map[string]string{}
)

func init() {
	for _, k := range []string{"Content-Type", "Content-Length", "Te", "User-Agent", "Grpc-Timeout",
		"Grpc-Encoding", "Grpc-Accept-Encoding", "Grpc-Status", "Grpc-Message", "Authorization",
		"Accept-Encoding", "Host", "Origin", "Retry-After", "Allow", "Vary", "X-Content-Type-Options",
		"Access-Control-Allow-Origin", "Access-Control-Allow-Methods", "Access-Control-Allow-Headers",
		"Access-Control-Max-Age", "Cookie", "X-Forwarded-For"} {
		canonicalKeys[strings.ToLower(k)] = k
		lowerKeys[k] = strings.ToLower(k)
	}
}

func canonicalKey(s string) string {
	if k, ok := canonicalKeys[s]; ok {
		return k
	}
	return textproto.CanonicalMIMEHeaderKey(s)
}

func lowerKey(s string) string {
	if k, ok := lowerKeys[s]; ok {
		return k
	}
	return strings.ToLower(s)
}

// body is a request body: the stream's received data.
type body struct{ st *stream }

func (b body) Read(p []byte) (int, error) {
	st := b.st
	c := st.c
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		if st.recvErr != nil {
			return 0, st.recvErr
		}
		if st.off < len(st.buf) {
			break
		}
		if st.recvDone {
			return 0, io.EOF
		}
		if len(p) == 0 {
			return 0, nil
		}
		st.rcond.Wait()
	}
	n := copy(p, st.buf[st.off:])
	st.off += n
	if st.off == len(st.buf) {
		st.buf, st.off = st.buf[:0], 0
	}
	c.creditLocked(int64(n))
	st.creditLocked(int64(n))
	return n, nil
}

// Close discards the rest of the body; what the client still sends is
// returned to its windows on arrival.
func (b body) Close() error {
	st := b.st
	c := st.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if st.recvErr == nil {
		st.recvErr = errBodyClosed
	}
	st.bodyClosed = true
	c.creditLocked(int64(len(st.buf) - st.off))
	st.buf, st.off = nil, 0
	return nil
}

// run serves the request and ends the stream.
func (st *stream) run(r *http.Request) {
	defer st.finish()
	st.c.h.ServeHTTP(st, r)
}

// Header is the response's header map; after WriteHeader, values of
// declared trailers (and keys prefixed with http.TrailerPrefix) set in it
// are sent as trailers.
func (st *stream) Header() http.Header {
	if st.hdr == nil {
		st.hdr = make(http.Header, 4)
	}
	return st.hdr
}

// WriteHeader fixes the status and headers; they are sent with the first
// data, the first Flush, or the end of the response.
func (st *stream) WriteHeader(code int) {
	if st.wroteHeader || code >= 100 && code < 200 {
		return // informational answers are not sent
	}
	st.wroteHeader, st.status = true, code
	h := st.Header()
	for _, v := range h["Trailer"] {
		for _, k := range strings.Split(v, ",") {
			if k = strings.TrimSpace(k); k != "" {
				st.trailerKeys = append(st.trailerKeys, http.CanonicalHeaderKey(k))
			}
		}
	}
	st.block = appendStatus(st.block[:0], code)
	for k, vs := range h {
		switch k {
		case "Connection":
			if len(vs) > 0 && strings.EqualFold(vs[0], "close") {
				st.closeConn = true
			}
			continue
		case "Keep-Alive", "Proxy-Connection", "Transfer-Encoding", "Upgrade", "Trailer":
			continue
		}
		if strings.HasPrefix(k, http.TrailerPrefix) {
			continue
		}
		name := lowerKey(k)
		for _, v := range vs {
			st.block = appendField(st.block, name, v)
		}
	}
}

func appendStatus(dst []byte, code int) []byte {
	switch code {
	case 200, 204, 206, 304, 400, 404, 500:
		return appendField(dst, ":status", strconv.Itoa(code))
	}
	return appendString(appendInt(dst, 0, 4, 8), strconv.Itoa(code))
}

// sendHeadersLocked queues the response headers. c.mu is held.
func (st *stream) sendHeadersLocked(end bool) {
	c := st.c
	c.out = appendHeaderFrames(c.out, st.id, st.block, end, c.peerFrame)
	st.sentHeader = true
}

// appendHeaderFrames appends a header block as HEADERS and, past the
// peer's frame size, CONTINUATION frames.
func appendHeaderFrames(dst []byte, id uint32, block []byte, end bool, frame int) []byte {
	typ, flags := uint8(frameHeaders), uint8(0)
	if end {
		flags = flagEndStream
	}
	for {
		n := min(len(block), frame)
		f := flags
		if n == len(block) {
			f |= flagEndHeaders
		}
		dst = appendFrameHdr(dst, n, typ, f, id)
		dst = append(dst, block[:n]...)
		block = block[n:]
		if len(block) == 0 {
			return dst
		}
		typ, flags = frameContinuation, 0
	}
}

// Write sends body bytes as DATA frames within the client's windows,
// waiting for WINDOW_UPDATE when they are spent. The bytes go out with
// the next flush: a Flush, the end of the response, or a full buffer.
func (st *stream) Write(p []byte) (int, error) {
	if !st.wroteHeader {
		st.WriteHeader(http.StatusOK)
	}
	c := st.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := st.errLocked(); err != nil {
		return 0, err
	}
	if !st.sentHeader {
		st.sendHeadersLocked(false)
	}
	n := 0
	for len(p) > 0 {
		if err := st.errLocked(); err != nil {
			return n, err
		}
		k := int(min(int64(len(p)), int64(c.peerFrame), st.sendWindow, c.sendWindow))
		if k <= 0 || len(c.out) >= maxOut {
			c.flushLocked()
			c.scond.Wait()
			continue
		}
		c.out = appendFrameHdr(c.out, k, frameData, 0, st.id)
		c.out = append(c.out, p[:k]...)
		st.sendWindow -= int64(k)
		c.sendWindow -= int64(k)
		p = p[k:]
		n += k
	}
	if len(c.out) >= 64<<10 {
		c.flushLocked()
	}
	return n, nil
}

func (st *stream) errLocked() error {
	if st.err != nil {
		return st.err
	}
	if st.c.closed {
		return errConnClosed
	}
	return nil
}

// Flush sends the headers, if not yet sent, and everything written.
func (st *stream) Flush() {
	if !st.wroteHeader {
		st.WriteHeader(http.StatusOK)
	}
	c := st.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if st.errLocked() != nil {
		return
	}
	if !st.sentHeader {
		st.sendHeadersLocked(false)
	}
	c.flushLocked()
}

// finish ends the response once the handler returned: headers if not
// sent (alone, ending the stream, when there is nothing else), then the
// trailers or an empty END_STREAM DATA frame, all in one flush.
func (st *stream) finish() {
	c := st.c
	failed := false
	if p := recover(); p != nil {
		failed = true
		if p != http.ErrAbortHandler {
			// Like net/http, a handler's panic takes down its stream only.
			log.Printf("http2: panic serving %s: %v\n%s", c.remote, p, debug.Stack())
		}
	}
	if !st.wroteHeader && !failed {
		st.WriteHeader(http.StatusOK)
	}
	var trailers []byte
	if !failed {
		trailers = st.trailerBlock()
	}
	c.mu.Lock()
	if failed && st.err == nil {
		c.mu.Unlock()
		c.resetStream(st.id, ErrInternal)
		c.mu.Lock()
	}
	if st.errLocked() == nil {
		switch {
		case !st.sentHeader && trailers == nil:
			st.sendHeadersLocked(true)
		case trailers != nil:
			if !st.sentHeader {
				st.sendHeadersLocked(false)
			}
			c.out = appendHeaderFrames(c.out, st.id, trailers, true, c.peerFrame)
		default:
			c.out = appendFrameHdr(c.out, 0, frameData, flagEndStream, st.id)
		}
		if !st.recvDone {
			// The answer is complete before the request: the client may
			// stop sending (RFC 9113 §8.1).
			c.out = appendFrameHdr(c.out, 4, frameRSTStream, 0, st.id)
			c.out = appendUint32(c.out, uint32(ErrNo))
			c.noteResetLocked(st.id)
			st.recvDone = true
		}
		c.flushLocked()
	}
	// Unread body bytes go back to the connection window.
	c.creditLocked(int64(len(st.buf) - st.off))
	st.buf = nil
	if c.streams[st.id] == st {
		delete(c.streams, st.id)
	}
	c.active--
	end := c.active == 0 && c.goingAway
	if c.active == 0 && !c.goingAway && c.idle != nil {
		c.idle.Reset(c.srv.IdleTimeout)
	}
	c.mu.Unlock()
	st.cancel()
	if st.closeConn {
		c.goAway(ErrNo, "")
		return
	}
	if end {
		c.close()
	}
}

// trailerBlock encodes the trailers the handler set, or returns nil.
func (st *stream) trailerBlock() []byte {
	var block []byte
	for _, k := range st.trailerKeys {
		for _, v := range st.hdr[k] {
			block = appendField(block, lowerKey(k), v)
		}
	}
	for k, vs := range st.hdr {
		if name, ok := strings.CutPrefix(k, http.TrailerPrefix); ok {
			for _, v := range vs {
				block = appendField(block, strings.ToLower(name), v)
			}
		}
	}
	return block
}
