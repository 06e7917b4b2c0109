package opslog

import (
	"net/netip"
	"sync"
	"time"
)

// throttle decides, under one lock, whether a login may have its
// passphrase checked, and books the result in the same critical section:
// however many attempts arrive at once, no more are checked than the
// back-off allows (an earlier check before the body was read let 199
// concurrent guesses through). Failures are kept per client address and
// over all addresses; past a free allowance each further failure doubles
// a lock-out, per address from a minute up to an hour, over all from a
// second up to five minutes. Trusted addresses (the operator's) are held
// only to their own back-off, so a distributed attack that locks
// everyone else out does not lock out the operator.
type throttle struct {
	mu      sync.Mutex
	perIP   map[string]*backoff
	global  backoff
	trusted []netip.Prefix
	checks  int // passphrases compared, for tests
}

// backoff is one key's failures and lock-out.
type backoff struct {
	failures int
	until    time.Time // no check before this
	last     time.Time // of the last failure
}

type backoffRule struct {
	free      int           // failures before the first lock-out
	base, max time.Duration // first lock-out, and the longest
}

var (
	globalRule = backoffRule{free: 100, base: time.Second, max: 5 * time.Minute}
	// maxTracked bounds the addresses kept; past it the addresses with
	// no lock-out in force are forgotten, and a new one is held to the
	// global back-off alone until room is made.
	maxTracked = 4096
)

func (r backoffRule) lockout(failures int) time.Duration {
	over := failures - r.free
	if over < 0 {
		return 0
	}
	d := r.base
	for ; over > 0 && d < r.max; over-- {
		d *= 2
	}
	return min(d, r.max)
}

func (b *backoff) fail(r backoffRule, now time.Time) {
	if !b.last.IsZero() && now.Sub(b.last) > r.max && !now.Before(b.until) {
		b.failures = 0 // quiet longer than the longest lock-out: start over
	}
	b.failures++
	b.last = now
	if d := r.lockout(b.failures); d > 0 {
		b.until = now.Add(d)
	}
}

// attempt runs check (the passphrase comparison) if ip may try now, and
// books its outcome. It reports whether check ran and what it said, and
// when refused, how long to wait.
func (t *throttle) attempt(ip string, ipRule backoffRule, now time.Time, check func() bool) (checked, ok bool, wait time.Duration) {
	t.mu.Lock()
	defer t.mu.Unlock()
	trusted := t.isTrusted(ip)
	b := t.perIP[ip]
	if b != nil && now.Before(b.until) {
		return false, false, b.until.Sub(now)
	}
	if !trusted && now.Before(t.global.until) {
		return false, false, t.global.until.Sub(now)
	}
	t.checks++
	if check() {
		if b != nil {
			delete(t.perIP, ip)
		}
		return true, true, 0
	}
	if b == nil {
		b = t.track(ip, now)
	}
	if b != nil {
		b.fail(ipRule, now)
	}
	if !trusted {
		t.global.fail(globalRule, now)
	}
	return true, false, 0
}

// track adds ip, making room when the map is full; nil when there is none.
func (t *throttle) track(ip string, now time.Time) *backoff {
	if len(t.perIP) >= maxTracked {
		for k, v := range t.perIP {
			if !now.Before(v.until) {
				delete(t.perIP, k)
			}
		}
		if len(t.perIP) >= maxTracked {
			return nil
		}
	}
	b := &backoff{}
	t.perIP[ip] = b
	return b
}

func (t *throttle) isTrusted(ip string) bool {
	a, err := netip.ParseAddr(ip)
	if err != nil {
		return false
	}
	a = a.Unmap()
	for _, p := range t.trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
