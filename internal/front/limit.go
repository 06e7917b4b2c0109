package front

import (
	"context"
	"math"
	"sync"
	"time"
)

// Limits are the per-client limits of a node's listeners. A zero field
// disables that limit.
type Limits struct {
	PerSecond int // calls per second per client IP
	PerMinute int // calls per minute per client IP
	Conns     int // concurrent TCP connections per client IP, over all listeners
}

// PublicLimits are the defaults for --public.
var PublicLimits = Limits{PerSecond: 10, PerMinute: 600, Conns: 5}

// Never is the wait Charge reports for a charge that can not succeed
// however long the client waits: more calls at once than a bucket holds.
const Never time.Duration = math.MaxInt64

// limiter holds two token buckets (per second and per minute) and a
// connection count for each client IP. Clients idle for two minutes with
// no open connection are forgotten.
type limiter struct {
	cfg     Limits
	now     func() time.Time
	mu      sync.Mutex
	clients map[string]*bucket
	lastGC  time.Time
}

type bucket struct {
	sec, min  float64 // tokens
	last      time.Time
	conns     int
	lastTouch time.Time
}

func newLimiter(cfg Limits, now func() time.Time) *limiter {
	if now == nil {
		now = time.Now
	}
	return &limiter{cfg: cfg, now: now, clients: map[string]*bucket{}}
}

// get returns ip's bucket refilled to now. l.mu must be held.
func (l *limiter) get(ip string) *bucket {
	now := l.now()
	if now.Sub(l.lastGC) > time.Minute {
		for k, b := range l.clients {
			if b.conns == 0 && now.Sub(b.lastTouch) > 2*time.Minute {
				delete(l.clients, k)
			}
		}
		l.lastGC = now
	}
	b := l.clients[ip]
	if b == nil {
		b = &bucket{sec: float64(l.cfg.PerSecond), min: float64(l.cfg.PerMinute), last: now}
		l.clients[ip] = b
	}
	b.lastTouch = now
	if dt := now.Sub(b.last).Seconds(); dt > 0 {
		b.sec = min(float64(l.cfg.PerSecond), b.sec+dt*float64(l.cfg.PerSecond))
		b.min = min(float64(l.cfg.PerMinute), b.min+dt*float64(l.cfg.PerMinute)/60)
		b.last = now
	}
	return b
}

// charge takes n tokens from both of ip's buckets, all or nothing: a
// refused charge takes none, so a client that retries a refused batch is
// not punished twice for it. When refused, wait is how long until the
// same charge can succeed (Never when n exceeds a bucket's size).
func (l *limiter) charge(ip string, n int) (wait time.Duration, ok bool) {
	if n <= 0 || l.cfg.PerSecond <= 0 && l.cfg.PerMinute <= 0 {
		return 0, true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.get(ip)
	need := float64(n)
	if l.cfg.PerSecond > 0 {
		if n > l.cfg.PerSecond {
			return Never, false
		}
		if b.sec < need {
			wait = max(wait, refill(need-b.sec, float64(l.cfg.PerSecond)))
		}
	}
	if l.cfg.PerMinute > 0 {
		if n > l.cfg.PerMinute {
			return Never, false
		}
		if b.min < need {
			wait = max(wait, refill(need-b.min, float64(l.cfg.PerMinute)/60))
		}
	}
	if wait > 0 {
		return wait, false
	}
	if l.cfg.PerSecond > 0 {
		b.sec -= need
	}
	if l.cfg.PerMinute > 0 {
		b.min -= need
	}
	return 0, true
}

// take takes up to n tokens without refusing: it books a request that was
// served without being charged (see Client).
func (l *limiter) take(ip string, n int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.get(ip)
	b.sec = max(0, b.sec-float64(n))
	b.min = max(0, b.min-float64(n))
}

// refill is how long a bucket refilling at rate tokens per second takes to
// gain missing tokens.
func refill(missing, rate float64) time.Duration {
	return time.Duration(missing / rate * float64(time.Second))
}

// open admits one more connection of ip, or reports that ip already holds
// the most it may.
func (l *limiter) open(ip string) bool {
	if l.cfg.Conns <= 0 {
		return true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.get(ip)
	if b.conns >= l.cfg.Conns {
		return false
	}
	b.conns++
	return true
}

// closed releases a connection admitted by open.
func (l *limiter) closed(ip string) {
	if l.cfg.Conns <= 0 {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if b := l.clients[ip]; b != nil && b.conns > 0 {
		b.conns--
	}
}

// conns is how many connections ip holds open.
func (l *limiter) conns(ip string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	if b := l.clients[ip]; b != nil {
		return b.conns
	}
	return 0
}

// Client is the rate-limit handle of one HTTP request (a WebSocket
// connection included) and the client IP it came from. Protocol handlers
// that know how many calls a request carries charge them through it; see
// Options.PerCall. Without limits configured (and for a nil *Client) it
// admits everything.
type Client struct {
	lim     *limiter
	ip      string
	charged bool
}

type clientKey struct{}

// ClientFrom returns the handle the front put in a request's context, or
// nil outside the front.
func ClientFrom(ctx context.Context) *Client {
	c, _ := ctx.Value(clientKey{}).(*Client)
	return c
}

// Charge books n calls of this client. Either all n are admitted or none
// is, and then wait says how long until the same charge can succeed
// (Never when n is more than a bucket holds, e.g. a batch of 11 calls
// under a 10 per second limit).
//
// A Client is used by one goroutine at a time: the request's handler, or
// the reading loop of a WebSocket connection.
func (c *Client) Charge(n int) (wait time.Duration, ok bool) {
	if c == nil || c.lim == nil {
		return 0, true
	}
	c.charged = true
	return c.lim.charge(c.ip, n)
}

// IP is the client address the limits are kept for.
func (c *Client) IP() string {
	if c == nil {
		return ""
	}
	return c.ip
}

// Detach hands a request's limits over to a goroutine that outlives the
// request (a WebSocket connection served after its handler returned): the
// returned copy, used by that goroutine alone, keeps charging the same
// client's buckets, and the request is not booked when its handler
// returns. The goroutine calls Done on the copy when it ends, which books
// one call if it charged none, so opening connections is never free.
func (c *Client) Detach() *Client {
	if c == nil {
		return nil
	}
	c.charged = true
	d := *c
	d.charged = false
	return &d
}

// Done ends a detached client (see Detach).
func (c *Client) Done() {
	if c != nil && c.lim != nil && !c.charged {
		c.lim.take(c.ip, 1)
	}
}

// WithClient returns ctx carrying c, for a detached client (see Detach).
func WithClient(ctx context.Context, c *Client) context.Context {
	return context.WithValue(ctx, clientKey{}, c)
}
