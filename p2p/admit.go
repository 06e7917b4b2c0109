package p2p

import (
	"errors"
	"fmt"
	"net"
	"sync"
	"time"
)

// Inbound admission. An accepted socket costs a descriptor, a goroutine
// and a handshake's buffers before its peer has proved anything, so the
// accept loop decides at once, before reading a byte, whether to keep it:
// a connection is closed straight away when the host has all the peers it
// takes, or when too many handshakes are in progress from its IP or in
// all. A handshake lasts one round trip for an honest peer and at most
// HandshakeTimeout for a silent one, and reads at most the greeting
// (helloFrameSize), so a flood of sockets holds a bounded number of
// descriptors and a few kilobytes each, for a bounded time. Nothing
// before a handshake tells an honest peer from a flooder, so a flood
// from many IPs can delay inbound peers; but this node reaches its static
// peers by dialing out, which no inbound cap limits, and the per-IP cap
// keeps one client from taking more than its share.

// ErrTooManyHandshakes reports an inbound connection refused because too
// many handshakes are in progress, from its IP or in all.
var ErrTooManyHandshakes = errors.New("p2p: too many handshakes in progress")

// Defaults of the admission caps. An honest node opens one connection to
// a peer at a time, and several honest nodes may share an IP (a loopback
// test network, a NAT), so the per-IP cap leaves room for a handful of
// them reconnecting at once.
const (
	defaultMaxPending      = 64
	defaultMaxPendingPerIP = 8
	// minPendingReserve is the fewest handshake slots an FDBudget must
	// leave beside the peers, so peers can still come and go.
	minPendingReserve = 4
)

// pendingSet counts the inbound connections still in their handshake.
type pendingSet struct {
	mu                 sync.Mutex
	total              int
	perIP              map[string]int
	maxTotal, maxPerIP int
}

func newPendingSet(maxTotal, maxPerIP int) *pendingSet {
	return &pendingSet{perIP: make(map[string]int), maxTotal: maxTotal, maxPerIP: maxPerIP}
}

// acquire takes a handshake slot for ip, or reports why there is none.
func (s *pendingSet) acquire(ip string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.total >= s.maxTotal:
		return fmt.Errorf("%w: %d in all", ErrTooManyHandshakes, s.total)
	case s.perIP[ip] >= s.maxPerIP:
		return fmt.Errorf("%w: %d from %s", ErrTooManyHandshakes, s.perIP[ip], ip)
	}
	s.total++
	s.perIP[ip]++
	return nil
}

// release gives back a slot acquire took.
func (s *pendingSet) release(ip string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total--
	if s.perIP[ip]--; s.perIP[ip] <= 0 {
		delete(s.perIP, ip) // the map holds only IPs with handshakes in progress
	}
}

// counts returns the handshakes in progress in all and from ip.
func (s *pendingSet) counts(ip string) (total, fromIP int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.total, s.perIP[ip]
}

// admitConfig fills in the admission caps and checks them against the
// descriptor budget: established peers (MaxPeers, plus static peers
// dialed past it) and handshakes in progress must fit in it.
func admitConfig(cfg *Config) error {
	if cfg.MaxPendingHandshakes <= 0 {
		cfg.MaxPendingHandshakes = defaultMaxPending
	}
	if cfg.MaxPendingPerIP <= 0 {
		cfg.MaxPendingPerIP = defaultMaxPendingPerIP
	}
	if cfg.FDBudget > 0 {
		room := cfg.FDBudget - cfg.MaxPeers - len(cfg.StaticPeers)
		if room < minPendingReserve {
			return fmt.Errorf("p2p: a budget of %d descriptors does not hold %d peers, %d static peers and %d handshakes",
				cfg.FDBudget, cfg.MaxPeers, len(cfg.StaticPeers), minPendingReserve)
		}
		cfg.MaxPendingHandshakes = min(cfg.MaxPendingHandshakes, room)
	}
	cfg.MaxPendingPerIP = min(cfg.MaxPendingPerIP, cfg.MaxPendingHandshakes)
	return nil
}

// admit decides whether to keep a socket just accepted from ip; if so it
// holds a handshake slot, and the function returned gives it back.
func (h *Host) admit(ip string) (release func(), err error) {
	h.mu.Lock()
	full := len(h.peers) >= h.cfg.MaxPeers
	banned := h.ipBanned(ip, time.Now()) && !h.staticIPs[ip]
	h.mu.Unlock()
	switch {
	case full:
		return nil, ErrTooManyPeers
	case banned:
		return nil, ErrBanned
	}
	k := ipKey(ip)
	if err := h.pending.acquire(k); err != nil {
		return nil, err
	}
	return func() { h.pending.release(k) }, nil
}

// ipOf is the IP of a connection's remote end.
func ipOf(a net.Addr) string {
	if t, ok := a.(*net.TCPAddr); ok {
		return t.IP.String()
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return host
}

// logThrottle logs the first of a burst of like events in each interval
// and how many it left out, so a flood of refused sockets costs a log
// line a second, not one per socket.
type logThrottle struct {
	mu     sync.Mutex
	next   time.Time
	missed int
}

func (l *logThrottle) logf(logf func(string, ...any), format string, args ...any) {
	l.mu.Lock()
	now := time.Now()
	if now.Before(l.next) {
		l.missed++
		l.mu.Unlock()
		return
	}
	missed := l.missed
	l.next, l.missed = now.Add(time.Second), 0
	l.mu.Unlock()
	if missed > 0 {
		format += fmt.Sprintf(" (and %d more like it)", missed)
	}
	logf(format, args...)
}
