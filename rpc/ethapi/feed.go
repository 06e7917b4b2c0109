package ethapi

import (
	"sync"

	"github.com/chaind/chaind/rpc"
)

// feed hands every value of a backend source (new heads, executable pool
// transactions) to the subscriptions that want it, from one goroutine. A
// goroutine and a channel per subscription cost more than anything else an
// idle subscriber holds (10,000 of them were most of the node's memory);
// Notify only queues on the connection, so one loop serves them all
// without waiting on any of them.
type feed[T any] struct {
	// source subscribes to the backend with a buffer of that many values:
	// how far the feed may lag before the source skips it.
	source func(buffer int) (<-chan T, func())
	buffer int

	mu      sync.Mutex
	subs    map[*rpc.Subscription]func(T) error
	running bool
}

// add registers send for every value until sub ends or send fails.
func (f *feed[T]) add(sub *rpc.Subscription, send func(T) error) {
	f.mu.Lock()
	if f.subs == nil {
		f.subs = map[*rpc.Subscription]func(T) error{}
	}
	f.subs[sub] = send
	if !f.running {
		f.running = true
		values, cancel := f.source(f.buffer)
		go f.run(values, cancel)
	}
	f.mu.Unlock()
	// Outside the lock: an already ended subscription runs remove at once.
	sub.OnEnd(func() { f.remove(sub) })
}

// run delivers values while anyone listens; the last subscriber gone, it
// unsubscribes from the source until the next one comes.
func (f *feed[T]) run(values <-chan T, cancel func()) {
	defer cancel()
	for v := range values {
		f.mu.Lock()
		subs := make([]*rpc.Subscription, 0, len(f.subs))
		sends := make([]func(T) error, 0, len(f.subs))
		for s, send := range f.subs {
			subs, sends = append(subs, s), append(sends, send)
		}
		f.mu.Unlock()
		var gone []*rpc.Subscription
		for i, s := range subs {
			select {
			case <-s.Done():
				gone = append(gone, s)
				continue
			default:
			}
			if sends[i](v) != nil {
				gone = append(gone, s)
			}
		}
		f.mu.Lock()
		for _, s := range gone {
			delete(f.subs, s)
		}
		if len(f.subs) == 0 {
			f.running = false
			f.mu.Unlock()
			return
		}
		f.mu.Unlock()
	}
	f.mu.Lock()
	f.running = false
	f.mu.Unlock()
}

// remove forgets sub (it ended).
func (f *feed[T]) remove(sub *rpc.Subscription) {
	f.mu.Lock()
	delete(f.subs, sub)
	f.mu.Unlock()
}

// len is the number of subscriptions the feed serves.
func (f *feed[T]) len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.subs)
}
