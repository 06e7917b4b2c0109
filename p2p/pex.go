package p2p

import (
	"errors"
	"net"
	"slices"
	"time"
)

// Peer exchange, made hard to poison. Any node may connect with a fresh
// key and offer addresses, which this node would then dial: a way to fill
// its address book with junk, to crowd honest peers out, or to have it
// dial a third party over and over. So:
//   - a peer list is taken only as the answer to this node's own request,
//     one per request (unasked-for lists are ignored);
//   - each address is charged to the IP it was learned from (the peer's
//     remote IP, whatever its key): one source IP holds at most
//     MaxAddrsPerSource addresses in the book, and adds new ones from a
//     token bucket of that size refilled one per AddrRefill, so fresh keys
//     from one IP gain nothing and churn is slow;
//   - each learned address is dialed with exponential back-off of its
//     own, which learning it again does not reset, and is forgotten after
//     maxAddrFailures failures in a row;
//   - learned addresses at a banned IP are not dialed (see ban.go).
// Bootnodes are configured, not learned: they are kept and retried for
// good. On a loopback network every node shares 127.0.0.1, so all of its
// addresses are charged to that one source: MaxAddrsPerSource bounds how
// many such nodes one node learns by exchange (static peers are not
// counted).

// ErrBootnodesNeedExchange reports bootnodes configured on a host with
// peer exchange off: nothing could be learned from them.
var ErrBootnodesNeedExchange = errors.New("p2p: bootnodes need peer exchange; list the peers as static peers instead")

// Defaults and bounds of the address book.
const (
	defaultAddrsPerSource = 32 // one full answer (maxPeersShared)
	defaultAddrRefill     = 30 * time.Second
	maxBookSize           = 1024
	// A learned address is first retried after learnedMinBackoff, then
	// twice as long after each failure up to learnedMaxBackoff; after
	// maxAddrFailures in a row it is dropped.
	learnedMinBackoff = time.Second
	learnedMaxBackoff = 10 * time.Minute
	maxAddrFailures   = 8
	// maxDialsPerRound caps the learned addresses dialed per discovery
	// round (every two seconds).
	maxDialsPerRound = 8
)

// candidate is an address the host may dial to find peers.
type candidate struct {
	addr     PeerAddr
	source   string // the IP it was learned from; "" for a bootnode
	next     time.Time
	backoff  time.Duration
	failures int
	dialing  bool
}

// sourceQuota is what one source IP has put in the book.
type sourceQuota struct {
	held   int       // addresses in the book charged to it
	tokens float64   // new addresses it may add now
	at     time.Time // when tokens was last refilled
}

// addrBook holds the candidates; the host's mutex guards it.
type addrBook struct {
	perSource int
	refill    time.Duration
	addrs     map[string]*candidate
	sources   map[string]*sourceQuota
}

func newAddrBook(perSource int, refill time.Duration) *addrBook {
	return &addrBook{perSource: perSource, refill: refill, addrs: make(map[string]*candidate), sources: make(map[string]*sourceQuota)}
}

// addBootnode puts a configured address in the book for good.
func (b *addrBook) addBootnode(a PeerAddr) {
	if _, ok := b.addrs[a.Addr]; !ok {
		b.addrs[a.Addr] = &candidate{addr: a, backoff: minBackoff}
	}
}

// learn puts an address learned from source (an IP) in the book, if it is
// new, the source has room and a token, and the book has room. It reports
// whether the address was added.
func (b *addrBook) learn(a PeerAddr, source string, now time.Time) bool {
	if _, ok := b.addrs[a.Addr]; ok || len(b.addrs) >= maxBookSize {
		return false
	}
	q := b.sources[source]
	if q == nil {
		q = &sourceQuota{tokens: float64(b.perSource), at: now}
		b.sources[source] = q
	}
	q.tokens = min(float64(b.perSource), q.tokens+float64(now.Sub(q.at))/float64(b.refill))
	q.at = now
	if q.held >= b.perSource || q.tokens < 1 {
		return false
	}
	q.tokens--
	q.held++
	b.addrs[a.Addr] = &candidate{addr: a, source: source, backoff: learnedMinBackoff}
	return true
}

// remove drops an address and gives its source the room back.
func (b *addrBook) remove(c *candidate) {
	if b.addrs[c.addr.Addr] != c {
		return
	}
	delete(b.addrs, c.addr.Addr)
	if q := b.sources[c.source]; q != nil && c.source != "" {
		q.held--
	}
}

// dialed records the outcome of a dial of c: the next dial of it waits
// its back-off, which doubles on failure and restarts on success; a
// learned address that keeps failing is dropped.
func (b *addrBook) dialed(c *candidate, ok bool, now time.Time) {
	c.dialing = false
	if ok {
		c.failures = 0
		c.backoff = minBackoff
		if c.source != "" {
			c.backoff = learnedMinBackoff
		}
		c.next = now.Add(c.backoff)
		return
	}
	c.failures++
	if c.source != "" && c.failures >= maxAddrFailures {
		b.remove(c)
		return
	}
	c.next = now.Add(jitter(c.backoff))
	limit := maxBackoff
	if c.source != "" {
		limit = learnedMaxBackoff
	}
	c.backoff = min(2*c.backoff, limit)
}

// sweep forgets what the book keeps of sources with nothing in it and a
// full bucket again, so the map of sources stays as small as the book.
func (b *addrBook) sweep(now time.Time) {
	for ip, q := range b.sources {
		if q.held <= 0 && now.Sub(q.at) >= time.Duration(b.perSource)*b.refill {
			delete(b.sources, ip)
		}
	}
}

// hostOf is the host part of an address ("" if it has none).
func hostOf(addr string) string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return ""
	}
	return host
}

// askPeers asks p for the addresses it knows, unless peer exchange is off.
// The answer is taken once (see onPeers).
func (h *Host) askPeers(p *peer) {
	if !h.cfg.NoPeerExchange {
		p.askedPeers.Store(true)
		p.send(Low, []byte{kindGetPeers})
	}
}

// onPeers takes p's answer to a request for addresses.
func (h *Host) onPeers(p *peer, peers []PeerAddr) {
	if h.cfg.NoPeerExchange || !p.askedPeers.CompareAndSwap(true, false) {
		return // an unasked-for list, or with nothing to dial it with
	}
	ip := p.remoteIP()
	now := time.Now()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.ipBanned(ip, now) {
		return
	}
	for _, a := range peers {
		if a.ID != h.id {
			h.book.learn(a, ipKey(ip), now)
		}
	}
}

// private reports whether id's address is kept out of peer exchange.
func (h *Host) private(id ID) bool { return slices.Contains(h.cfg.PrivatePeers, id) }

// KnownAddrs lists the addresses the host has learned (bootnodes, peers
// that dialed it, and what peers shared) and may dial to find peers.
func (h *Host) KnownAddrs() []PeerAddr {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]PeerAddr, 0, len(h.book.addrs))
	for _, c := range h.book.addrs {
		out = append(out, c.addr)
	}
	return out
}
