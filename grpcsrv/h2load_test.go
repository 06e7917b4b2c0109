package grpcsrv

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/query"
)

// h2Load is the gRPC benchmark's load generator: one cleartext HTTP/2
// connection carrying the same unary call over and over on many streams
// at once. It shares the machine's cores with the server it measures, so
// it does only what a client must: the request's frames are built once
// (HPACK without Huffman or indexing, so no encoder state), the frames of
// all callers waiting leave in one write, and an answer is checked by
// comparing its bytes with the answer a full client got and decoded first
// (see BenchmarkValidatorsLoad) instead of being decoded again. The
// response header blocks are not decoded: a client that looks at no
// header needs no decoder state, and the trailers' place is known by the
// END_STREAM flag. Go's own HTTP/2 client spent about 40% of the
// benchmark's processor time; this one a fraction of that.
type h2Load struct {
	conn net.Conn
	want []byte // the answer's DATA bytes: one framed message

	wmu     sync.Mutex
	bw      *bufio.Writer
	waiting atomic.Int32 // callers queued for wmu, so the last one flushes
	nextID  uint32
	req     []byte // HEADERS block fragment of the request
	body    []byte // the framed request message

	mu      sync.Mutex
	streams map[uint32]*h2Stream
	err     error // the connection failed; every call fails

	bufs sync.Pool // answer buffers
}

// h2Stream is one call in flight.
type h2Stream struct {
	data    []byte
	blocks  int // header blocks begun (response headers, trailers)
	done    chan error
	inBlock bool // a header block continues in CONTINUATION frames
	endsAt  bool // the block being read ends the stream
}

const (
	frameData         = 0x0
	frameHeaders      = 0x1
	frameRSTStream    = 0x3
	frameSettings     = 0x4
	framePushPromise  = 0x5
	framePing         = 0x6
	frameGoAway       = 0x7
	frameWindowUpdate = 0x8
	frameContinuation = 0x9

	flagEndStream  = 0x1
	flagAck        = 0x1
	flagEndHeaders = 0x4
	flagPadded     = 0x8
	flagPriority   = 0x20

	// The receive windows the generator grants: a stream's answer never
	// waits for a WINDOW_UPDATE, and the connection's is topped up when
	// half is used.
	h2StreamWindow = 1 << 30
	h2ConnWindow   = 1 << 30
)

// dialH2Load connects to addr and prepares calls of path with the framed
// request body; want is the framed answer every call must get.
func dialH2Load(addr, path string, body, want []byte) (*h2Load, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	c := &h2Load{conn: conn, want: want, bw: bufio.NewWriterSize(conn, 64<<10), nextID: 1, body: body,
		streams: map[uint32]*h2Stream{}}
	// :method POST and :scheme http are in HPACK's static table (3, 6);
	// :path (4), :authority (1) and content-type (31) take a literal
	// value after an indexed name; te is a literal name and value.
	c.req = []byte{0x83, 0x86}
	c.req = hpackLiteral(c.req, 4, "", path)
	c.req = hpackLiteral(c.req, 1, "", addr)
	c.req = hpackLiteral(c.req, 31, "", "application/grpc")
	c.req = hpackLiteral(c.req, 0, "te", "trailers")

	c.bw.WriteString("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
	var settings []byte
	for _, s := range [][2]uint32{{0x2, 0}, {0x4, h2StreamWindow}, {0x5, 1 << 20}} { // no push, window, max frame
		settings = binary.BigEndian.AppendUint16(settings, uint16(s[0]))
		settings = binary.BigEndian.AppendUint32(settings, s[1])
	}
	writeFrameHeader(c.bw, len(settings), frameSettings, 0, 0)
	c.bw.Write(settings)
	writeWindowUpdate(c.bw, 0, h2ConnWindow-65535)
	if err := c.bw.Flush(); err != nil {
		conn.Close()
		return nil, err
	}
	go c.readLoop()
	return c, nil
}

func (c *h2Load) close() { c.conn.Close() }

// call makes one call and checks its answer.
func (c *h2Load) call() error {
	buf, _ := c.bufs.Get().(*[]byte)
	if buf == nil {
		buf = new([]byte)
	}
	s := &h2Stream{done: make(chan error, 1), data: (*buf)[:0]}
	defer func() { *buf = s.data; c.bufs.Put(buf) }()
	c.waiting.Add(1)
	c.wmu.Lock()
	id := c.nextID
	c.nextID += 2
	c.mu.Lock()
	err := c.err
	if err == nil {
		c.streams[id] = s
	}
	c.mu.Unlock()
	if err == nil {
		writeFrameHeader(c.bw, len(c.req), frameHeaders, flagEndHeaders, id)
		c.bw.Write(c.req)
		writeFrameHeader(c.bw, len(c.body), frameData, flagEndStream, id)
		c.bw.Write(c.body)
		// The last caller in the queue sends everyone's frames at once.
		if c.waiting.Add(-1) == 0 {
			err = c.bw.Flush()
		}
	} else {
		c.waiting.Add(-1)
	}
	c.wmu.Unlock()
	if err != nil {
		c.fail(err)
		return err
	}
	if err := <-s.done; err != nil {
		return err
	}
	if !bytes.Equal(s.data, c.want) {
		return fmt.Errorf("stream %d: answer of %d bytes differs from the expected %d", id, len(s.data), len(c.want))
	}
	return nil
}

// fail ends the connection and every call in flight with err.
func (c *h2Load) fail(err error) {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
	}
	for id, s := range c.streams {
		s.done <- c.err
		delete(c.streams, id)
	}
	c.mu.Unlock()
	c.conn.Close()
}

