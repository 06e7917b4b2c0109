package p2p

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Topic names a kind of payload the node exchanges (consensus messages,
// transactions, blocks); the node defines them.
type Topic byte

// Priority orders a peer's send queue: high-priority frames (votes,
// proposals) always go out before low-priority ones (transactions, sync).
type Priority int

// Priorities.
const (
	Low Priority = iota
	High
)

// queueLen bounds each of a peer's send queues in frames. A frame that
// finds its queue full is dropped, as a congested link would: consensus
// retransmits and gossip reaches the peer through others.
const queueLen = 1024

// A peer's queues are also bounded in bytes (Config.MaxQueueBytes): what
// waits in both queues and its announcements together. A peer that lets
// more than that pile up is not reading what it is sent (or asks for more
// than it reads, as a flood of sync requests would); it is dropped, with
// a log line, rather than holding the node's memory. An honest peer has
// one sync answer (at most MaxFrameSize) and some gossip waiting.
const defaultMaxQueueBytes = 2 * MaxFrameSize

// announcedBytes is what one waiting announcement is charged.
const announcedBytes = 33

// ErrSlowPeer reports a peer dropped because its send queue passed its
// byte cap.
var ErrSlowPeer = errors.New("p2p: peer does not keep up")

// peer is one live, authenticated connection.
type peer struct {
	id       ID
	conn     *secureConn
	inbound  bool
	dialedBy ID       // the ID of the side that dialed; ties between duplicate connections
	listen   PeerAddr // where the peer accepts connections ("" if nowhere)
	high     chan []byte
	low      chan []byte
	known    *hashSet // gossip this peer has sent us, announced, or got from us
	served   *hashSet // gossip sent to this peer in answer to its WANTs
	dropped  atomic.Uint64
	queued   atomic.Int64 // bytes waiting in high, low and ann
	maxQueue int64
	slow     func(*peer, error) // told when the peer is dropped for its queue
	traffic  *traffic           // counts the frames written; nil: not counted
	// askedPeers is set while a request for addresses is unanswered:
	// only its answer is taken (see onPeers).
	askedPeers atomic.Bool

	annMu    sync.Mutex
	ann      [2][]announced // HAVEs waiting for the writer: low, high priority
	annReady chan struct{}

	once sync.Once
	done chan struct{}
	err  error
}

func newPeer(id ID, c *secureConn, inbound bool, dialedBy ID, listen PeerAddr) *peer {
	return &peer{id: id, conn: c, inbound: inbound, dialedBy: dialedBy, listen: listen,
		high: make(chan []byte, queueLen), low: make(chan []byte, queueLen), maxQueue: defaultMaxQueueBytes,
		known: newHashSet(4096), served: newHashSet(1024), annReady: make(chan struct{}, 1), done: make(chan struct{})}
}

// send queues a frame; it reports false when the queue is full or the
// peer gone.
func (p *peer) send(prio Priority, frame []byte) bool {
	q := p.low
	if prio == High {
		q = p.high
	}
	select {
	case <-p.done:
		return false
	default:
	}
	if !p.charge(len(frame)) {
		return false
	}
	select {
	case q <- frame:
		return true
	default:
		p.queued.Add(-int64(len(frame)))
		p.dropped.Add(1)
		return false
	}
}

// charge counts n more bytes waiting for the peer; past the cap it drops
// the peer and reports false.
func (p *peer) charge(n int) bool {
	total := p.queued.Add(int64(n))
	if total <= p.maxQueue {
		return true
	}
	p.queued.Add(-int64(n))
	err := fmt.Errorf("%w: %d bytes waiting to be sent, over the cap of %d", ErrSlowPeer, total, p.maxQueue)
	if p.close(err) && p.slow != nil {
		p.slow(p, err)
	}
	return false
}

// close ends the connection; it reports whether this call did.
func (p *peer) close(err error) (closed bool) {
	p.once.Do(func() {
		closed = true
		p.err = err
		close(p.done)
		p.conn.conn.Close()
	})
	return closed
}

// writeLoop sends queued frames, high priority first, the announcements
// waiting (packed into as few frames as fit), and a ping when the link has
// been quiet for a keepalive interval.
func (p *peer) writeLoop(keepalive time.Duration) {
	ping := []byte{kindPing}
	t := time.NewTimer(keepalive)
	defer t.Stop()
	for {
		var frames [][]byte
		urgent := true // high priority, announcements or a ping: flushed without waiting for low-priority frames
		select {
		case f := <-p.high:
			frames = append(frames, p.uncharge(f))
		default:
			select {
			case f := <-p.high:
				frames = append(frames, p.uncharge(f))
			case <-p.annReady:
				frames = p.takeAnnouncements()
			case f := <-p.low:
				frames = append(frames, p.uncharge(f))
				urgent = false
			case <-t.C:
				frames = append(frames, ping)
			case <-p.done:
				return
			}
		}
		p.conn.conn.SetWriteDeadline(time.Now().Add(2 * keepalive))
		var err error
		for _, f := range frames {
			if err = p.conn.bufferFrame(f); err != nil {
				break
			}
			if p.traffic != nil {
				p.traffic.sent[trafficSlot(f)].Add(uint64(len(f) + frameOverhead))
			}
		}
		if err == nil && len(p.high) == 0 && (urgent || len(p.low) == 0) {
			err = p.conn.flush() // nothing more urgent waiting: send what is buffered
		}
		if err != nil {
			p.close(err)
			return
		}
		if !t.Stop() {
			select {
			case <-t.C:
			default:
			}
		}
		t.Reset(keepalive)
	}
}

// uncharge takes a frame off the peer's account as it leaves its queue.
func (p *peer) uncharge(f []byte) []byte {
	p.queued.Add(-int64(len(f)))
	return f
}

// remoteIP is the IP the peer connected from or was dialed at.
func (p *peer) remoteIP() string {
	host, _, err := net.SplitHostPort(p.conn.conn.RemoteAddr().String())
	if err != nil {
		return ""
	}
	return host
}

// hashSet remembers recent hashes in two generations, so it stays bounded
// without forgetting everything at once.
type hashSet struct {
	mu        sync.Mutex
	max       int
	cur, prev map[[32]byte]struct{}
}

func newHashSet(max int) *hashSet {
	return &hashSet{max: max, cur: make(map[[32]byte]struct{}), prev: make(map[[32]byte]struct{})}
}

// add inserts h and reports whether it was new.
func (s *hashSet) add(h [32]byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.cur[h]; ok {
		return false
	}
	_, old := s.prev[h]
	s.cur[h] = struct{}{}
	if len(s.cur) >= s.max {
		s.prev, s.cur = s.cur, make(map[[32]byte]struct{}, s.max)
	}
	return !old
}

// remove forgets h, so that a later copy counts as new.
func (s *hashSet) remove(h [32]byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.cur, h)
	delete(s.prev, h)
}

func (s *hashSet) has(h [32]byte) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, a := s.cur[h]
	_, b := s.prev[h]
	return a || b
}
