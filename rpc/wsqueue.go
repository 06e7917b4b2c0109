package rpc

import (
	"bufio"
	"errors"
	"net"
	"net/http"
	"sync"
)

// outQueue is a connection's outbound message queue. It starts empty and
// grows only as messages wait, up to limit messages and maxBytes bytes,
// so an idle connection costs a few words rather than a slot per possible
// message; once drained, a large backing array is dropped again.
//
// The bytes count the message being written too, until the writer calls
// sent: a client that reads nothing holds its connection's writer in
// that message, and everything behind it is what the node would hold
// for it. One message larger than maxBytes is still admitted when it
// would be the only one (a large answer the client asked for and may
// well read); anything more is refused.
type outQueue struct {
	mu       sync.Mutex
	buf      [][]byte
	head     int // buf[head:] waits to be written
	limit    int
	maxBytes int64 // 0: no byte bound
	bytes    int64 // of buf[head:] and the message being written
	// busy is set while a writer drains the queue: push reports when one
	// must be started, popOrIdle clears it when the queue runs dry.
	busy bool
}

// minQueueCap is the capacity kept after a drain: enough for the usual
// burst (a reply and a few notifications) without reallocating.
const minQueueCap = 8

// push appends b, or reports !ok when limit messages already wait or b
// would take the waiting bytes past maxBytes. start says the queue had no
// writer and the caller must start one.
func (q *outQueue) push(b []byte) (start, ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.buf)-q.head >= q.limit {
		return false, false
	}
	if q.maxBytes > 0 && q.bytes > 0 && q.bytes+int64(len(b)) > q.maxBytes {
		return false, false
	}
	q.bytes += int64(len(b))
	if q.head > 0 && len(q.buf) == cap(q.buf) {
		// Reuse the written-out front before growing.
		n := copy(q.buf, q.buf[q.head:])
		clear(q.buf[n:])
		q.buf, q.head = q.buf[:n], 0
	}
	q.buf = append(q.buf, b)
	start = !q.busy
	q.busy = true
	return start, true
}

// popOrIdle is pop for the writer: when nothing waits it also marks the
// queue as having no writer, in the same critical section as the check,
// so a message pushed right after is never left without one.
func (q *outQueue) popOrIdle() []byte {
	b := q.pop()
	if b != nil {
		return b
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.head < len(q.buf) {
		return q.popLocked()
	}
	q.busy = false
	return nil
}

// pop takes the oldest message, or nil when none waits.
func (q *outQueue) pop() []byte {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.popLocked()
}

func (q *outQueue) popLocked() []byte {
	if q.head == len(q.buf) {
		return nil
	}
	b := q.buf[q.head]
	q.buf[q.head] = nil
	q.head++
	if q.head == len(q.buf) {
		if cap(q.buf) > 4*minQueueCap {
			q.buf = nil // a burst is over: give its memory back
		} else {
			q.buf = q.buf[:0]
		}
		q.head = 0
	}
	return b
}

// sent releases the bytes of a message taken by popOrIdle or pop, once
// it is written (or dropped).
func (q *outQueue) sent(b []byte) {
	q.mu.Lock()
	q.bytes -= int64(len(b))
	q.mu.Unlock()
}

// drop lets go of every waiting message, for a connection being cut: what
// it held is not kept while the close handshake runs.
func (q *outQueue) drop() {
	q.mu.Lock()
	clear(q.buf)
	q.buf, q.head = nil, 0
	q.mu.Unlock()
}

// len is the number of waiting messages.
func (q *outQueue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.buf) - q.head
}

// leanHijacker hands the WebSocket library small buffers in place of the
// 4 KiB reader and writer net/http gives a hijacked connection: an idle
// subscriber then holds 2 KiB of buffers instead of 8 (net/http's are
// freed once the upgrade handler returns). Reads and writes larger than a
// buffer bypass it. The reader is swapped only when it holds nothing
// unread.
type leanHijacker struct {
	http.ResponseWriter
}

const wsBufSize = 1024

func (h leanHijacker) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	hj, ok := h.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("rpc: connection cannot be hijacked")
	}
	c, brw, err := hj.Hijack()
	if err != nil {
		return c, brw, err
	}
	if err := brw.Writer.Flush(); err != nil {
		return c, brw, err
	}
	r := brw.Reader
	if r.Buffered() == 0 {
		r = bufio.NewReaderSize(c, wsBufSize)
	}
	return c, bufio.NewReadWriter(r, bufio.NewWriterSize(c, wsBufSize)), nil
}

func (h leanHijacker) Unwrap() http.ResponseWriter { return h.ResponseWriter }
