package ethapi

import (
	"sync"

	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
)

// headFeed hands every new head to the head-driven subscriptions (newHeads
// and logs) from one goroutine. A goroutine and a channel per subscription
// cost more than anything else an idle subscriber holds (10,000 of them
// were most of the node's memory); Notify only queues on the connection,
// so one loop serves them all without waiting on any of them.
type headFeed struct {
	b Backend

	mu      sync.Mutex
	subs    map[*rpc.Subscription]func(*types.Block) error
	running bool
}

// headFeedBuffer is how many heads the feed may lag behind the chain
// before the chain skips it.
const headFeedBuffer = 64

// add registers send for every new head until sub ends or send fails.
func (f *headFeed) add(sub *rpc.Subscription, send func(*types.Block) error) {
	f.mu.Lock()
	if f.subs == nil {
		f.subs = map[*rpc.Subscription]func(*types.Block) error{}
	}
	f.subs[sub] = send
	if !f.running {
		f.running = true
		heads, cancel := f.b.SubscribeHeads(headFeedBuffer)
		go f.run(heads, cancel)
	}
	f.mu.Unlock()
	// Outside the lock: an already ended subscription runs remove at once.
	sub.OnEnd(func() { f.remove(sub) })
}

// run delivers heads while anyone listens; the last subscriber gone, it
// unsubscribes from the chain until the next one comes.
func (f *headFeed) run(heads <-chan *types.Block, cancel func()) {
	defer cancel()
	for b := range heads {
		f.mu.Lock()
		subs := make([]*rpc.Subscription, 0, len(f.subs))
		sends := make([]func(*types.Block) error, 0, len(f.subs))
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
			if sends[i](b) != nil {
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
func (f *headFeed) remove(sub *rpc.Subscription) {
	f.mu.Lock()
	delete(f.subs, sub)
	f.mu.Unlock()
}

// len is the number of subscriptions the feed serves.
func (f *headFeed) len() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.subs)
}