// readLoop reads the server's frames until the connection ends.
func (c *h2Load) readLoop() {
	br := bufio.NewReaderSize(c.conn, 64<<10)
	var hdr [9]byte
	var scratch []byte
	received := 0 // DATA bytes since the last connection WINDOW_UPDATE
	for {
		if _, err := io.ReadFull(br, hdr[:]); err != nil {
			c.fail(err)
			return
		}
		n := int(hdr[0])<<16 | int(hdr[1])<<8 | int(hdr[2])
		typ, flags := hdr[3], hdr[4]
		id := binary.BigEndian.Uint32(hdr[5:]) & (1<<31 - 1)
		var s *h2Stream
		if id != 0 {
			c.mu.Lock()
			s = c.streams[id]
			c.mu.Unlock()
		}
		if typ == frameData && s != nil && flags&flagPadded == 0 {
			// Straight into the call's buffer: no copy.
			at := len(s.data)
			s.data = append(s.data, make([]byte, n)...)
			if _, err := io.ReadFull(br, s.data[at:]); err != nil {
				c.fail(err)
				return
			}
		} else {
			if cap(scratch) < n {
				scratch = make([]byte, n)
			}
			scratch = scratch[:n]
			if _, err := io.ReadFull(br, scratch); err != nil {
				c.fail(err)
				return
			}
			if typ == frameData && s != nil { // padded
				if n == 0 || int(scratch[0]) >= n {
					c.fail(errors.New("bad DATA padding"))
					return
				}
				s.data = append(s.data, scratch[1:n-int(scratch[0])]...)
			}
		}
		var err error
		switch typ {
		case frameData:
			received += n
			if received >= h2ConnWindow/2 {
				c.control(func() { writeWindowUpdate(c.bw, 0, uint32(received)) })
				received = 0
			}
			if s != nil && flags&flagEndStream != 0 {
				c.end(id, s, errors.New("stream ended without trailers"))
			}
		case frameHeaders, frameContinuation:
			if s == nil {
				break
			}
			if typ == frameHeaders {
				s.blocks++
				s.inBlock, s.endsAt = flags&flagEndHeaders == 0, flags&flagEndStream != 0
			} else if !s.inBlock {
				err = errors.New("CONTINUATION without a header block")
				break
			} else if flags&flagEndHeaders != 0 {
				s.inBlock = false
			}
			if !s.inBlock && s.endsAt {
				// Headers then trailers, each in its own block; a
				// trailers-only answer (one block) is an error status.
				var e error
				if s.blocks != 2 || len(s.data) == 0 {
					e = fmt.Errorf("stream %d: a trailers-only answer (an error status), %d bytes", id, len(s.data))
				}
				c.end(id, s, e)
			}
		case frameRSTStream:
			if s != nil && len(scratch) == 4 {
				c.end(id, s, fmt.Errorf("stream %d reset, code %d", id, binary.BigEndian.Uint32(scratch)))
			} else if s != nil {
				err = errors.New("RST_STREAM of a bad length")
			}
		case frameSettings:
			if flags&flagAck == 0 {
				for i := 0; i+6 <= len(scratch); i += 6 {
					if binary.BigEndian.Uint16(scratch[i:]) == 0x3 && binary.BigEndian.Uint32(scratch[i+2:]) < 32 {
						err = fmt.Errorf("the server allows %d streams, fewer than the 32 the load needs", binary.BigEndian.Uint32(scratch[i+2:]))
					}
				}
				c.control(func() { writeFrameHeader(c.bw, 0, frameSettings, flagAck, 0) })
			}
		case framePing:
			if flags&flagAck == 0 {
				payload := append([]byte(nil), scratch...)
				c.control(func() {
					writeFrameHeader(c.bw, len(payload), framePing, flagAck, 0)
					c.bw.Write(payload)
				})
			}
		case frameGoAway:
			err = errors.New("GOAWAY")
			if len(scratch) >= 8 {
				err = fmt.Errorf("GOAWAY, code %d", binary.BigEndian.Uint32(scratch[4:]))
			}
		case framePushPromise:
			err = errors.New("PUSH_PROMISE though push is off")
		}
		if err != nil {
			c.fail(err)
			return
		}
	}
}

