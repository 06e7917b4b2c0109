package rpc

import "sync"

// outQueue is a connection's outbound message queue. It starts empty and
// grows only as messages wait, up to limit, so an idle connection costs a
// few words rather than a slot per possible message; once drained, a large
// backing array is dropped again.
type outQueue struct {
	mu    sync.Mutex
	buf   [][]byte
	head  int // buf[head:] waits to be written
	limit int
}

// minQueueCap is the capacity kept after a drain: enough for the usual
// burst (a reply and a few notifications) without reallocating.
const minQueueCap = 8

// push appends b, or reports false when limit messages already wait.
func (q *outQueue) push(b []byte) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.buf)-q.head >= q.limit {
		return false
	}
	if q.head > 0 && len(q.buf) == cap(q.buf) {
		// Reuse the written-out front before growing.
		n := copy(q.buf, q.buf[q.head:])
		clear(q.buf[n:])
		q.buf, q.head = q.buf[:n], 0
	}
	q.buf = append(q.buf, b)
	return true
}

// pop takes the oldest message, or nil when none waits.
func (q *outQueue) pop() []byte {
	q.mu.Lock()
	defer q.mu.Unlock()
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

// len is the number of waiting messages.
func (q *outQueue) len() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.buf) - q.head
}
