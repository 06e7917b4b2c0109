package p2p

import (
	"fmt"
	"sync"
	"time"
)

// Gossip relays by announcement. A node that originates a gossip message
// (its own vote, a transaction a client sent it) pushes it whole to every
// peer, which is the fastest way to reach them. A node that passes on a
// message it got from a peer cannot know which of its other peers the
// originator reached already, so it sends them only the message's hash
// (HAVE); a peer that lacks the message asks for it (WANT) and gets it
// from the announcer. So the payload reaches each node once, plus the
// rare copy that crosses an announcement in flight, at the price of one
// round trip per relaying hop.
//
// Announcements to a peer are batched: the peer's writer packs all that
// are waiting into one frame.

// maxAnnounced is how many hashes one HAVE or WANT frame carries.
const maxAnnounced = 255

// wantTimeout is how long a WANT may go unanswered before another
// announcer of the same message is asked.
const wantTimeout = time.Second

// announced is one entry of a HAVE frame.
type announced struct {
	topic Topic
	hash  [32]byte
}

// encodeHave frames announcements: count (1 byte), then per entry the topic
// byte and the 32-byte hash.
func encodeHave(items []announced) []byte {
	b := make([]byte, 0, 2+33*len(items))
	b = append(b, kindHave, byte(len(items)))
	for _, a := range items {
		b = append(b, byte(a.topic))
		b = append(b, a.hash[:]...)
	}
	return b
}

// encodeWant frames a request: count (1 byte), then the 32-byte hashes.
func encodeWant(hashes [][32]byte) []byte {
	b := make([]byte, 0, 2+32*len(hashes))
	b = append(b, kindWant, byte(len(hashes)))
	for _, h := range hashes {
		b = append(b, h[:]...)
	}
	return b
}

func decodeHave(b []byte) ([]announced, error) {
	if len(b) < 1 || b[0] == 0 || len(b) != 1+33*int(b[0]) {
		return nil, fmt.Errorf("%w: announcement of %d bytes", ErrBadMessage, len(b))
	}
	out := make([]announced, b[0])
	for i := range out {
		e := b[1+33*i:]
		out[i].topic = Topic(e[0])
		copy(out[i].hash[:], e[1:33])
	}
	return out, nil
}

func decodeWant(b []byte) ([][32]byte, error) {
	if len(b) < 1 || b[0] == 0 || len(b) != 1+32*int(b[0]) {
		return nil, fmt.Errorf("%w: request of %d bytes", ErrBadMessage, len(b))
	}
	out := make([][32]byte, b[0])
	for i := range out {
		copy(out[i][:], b[1+32*i:])
	}
	return out, nil
}

// frameCache keeps the frames of recent gossip messages by hash, to
// answer WANTs, and remembers which ones came from a peer (those are
// relayed by announcement). It holds two generations, each of at most
// maxBytes/2 bytes and maxEntries/2 messages.
type frameCache struct {
	mu         sync.Mutex
	maxBytes   int
	maxEntries int
	bytes      int
	cur, prev  map[[32]byte]cachedFrame
}

type cachedFrame struct {
	frame    []byte // kindMsg, topic, payload
	fromPeer bool
}

func newFrameCache(maxBytes, maxEntries int) *frameCache {
	return &frameCache{maxBytes: maxBytes, maxEntries: maxEntries,
		cur: make(map[[32]byte]cachedFrame), prev: make(map[[32]byte]cachedFrame)}
}

// put remembers a frame unless it is there already; it returns the cached
// entry.
func (c *frameCache) put(h [32]byte, f cachedFrame) cachedFrame {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.cur[h]; ok {
		return old
	}
	if old, ok := c.prev[h]; ok {
		return old
	}
	c.cur[h] = f
	c.bytes += len(f.frame)
	if c.bytes >= c.maxBytes/2 || len(c.cur) >= c.maxEntries/2 {
		c.prev, c.cur, c.bytes = c.cur, make(map[[32]byte]cachedFrame), 0
	}
	return f
}

func (c *frameCache) get(h [32]byte) (cachedFrame, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if f, ok := c.cur[h]; ok {
		return f, true
	}
	f, ok := c.prev[h]
	return f, ok
}

// wantSet remembers the messages asked for and when, so that one
// message is asked of one announcer at a time.
type wantSet struct {
	mu    sync.Mutex
	asked map[[32]byte]time.Time
}

// maxWants bounds the outstanding requests: past it the expired ones are
// forgotten, and if none is, the oldest half.
const maxWants = 1 << 14

// claim reports whether h should be asked for now, and if so records it.
func (w *wantSet) claim(h [32]byte, now time.Time) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if at, ok := w.asked[h]; ok && now.Sub(at) < wantTimeout {
		return false
	}
	if len(w.asked) >= maxWants {
		for k, at := range w.asked {
			if now.Sub(at) >= wantTimeout {
				delete(w.asked, k)
			}
		}
		for k := range w.asked {
			if len(w.asked) < maxWants/2 {
				break
			}
			delete(w.asked, k)
		}
	}
	w.asked[h] = now
	return true
}