// end completes stream id, unless fail already has.
func (c *h2Load) end(id uint32, s *h2Stream, err error) {
	c.mu.Lock()
	mine := c.streams[id] == s
	delete(c.streams, id)
	c.mu.Unlock()
	if mine {
		s.done <- err
	}
}

// control writes a connection frame at once.
func (c *h2Load) control(write func()) {
	c.wmu.Lock()
	write()
	err := c.bw.Flush()
	c.wmu.Unlock()
	if err != nil {
		c.fail(err)
	}
}

func writeFrameHeader(w *bufio.Writer, n int, typ, flags byte, id uint32) {
	var h [9]byte
	h[0], h[1], h[2] = byte(n>>16), byte(n>>8), byte(n)
	h[3], h[4] = typ, flags
	binary.BigEndian.PutUint32(h[5:], id)
	w.Write(h[:])
}

func writeWindowUpdate(w *bufio.Writer, id, inc uint32) {
	writeFrameHeader(w, 4, frameWindowUpdate, 0, id)
	var b [4]byte
	binary.BigEndian.PutUint32(b[:], inc)
	w.Write(b[:])
}

// hpackLiteral appends a "literal header field without indexing": the
// name by its static table index, or (index 0) as a literal, then the
// value, neither Huffman coded.
func hpackLiteral(dst []byte, index int, name, value string) []byte {
	dst = hpackInt(dst, 4, 0, index)
	if index == 0 {
		dst = hpackInt(dst, 7, 0, len(name))
		dst = append(dst, name...)
	}
	dst = hpackInt(dst, 7, 0, len(value))
	return append(dst, value...)
}

// hpackInt appends v as an HPACK integer with an n-bit prefix after the
// bits of first.
func hpackInt(dst []byte, n uint, first byte, v int) []byte {
	max := 1<<n - 1
	if v < max {
		return append(dst, first|byte(v))
	}
	dst = append(dst, first|byte(max))
	for v -= max; v >= 128; v >>= 7 {
		dst = append(dst, byte(v&0x7f)|0x80)
	}
	return append(dst, byte(v))
}

// TestH2Load: the generator accepts the right answer, and refuses a
// different one, an error status (trailers only) and a dead server.
func TestH2Load(t *testing.T) {
	addr := serve(t, 3)
	const path = "/cosmos.staking.v1beta1.Query/Validators"
	body := appendFrame(nil, protobuf.Marshal(&query.QueryValidatorsRequest{}))
	res := rawCall(t, h2c(), addr, path, body, nil)
	if res.status != 0 || len(res.msgs) != 1 {
		t.Fatalf("reference call: %+v", res)
	}
	want := appendFrame(nil, res.msgs[0])
	for _, c := range []struct {
		name, path string
		want       []byte
		ok         bool
	}{
		{"same answer", path, want, true},
		{"other answer", path, append(want[:len(want):len(want)], 0), false},
		{"error status", "/cosmos.staking.v1beta1.Query/Nothing", want, false},
	} {
		l, err := dialH2Load(addr, c.path, body, c.want)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 40)
		for i := range errs {
			wg.Add(1)
			go func() { defer wg.Done(); errs[i] = l.call() }()
		}
		wg.Wait()
		l.close()
		for i, err := range errs {
			if (err == nil) != c.ok {
				t.Errorf("%s: call %d: %v", c.name, i, err)
			}
		}
	}
	l, err := dialH2Load(addr, path, body, want)
	if err != nil {
		t.Fatal(err)
	}
	l.close()
	if err := l.call(); err == nil {
		t.Error("a call on a closed connection succeeded")
	}
}
