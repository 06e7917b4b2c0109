package p2p

import "sync"

// A relay deduplicates gossip: a message it has seen is dropped, and a
// sender never sends a peer what that peer already got. Both are needed
// (without them a mesh echoes every vote forever), but together they mean
// a node that connects after a message went round never hears of it: the
// author's retransmission stops at the relay that has it already. Behind
// a sentry, a validator that connected a moment after the others voted
// would never see those votes, and the round could stall for good (every
// validator waiting for a quorum of votes that were sent once, to the
// peers connected then).
//
// So a topic may ask for catch-up (TopicConfig.Recent): the host keeps the
// hashes of the last Recent messages it sent or relayed on it, and
// announces those still cached to each peer that connects. The peer asks
// (WANT) only for what it lacks. The announcements are bounded by Recent
// per topic, and go through the peer's bounded announcement queue.

// recentRing holds the last cap gossip hashes of one topic, oldest first
// when listed.
type recentRing struct {
	mu     sync.Mutex
	hashes [][32]byte
	next   int
	full   bool
}

func newRecentRing(n int) *recentRing { return &recentRing{hashes: make([][32]byte, n)} }

func (r *recentRing) add(h [32]byte) {
	r.mu.Lock()
	r.hashes[r.next] = h
	r.next++
	if r.next == len(r.hashes) {
		r.next, r.full = 0, true
	}
	r.mu.Unlock()
}

// list returns the hashes, oldest first.
func (r *recentRing) list() [][32]byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.full {
		return append([][32]byte(nil), r.hashes[:r.next]...)
	}
	out := append([][32]byte(nil), r.hashes[r.next:]...)
	return append(out, r.hashes[:r.next]...)
}

// catchUp announces to a newly connected peer the recent messages of
// every catch-up topic that are still cached to answer its WANTs.
func (h *Host) catchUp(p *peer) {
	for t, tp := range h.topics {
		ring := h.recent[t]
		if ring == nil {
			continue
		}
		for _, hash := range ring.list() {
			if _, ok := h.cache.get(hash); !ok || !p.known.add(hash) {
				continue
			}
			if !p.announce(tp.cfg.Priority, announced{t, hash}) {
				p.known.remove(hash)
				return // its queue is full: it hears the rest from new traffic
			}
			h.stats.announced.Add(1)
		}
	}
}
