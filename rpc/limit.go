package rpc

import (
	"sync"
	"time"
)

// LimitConfig holds the public limits of DESIGN.md.
type LimitConfig struct {
	PerSecond   int // requests per second per client (10)
	PerMinute   int // requests per minute per client (600)
	Concurrency int // concurrent requests or connections per client (5)
}

// PublicLimits are the defaults for --public.
var PublicLimits = LimitConfig{PerSecond: 10, PerMinute: 600, Concurrency: 5}

// Limiter enforces per-client request rates (two token buckets, per second
// and per minute) and concurrency. Idle clients are forgotten.
type Limiter struct {
	cfg     LimitConfig
	mu      sync.Mutex
	clients map[string]*client
	now     func() time.Time
	lastGC  time.Time
}

type client struct {
	sec, min  float64 // tokens
	last      time.Time
	inflight  int
	lastTouch time.Time
}

// NewLimiter returns a limiter with the given limits.
func NewLimiter(cfg LimitConfig) *Limiter {
	return &Limiter{cfg: cfg, clients: map[string]*client{}, now: time.Now}
}

// Acquire admits one request (or connection) of ip. When admitted, release
// must be called once it is done. When refused, wait says how long until a
// retry can succeed.
func (l *Limiter) Acquire(ip string) (release func(), wait time.Duration, ok bool) {
	if wait, ok := l.take(ip, true); !ok {
		return nil, wait, false
	}
	return func() { l.release(ip) }, 0, true
}

// Allow admits one request without holding a concurrency slot (used for the
// messages of an already admitted WebSocket connection).
func (l *Limiter) Allow(ip string) (time.Duration, bool) { return l.take(ip, false) }

func (l *Limiter) take(ip string, slot bool) (time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	if now.Sub(l.lastGC) > time.Minute {
		for k, c := range l.clients {
			if c.inflight == 0 && now.Sub(c.lastTouch) > 2*time.Minute {
				delete(l.clients, k)
			}
		}
		l.lastGC = now
	}
	c := l.clients[ip]
	if c == nil {
		c = &client{sec: float64(l.cfg.PerSecond), min: float64(l.cfg.PerMinute), last: now}
		l.clients[ip] = c
	}
	c.lastTouch = now
	dt := now.Sub(c.last).Seconds()
	c.last = now
	c.sec = minf(float64(l.cfg.PerSecond), c.sec+dt*float64(l.cfg.PerSecond))
	c.min = minf(float64(l.cfg.PerMinute), c.min+dt*float64(l.cfg.PerMinute)/60)
	if slot && l.cfg.Concurrency > 0 && c.inflight >= l.cfg.Concurrency {
		return time.Second, false
	}
	if l.cfg.PerSecond > 0 && c.sec < 1 {
		return time.Duration((1 - c.sec) / float64(l.cfg.PerSecond) * float64(time.Second)), false
	}
	if l.cfg.PerMinute > 0 && c.min < 1 {
		return time.Duration((1 - c.min) / float64(l.cfg.PerMinute) * 60 * float64(time.Second)), false
	}
	if l.cfg.PerSecond > 0 {
		c.sec--
	}
	if l.cfg.PerMinute > 0 {
		c.min--
	}
	if slot {
		c.inflight++
	}
	return 0, true
}

func (l *Limiter) release(ip string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if c := l.clients[ip]; c != nil && c.inflight > 0 {
		c.inflight--
	}
}

func minf(a, b float64) float64 {
	if a < b {
		return a
	}
	return b
}
