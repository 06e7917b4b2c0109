package front

import (
	"testing"
	"time"
)

// clock is a hand-moved clock for the limiter.
type clock struct{ t time.Time }

func (c *clock) now() time.Time            { return c.t }
func (c *clock) add(d time.Duration)       { c.t = c.t.Add(d) }
func newClock() *clock                     { return &clock{t: time.Unix(1000, 0)} }
func (c *clock) limiter(l Limits) *limiter { return newLimiter(l, c.now) }

func TestCharge(t *testing.T) {
	type step struct {
		advance time.Duration
		n       int
		ok      bool
		wait    time.Duration // when refused
	}
	for _, tc := range []struct {
		name   string
		limits Limits
		steps  []step
	}{
		{"ten a second", Limits{PerSecond: 10, PerMinute: 600}, []step{
			{0, 10, true, 0}, {0, 1, false, 100 * time.Millisecond},
			{100 * time.Millisecond, 1, true, 0}, {0, 1, false, 100 * time.Millisecond},
		}},
		{"batch all or nothing", Limits{PerSecond: 10, PerMinute: 600}, []step{
			{0, 4, true, 0}, {0, 7, false, 100 * time.Millisecond},
			{0, 6, true, 0}, {0, 1, false, 100 * time.Millisecond},
		}},
		{"more than the bucket holds", Limits{PerSecond: 10, PerMinute: 600}, []step{
			{0, 11, false, Never}, {0, 10, true, 0},
		}},
		{"bucket does not overfill", Limits{PerSecond: 10}, []step{
			{time.Hour, 10, true, 0}, {0, 1, false, 100 * time.Millisecond},
		}},
		{"minute bucket", Limits{PerSecond: 100, PerMinute: 120}, []step{
			// 2 tokens a second refill the minute bucket.
			{0, 100, true, 0}, {time.Second, 22, true, 0},
			{0, 1, false, 500 * time.Millisecond}, {500 * time.Millisecond, 1, true, 0},
		}},
		{"no rate limits", Limits{Conns: 5}, []step{{0, 1000, true, 0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := newClock()
			l := c.limiter(tc.limits)
			for i, s := range tc.steps {
				c.add(s.advance)
				wait, ok := l.charge("1.2.3.4", s.n)
				if ok != s.ok || !ok && wait != s.wait {
					t.Fatalf("step %d: charge(%d) = %v, %v; want %v, %v", i, s.n, wait, ok, s.ok, s.wait)
				}
			}
			// Another client has its own buckets.
			if _, ok := l.charge("5.6.7.8", 1); !ok {
				t.Fatal("other client refused")
			}
		})
	}
}

// A booked uncharged request takes a token but never drives a bucket
// below empty, so a client is not punished past the refill time.
func TestTake(t *testing.T) {
	c := newClock()
	l := c.limiter(Limits{PerSecond: 10, PerMinute: 600})
	for range 15 {
		l.take("ip", 1)
	}
	if _, ok := l.charge("ip", 1); ok {
		t.Fatal("charge admitted after the bucket was taken empty")
	}
	c.add(100 * time.Millisecond)
	if _, ok := l.charge("ip", 1); !ok {
		t.Fatal("bucket went below empty")
	}
}

func TestConns(t *testing.T) {
	c := newClock()
	l := c.limiter(Limits{Conns: 2})
	if !l.open("a") || !l.open("a") || l.open("a") {
		t.Fatal("cap of 2 not kept")
	}
	if !l.open("b") {
		t.Fatal("another client refused")
	}
	l.closed("a")
	if l.conns("a") != 1 || !l.open("a") {
		t.Fatal("closed connection not released")
	}
	// A client holding connections is not forgotten however idle it is.
	c.add(time.Hour)
	l.open("c") // runs the sweep
	if l.conns("a") != 2 || l.open("a") {
		t.Fatal("idle client with open connections forgotten")
	}
	if _, ok := l.clients["b"]; !ok {
		t.Fatal("b has a connection open")
	}
	l.closed("b")
	c.add(time.Hour)
	l.open("c")
	if _, ok := l.clients["b"]; ok {
		t.Fatal("idle client without connections kept")
	}
}

func TestNilClient(t *testing.T) {
	var c *Client
	if _, ok := c.Charge(1 << 20); !ok {
		t.Fatal("nil client refused")
	}
}