// done forgets h once it has arrived.
func (w *wantSet) done(h [32]byte) {
	w.mu.Lock()
	delete(w.asked, h)
	w.mu.Unlock()
}

// onHave takes a peer's announcements: the peer has those messages, so
// nothing more is sent to it about them; the ones this node has not seen
// are asked of it.
func (h *Host) onHave(p *peer, items []announced) {
	var want [][32]byte
	prio := Low
	now := time.Now()
	for _, a := range items {
		t, ok := h.topics[a.topic]
		if !ok || !t.cfg.Gossip {
			continue // a topic we do not take: nothing to ask for
		}
		p.known.add(a.hash)
		if h.seen.has(a.hash) || !h.wants.claim(a.hash, now) {
			continue
		}
		want = append(want, a.hash)
		prio = max(prio, t.cfg.Priority)
	}
	if len(want) == 0 {
		return
	}
	// The author's own push is usually a moment behind a fast relay's
	// announcement: ask only for what has not arrived by then.
	delay := wantDelay
	if prio == Low {
		delay = wantDelayLow
	}
	time.AfterFunc(delay, func() {
		missing := want[:0]
		for _, hash := range want {
			if h.seen.has(hash) {
				h.wants.done(hash)
			} else {
				missing = append(missing, hash)
			}
		}
		if len(missing) > 0 {
			h.stats.wanted.Add(uint64(len(missing)))
			p.send(prio, encodeWant(missing))
		}
	})
}

// wantDelay is how long an announced message may take to arrive from
// elsewhere before it is asked for: a few milliseconds for votes and
// proposals, which a relayed hop should not slow much; longer for
// low-priority messages (transactions), whose pushes wait behind others
// of their kind in a busy author's queue while announcements do not.
const (
	wantDelay    = 5 * time.Millisecond
	wantDelayLow = 50 * time.Millisecond
)

// onWant answers a peer's requests with the messages still cached; it
// forgets the others (the peer will hear of them again or do without).
// Each message is sent to a peer once in answer: a peer asking again for
// what it was sent gets nothing, so a few bytes of WANT cannot make a
// node send the same block over and over.
func (h *Host) onWant(p *peer, hashes [][32]byte) {
	for _, hash := range hashes {
		f, ok := h.cache.get(hash)
		if !ok || p.served.has(hash) {
			continue
		}
		p.known.add(hash)
		if p.send(h.topics[Topic(f.frame[1])].cfg.Priority, f.frame) {
			p.served.add(hash)
			h.stats.served.Add(1)
		}
	}
}

// announce queues a HAVE of one message for p; it reports false when the
// peer's announcement queue is full or the peer gone.
func (p *peer) announce(prio Priority, a announced) bool {
	select {
	case <-p.done:
		return false
	default:
	}
	p.annMu.Lock()
	q := &p.ann[0]
	if prio == High {
		q = &p.ann[1]
	}
	full := len(*q) >= queueLen*maxAnnounced/16
	if !full {
		*q = append(*q, a)
	}
	p.annMu.Unlock()
	if full {
		p.dropped.Add(1)
		return false
	}
	if !p.charge(announcedBytes) {
		return false
	}
	select {
	case p.annReady <- struct{}{}:
	default:
	}
	return true
}

// takeAnnouncements returns the waiting announcements as HAVE frames,
// high-priority ones first.
func (p *peer) takeAnnouncements() [][]byte {
	p.annMu.Lock()
	high, low := p.ann[1], p.ann[0]
	p.ann[1], p.ann[0] = nil, nil
	p.annMu.Unlock()
	p.queued.Add(-int64(announcedBytes * (len(high) + len(low))))
	var frames [][]byte
	for _, q := range [][]announced{high, low} {
		for len(q) > 0 {
			n := min(len(q), maxAnnounced)
			frames = append(frames, encodeHave(q[:n]))
			q = q[n:]
		}
	}
	return frames
}

// GossipStats counts how gossip travelled through this host.
type GossipStats struct {
	Pushed     uint64 // messages sent whole to a peer unasked (this node's own)
	Announced  uint64 // HAVEs queued for peers (messages relayed)
	Wanted     uint64 // messages asked of announcers
	Served     uint64 // messages sent in answer to a WANT
	Duplicates uint64 // gossip messages received that this node had already
}

// Stats returns the gossip counters.
func (h *Host) Stats() GossipStats {
	return GossipStats{Pushed: h.stats.pushed.Load(), Announced: h.stats.announced.Load(), Wanted: h.stats.wanted.Load(),
		Served: h.stats.served.Load(), Duplicates: h.stats.duplicates.Load()}
}
