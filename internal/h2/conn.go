package h2

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// maxOut is how many bytes may wait in a connection's write buffer before
// streams writing more wait for the writer, and maxControlOut how many
// before a peer that makes the server answer (PINGs, SETTINGS) without
// reading the answers is cut off.
const (
	maxOut        = 1 << 20
	maxControlOut = 4 << 20
)

// conn is one HTTP/2 connection. Its reading goroutine (serve) decodes
// frames and owns the header decoder and stream creation; one goroutine
// per stream runs the handler; one writer goroutine sends what the others
// append to out. Everything shared is guarded by mu.
type conn struct {
	srv    *Server
	nc     net.Conn
	h      http.Handler
	ctx    context.Context
	cancel context.CancelFunc
	remote string

	// Reading goroutine only.
	fr          frameReader
	dec         *Decoder
	maxStreamID uint32 // highest stream the client opened
	contStream  uint32 // stream whose header block continues, 0 if none
	contEnd     bool   // that block's HEADERS had END_STREAM
	block       []byte // header block being gathered
	blockCost   int    // its bytes with each CONTINUATION frame's header
	resets      budget // stream resets, by either side (abuse.go)
	control     budget // frames that need an answer or carry nothing

	mu          sync.Mutex
	wcond       sync.Cond // the writer waits for a flush request
	scond       sync.Cond // senders wait for window or buffer room
	out, spare  []byte
	flushWanted bool
	closed      bool // no more frames are written; streams fail
	goingAway   bool // GOAWAY sent or received: no new streams
	streams     map[uint32]*stream
	active      int   // handlers running
	sendWindow  int64 // connection window of the client
	peerWindow  int64 // initial stream window of the client
	peerFrame   int   // largest frame the client accepts
	recvWindow  int64 // bytes the client may still send on the connection
	recvCredit  int64 // connection bytes consumed, not yet returned by WINDOW_UPDATE
	idle        *time.Timer
	// resetIDs are streams the server reset while the client could still
	// send on them: their late frames are ignored (RFC 9113 §5.1), where
	// HEADERS on any other closed stream ends the connection.
	resetIDs   map[uint32]struct{}
	writerDone chan struct{}
}

func newConn(s *Server, ctx context.Context, nc net.Conn, h http.Handler) *conn {
	c := &conn{srv: s, nc: nc, h: h, remote: nc.RemoteAddr().String(),
		dec:     NewDecoder(defaultHeaderTable),
		streams: map[uint32]*stream{}, sendWindow: defaultWindow, peerWindow: defaultWindow,
		peerFrame: defaultFrameSize, recvWindow: int64(s.ConnWindow), writerDone: make(chan struct{}),
		out: make([]byte, 0, 64<<10), spare: make([]byte, 0, 64<<10)}
	c.ctx, c.cancel = context.WithCancel(ctx)
	c.wcond.L, c.scond.L = &c.mu, &c.mu
	c.fr = frameReader{r: bufio.NewReaderSize(nc, 32<<10), max: defaultFrameSize}
	c.resets, c.control = newBudget(s.MaxResetsPerSecond), newBudget(s.MaxControlPerSecond)
	return c
}

// serve runs the connection: the preface, then frames until the end.
func (c *conn) serve() {
	go c.writer()
	defer func() {
		c.close()
		<-c.writerDone
		c.nc.Close()
	}()
	c.nc.SetReadDeadline(time.Now().Add(c.srv.PrefaceTimeout))
	var p [len(preface)]byte
	if _, err := io.ReadFull(c.fr.r, p[:]); err != nil || string(p[:]) != preface {
		return
	}
	c.mu.Lock()
	c.out = appendFrameHdr(c.out, 3*6, frameSettings, 0, 0)
	for _, s := range [][2]uint32{{settingMaxConcurrentStreams, c.srv.MaxConcurrentStreams},
		{settingInitialWindowSize, c.srv.StreamWindow}, {settingMaxHeaderListSize, c.srv.MaxHeaderListSize}} {
		c.out = append(c.out, byte(s[0]>>8), byte(s[0]))
		c.out = appendUint32(c.out, s[1])
	}
	if c.srv.ConnWindow > defaultWindow {
		c.out = appendFrameHdr(c.out, 4, frameWindowUpdate, 0, 0)
		c.out = appendUint32(c.out, c.srv.ConnWindow-defaultWindow)
	}
	c.flushLocked()
	c.mu.Unlock()
	c.idle = time.AfterFunc(c.srv.IdleTimeout, func() { c.goAway(ErrNo, "idle") })
	defer c.idle.Stop()

	first := true
	for {
		h, p, err := c.fr.next()
		if err == nil && first {
			if h.typ != frameSettings || h.has(flagAck) {
				err = connErr(ErrProtocol, "first frame is not SETTINGS")
			}
			first = false
			c.nc.SetReadDeadline(time.Time{})
		}
		if err == nil {
			err = c.handle(h, p)
		}
		var se *StreamError
		if errors.As(err, &se) {
			// Streams the client makes the server reset (refused,
			// malformed) cost as its own resets do.
			if !c.resets.spend(time.Now()) {
				c.goAway(errResetFlood.Code, errResetFlood.Reason)
				return
			}
			c.resetStream(se.Stream, se.Code)
			continue
		}
		if err != nil {
			var ce *ConnError
			if errors.As(err, &ce) {
				c.goAway(ce.Code, ce.Reason)
			}
			return
		}
	}
}

