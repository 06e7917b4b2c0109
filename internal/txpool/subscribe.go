package txpool

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chaind/chaind/internal/types"
)

// Subscribe delivers every transaction of the pool once it is executable:
// at once when it is added to its sender's pending run, or later when the
// nonce gap before it closes. Queued transactions are not delivered, so
// gossip and newPendingTransactions carry only what a block could include
// now.
//
// The subscriber's buffer holds at most buffer transactions and at most
// Config.SubscriberBytes of them (encoded size; one transaction is let in
// past that bound when nothing else waits, so none is too large to ever
// be delivered). A subscriber whose buffer is full misses transactions
// rather than blocking the pool: each miss is counted (SubscriberDrops)
// and logged, one line per logEvery. The byte bound matters because a
// pointer in the buffer keeps a transaction alive after the pool dropped
// it: 4,096 of 128 KiB would be half a GiB per lagging subscriber.
func (p *Pool) Subscribe(buffer int) (<-chan *types.Transaction, func()) {
	s := &subscriber{ch: make(chan *types.Transaction, buffer), sizes: make([]uint32, buffer)}
	p.subMu.Lock()
	p.subs[s.ch] = s
	p.subMu.Unlock()
	return s.ch, func() {
		p.subMu.Lock()
		if _, ok := p.subs[s.ch]; ok {
			delete(p.subs, s.ch)
			close(s.ch)
		}
		p.subMu.Unlock()
	}
}

// SubscriberDrops is how many transactions subscribers have missed, all
// subscribers together, because their buffers were full.
func (p *Pool) SubscriberDrops() uint64 { return p.drops.total.Load() }

func (p *Pool) notify(tx *types.Transaction) {
	size := tx.Size()
	p.subMu.Lock()
	defer p.subMu.Unlock()
	for _, s := range p.subs {
		if !s.send(tx, size, uint64(p.cfg.SubscriberBytes)) {
			p.drops.total.Add(1)
			p.drops.log.log(p.cfg.Log, slog.LevelWarn, "txpool: a subscriber lags; transactions it misses are not delivered to it",
				"buffer", cap(s.ch), "maxBytes", p.cfg.SubscriberBytes, "held", s.held)
		}
	}
}

// subscriber is one Subscribe channel and what its buffer holds. The
// channel keeps the API a plain receive; what it holds in bytes is known
// without the receiver's help: a channel is first in, first out, so the
// transactions still in it are the last len(ch) sent.
type subscriber struct {
	ch chan *types.Transaction
	// sizes is a ring of the encoded sizes of the transactions sent and
	// maybe not yet received, oldest at first, n of them; held is their
	// sum. Guarded by Pool.subMu, the only sender's lock.
	sizes    []uint32
	first, n int
	held     uint64
}

// send puts tx in s's buffer if it fits in count and bytes (max), and
// reports whether it did. Called with Pool.subMu held.
func (s *subscriber) send(tx *types.Transaction, size, max uint64) bool {
	if cap(s.ch) == 0 {
		// No buffer: delivered only to a receiver waiting now.
		select {
		case s.ch <- tx:
			return true
		default:
			return false
		}
	}
	// Forget what the receiver took. It may take more meanwhile: then
	// held counts too much for a moment, never too little.
	for in := len(s.ch); s.n > in; s.n-- {
		s.held -= uint64(s.sizes[s.first])
		s.first = (s.first + 1) % len(s.sizes)
	}
	if s.n == len(s.sizes) || s.n > 0 && s.held+size > max {
		return false
	}
	s.ch <- tx // cannot block: fewer than cap are in it, and only we send
	s.sizes[(s.first+s.n)%len(s.sizes)] = uint32(size)
	s.n++
	s.held += size
	return true
}

// dropLog counts the transactions subscribers missed.
type dropLog struct {
	total atomic.Uint64
	log   throttledLog
}

// logEvery is how often a repeated condition (a lagging subscriber, an
// unreadable head state) is logged at most.
const logEvery = 10 * time.Second

// throttledLog writes a line at most once per logEvery however often it
// is asked to, each line counting the occurrences since the one before
// (itself included): a condition a client or peer can make happen at
// thousands per second must not flood the log.
type throttledLog struct {
	now func() time.Time // nil: time.Now

	mu   sync.Mutex
	last time.Time
	n    uint64
}

func (t *throttledLog) log(l *slog.Logger, level slog.Level, msg string, args ...any) {
	now := time.Now
	if t.now != nil {
		now = t.now
	}
	t.mu.Lock()
	t.n++
	at := now()
	if !t.last.IsZero() && at.Sub(t.last) < logEvery {
		t.mu.Unlock()
		return
	}
	n := t.n
	t.last, t.n = at, 0
	t.mu.Unlock()
	l.Log(context.Background(), level, msg, append(args, "count", n)...)
}
