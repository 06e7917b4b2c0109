package relay

import (
	"sync"

	"github.com/chaind/chaind/consensus"
)

// Default bounds of the driver's inbox. Votes are about 150 bytes, so the
// count bound is the one idle traffic meets; the byte bound is the one a
// peer sending proposals (each carries its block) meets.
const (
	inboxSize  = 4096
	inboxBytes = 32 << 20
)

// inbox is the local driver's queue of verified messages. Peers fill it,
// so it is bounded in bytes as well as in count; when either bound is met
// it sheds its oldest messages, because consensus needs the newest ones.
// A pump hands the messages to the driver one at a time over an
// unbuffered channel, so at most one message is held outside the bound.
type inbox struct {
	mu       sync.Mutex
	items    []queued
	bytes    int
	maxCount int
	maxBytes int
	wake     chan struct{}
	out      chan consensus.Verified
}

type queued struct {
	m    consensus.Verified
	size int
}

func newInbox(maxCount, maxBytes int) *inbox {
	return &inbox{maxCount: maxCount, maxBytes: maxBytes, wake: make(chan struct{}, 1), out: make(chan consensus.Verified)}
}

// push queues m, whose wire size is size, and reports how many older
// messages it displaced. A message larger than the whole byte bound is
// still queued, alone: it passed every check, and its size is already
// bounded by the p2p frame limit.
func (q *inbox) push(m consensus.Verified, size int) (displaced int) {
	q.mu.Lock()
	for len(q.items) > 0 && (len(q.items) >= q.maxCount || q.bytes+size > q.maxBytes) {
		q.bytes -= q.items[0].size
		q.items[0] = queued{} // drop the reference for the collector
		q.items = q.items[1:]
		displaced++
	}
	q.items = append(q.items, queued{m: m, size: size})
	q.bytes += size
	q.mu.Unlock()
	select {
	case q.wake <- struct{}{}:
	default:
	}
	return displaced
}

// pop takes the oldest message.
func (q *inbox) pop() (consensus.Verified, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) == 0 {
		return consensus.Verified{}, false
	}
	it := q.items[0]
	q.items[0] = queued{}
	q.items = q.items[1:]
	q.bytes -= it.size
	return it.m, true
}

// queued reports the messages and bytes waiting.
func (q *inbox) queued() (count, bytes int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.items), q.bytes
}

// run hands queued messages to the driver until done is closed.
func (q *inbox) run(done <-chan struct{}) {
	for {
		m, ok := q.pop()
		if !ok {
			select {
			case <-q.wake:
				continue
			case <-done:
				return
			}
		}
		select {
		case q.out <- m:
		case <-done:
			return
		}
	}
}