// handle processes one frame.
func (c *conn) handle(h frameHdr, p []byte) error {
	if c.contStream != 0 && (h.typ != frameContinuation || h.stream != c.contStream) {
		return connErr(ErrProtocol, "frame of type %d inside the header block of stream %d", h.typ, c.contStream)
	}
	if err := checkControl(h); err != nil {
		return err
	}
	if costly(h) && !c.control.spend(time.Now()) {
		return errControlFlood
	}
	switch h.typ {
	case frameData:
		return c.onData(h, p)
	case frameHeaders:
		block, err := headersBlock(h, p)
		if err != nil {
			return err
		}
		c.block = append(c.block[:0], block...)
		c.blockCost = len(block)
		if !h.has(flagEndHeaders) {
			c.contStream, c.contEnd = h.stream, h.has(flagEndStream)
			return nil
		}
		return c.onHeaders(h.stream, h.has(flagEndStream))
	case frameContinuation:
		if c.contStream == 0 {
			return connErr(ErrProtocol, "CONTINUATION without HEADERS")
		}
		c.blockCost += frameOverhead + len(p)
		if c.blockCost > int(c.srv.MaxHeaderListSize)+defaultFrameSize {
			return connErr(ErrEnhanceYourCalm, "header block over %d bytes", c.srv.MaxHeaderListSize)
		}
		c.block = append(c.block, p...)
		if !h.has(flagEndHeaders) {
			return nil
		}
		id := c.contStream
		c.contStream = 0
		return c.onHeaders(id, c.contEnd)
	case frameRSTStream:
		if h.stream > c.maxStreamID {
			return connErr(ErrProtocol, "RST_STREAM on idle stream %d", h.stream)
		}
		if !c.resets.spend(time.Now()) {
			return errResetFlood
		}
		c.mu.Lock()
		if st := c.streams[h.stream]; st != nil {
			st.fail(errResetByPeer(ErrCode(binary.BigEndian.Uint32(p))))
			delete(c.streams, h.stream)
		}
		c.mu.Unlock()
	case frameSettings:
		if h.has(flagAck) {
			return nil
		}
		return c.onSettings(p)
	case framePing:
		if h.has(flagAck) {
			return nil
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		c.out = appendFrameHdr(c.out, 8, framePing, flagAck, 0)
		c.out = append(c.out, p...)
		return c.controlFlushLocked()
	case frameGoAway:
		// The client opens no more streams; those open finish.
		c.mu.Lock()
		c.goingAway = true
		end := c.active == 0
		c.mu.Unlock()
		if end {
			return io.EOF
		}
	case frameWindowUpdate:
		return c.onWindowUpdate(h, p)
	}
	// PRIORITY and unknown frame types are ignored.
	return nil
}

func (c *conn) onData(h frameHdr, p []byte) error {
	if h.stream > c.maxStreamID {
		return connErr(ErrProtocol, "DATA on idle stream %d", h.stream)
	}
	data, err := unpad(h, p)
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.recvWindow -= int64(h.length)
	if c.recvWindow < 0 {
		return connErr(ErrFlowControl, "DATA past the connection window")
	}
	st := c.streams[h.stream]
	if st != nil && st.bodyClosed && !st.recvDone {
		c.creditLocked(int64(h.length))
		st.recvDone = h.has(flagEndStream)
		return nil
	}
	if st == nil || st.recvDone {
		// A stream already closed: its bytes still count on the
		// connection, so they are returned at once.
		c.creditLocked(int64(h.length))
		if st != nil {
			return &StreamError{Stream: h.stream, Code: ErrStreamClosed, Reason: "DATA after END_STREAM"}
		}
		return nil
	}
	st.recvWindow -= int64(h.length)
	if st.recvWindow < 0 {
		c.creditLocked(int64(h.length))
		return &StreamError{Stream: h.stream, Code: ErrFlowControl, Reason: "DATA past the stream window"}
	}
	// Padding is consumed on arrival.
	if pad := int64(h.length) - int64(len(data)); pad > 0 {
		c.creditLocked(pad)
		st.creditLocked(pad)
	}
	st.received += int64(len(data))
	if st.declared >= 0 && (st.received > st.declared || h.has(flagEndStream) && st.received != st.declared) {
		c.creditLocked(int64(len(data)))
		return &StreamError{Stream: h.stream, Code: ErrProtocol, Reason: "body length differs from content-length"}
	}
	st.buf = append(st.buf, data...)
	if h.has(flagEndStream) {
		st.recvDone = true
	}
	st.rcond.Signal()
	return nil
}

func (c *conn) onSettings(p []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for ; len(p) >= 6; p = p[6:] {
		id, v := binary.BigEndian.Uint16(p), binary.BigEndian.Uint32(p[2:])
		switch id {
		case settingEnablePush:
			if v > 1 {
				return connErr(ErrProtocol, "SETTINGS_ENABLE_PUSH of %d", v)
			}
		case settingInitialWindowSize:
			if v > maxWindow {
				return connErr(ErrFlowControl, "SETTINGS_INITIAL_WINDOW_SIZE of %d", v)
			}
			delta := int64(v) - c.peerWindow
			c.peerWindow = int64(v)
			for _, st := range c.streams {
				st.sendWindow += delta
				if st.sendWindow > maxWindow {
					return connErr(ErrFlowControl, "stream window over 2^31-1")
				}
			}
		case settingMaxFrameSize:
			if v < defaultFrameSize || v > maxFrameSizeLimit {
				return connErr(ErrProtocol, "SETTINGS_MAX_FRAME_SIZE of %d", v)
			}
			c.peerFrame = int(v)
		}
		// The header table size needs nothing: the encoder keeps no
		// dynamic table. The client's stream limit and header list size
		// limit bind only streams and headers it receives unasked.
	}
	c.out = appendFrameHdr(c.out, 0, frameSettings, flagAck, 0)
	c.scond.Broadcast()
	return c.controlFlushLocked()
}

func (c *conn) onWindowUpdate(h frameHdr, p []byte) error {
	inc := int64(binary.BigEndian.Uint32(p) & maxWindow)
	if h.stream == 0 {
		if inc == 0 {
			return connErr(ErrProtocol, "WINDOW_UPDATE of 0 on the connection")
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		c.sendWindow += inc
		if c.sendWindow > maxWindow {
			return connErr(ErrFlowControl, "connection window over 2^31-1")
		}
		c.scond.Broadcast()
		return nil
	}
	if h.stream > c.maxStreamID {
		return connErr(ErrProtocol, "WINDOW_UPDATE on idle stream %d", h.stream)
	}
	if inc == 0 {
		return &StreamError{Stream: h.stream, Code: ErrProtocol, Reason: "WINDOW_UPDATE of 0"}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if st := c.streams[h.stream]; st != nil {
		st.sendWindow += inc
		if st.sendWindow > maxWindow {
			return &StreamError{Stream: h.stream, Code: ErrFlowControl, Reason: "stream window over 2^31-1"}
		}
		c.scond.Broadcast()
	}
	return nil
}

// resetStream sends RST_STREAM and forgets the stream; its handler, if
// any, sees its context canceled and its writes fail.
func (c *conn) resetStream(id uint32, code ErrCode) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st := c.streams[id]; st != nil {
		st.fail(errResetByServer(code))
		delete(c.streams, id)
		if !st.recvDone {
			// What the client still sends is returned to the connection.
			st.recvDone = true
		}
	}
	if c.closed {
		return
	}
	c.noteResetLocked(id)
	c.out = appendFrameHdr(c.out, 4, frameRSTStream, 0, id)
	c.out = appendUint32(c.out, uint32(code))
	c.flushLocked()
}

// noteResetLocked remembers that the server reset stream id, keeping the
// most recent few hundred.
func (c *conn) noteResetLocked(id uint32) {
	if c.resetIDs == nil || len(c.resetIDs) >= 256 {
		c.resetIDs = map[uint32]struct{}{}
	}
	c.resetIDs[id] = struct{}{}
}

// goAway sends GOAWAY. With NO_ERROR the connection ends once its
// streams have; with an error code it ends now.
func (c *conn) goAway(code ErrCode, reason string) {
	c.mu.Lock()
	if c.closed || c.goingAway && code == ErrNo {
		c.mu.Unlock()
		return
	}
	c.goingAway = true
	debug := reason
	if code == ErrNo {
		debug = ""
	}
	c.out = appendFrameHdr(c.out, 8+len(debug), frameGoAway, 0, 0)
	c.out = appendUint32(c.out, c.maxStreamIDLocked())
	c.out = appendUint32(c.out, uint32(code))
	c.out = append(c.out, debug...)
	c.flushLocked()
	end := code != ErrNo || c.active == 0
	c.mu.Unlock()
	if end {
		c.close()
	}
}

// maxStreamIDLocked is the last stream GOAWAY promises to process. The
// reading goroutine writes maxStreamID under mu, so reading it here
// under mu is safe.
func (c *conn) maxStreamIDLocked() uint32 { return c.maxStreamID }

// close ends the connection: the writer sends what is buffered and
// closes; readers and writers of every stream fail.
func (c *conn) close() {
	c.mu.Lock()
	if !c.closed {
		c.closed = true
		for id, st := range c.streams {
			st.fail(errConnClosed)
			delete(c.streams, id)
		}
		c.wcond.Signal()
		c.scond.Broadcast()
	}
	c.mu.Unlock()
	c.cancel()
	// A read blocked in serve returns once the deadline passes.
	c.nc.SetReadDeadline(time.Now())
}

// flushLocked asks the writer to send what is buffered.
func (c *conn) flushLocked() {
	// Signal every time: a flush asked for while the buffer was empty
	// left flushWanted set, and the writer must still wake for the bytes
	// appended since.
	c.flushWanted = true
	c.wcond.Signal()
}

// controlFlushLocked flushes the answer to a control frame, cutting off a
// client that keeps asking without reading.
func (c *conn) controlFlushLocked() error {
	if len(c.out) > maxControlOut {
		return connErr(ErrEnhanceYourCalm, "client does not read its answers")
	}
	c.flushLocked()
	return nil
}

// creditLocked returns n consumed bytes to the connection window, with a
// WINDOW_UPDATE once a quarter of the window has been consumed.
func (c *conn) creditLocked(n int64) {
	c.recvCredit += n
	if c.recvCredit >= int64(c.srv.ConnWindow)/4 && !c.closed {
		c.out = appendFrameHdr(c.out, 4, frameWindowUpdate, 0, 0)
		c.out = appendUint32(c.out, uint32(c.recvCredit))
		c.recvWindow += c.recvCredit
		c.recvCredit = 0
		c.flushLocked()
	}
}

// writer sends the buffered frames whenever a flush is asked for: one
// write call for everything that gathered since the last.
func (c *conn) writer() {
	defer close(c.writerDone)
	c.mu.Lock()
	for {
		for !(c.flushWanted && len(c.out) > 0) && !c.closed {
			c.wcond.Wait()
		}
		if len(c.out) == 0 {
			c.mu.Unlock()
			return
		}
		buf := c.out
		c.out, c.spare = c.spare[:0], nil
		c.flushWanted = false
		c.mu.Unlock()
		c.nc.SetWriteDeadline(time.Now().Add(writeTimeout))
		_, err := c.nc.Write(buf)
		c.mu.Lock()
		if cap(buf) <= 4*maxOut {
			c.spare = buf[:0]
		}
		c.scond.Broadcast()
		if err != nil {
			c.mu.Unlock()
			c.close()
			c.mu.Lock()
			c.out = c.out[:0]
		}
	}
}

// writeTimeout bounds one write: a client that stops reading for this
// long loses the connection instead of holding its streams forever.
const writeTimeout = 30 * time.Second
