package h2

import "time"

// Abuse limits. A client can make the server work without asking for
// anything it will read: open streams and reset them at once (rapid
// reset, CVE-2023-44487), flood PING or SETTINGS frames each of which
// needs an answer, send frames that carry nothing (empty DATA,
// PRIORITY, unknown types, zero-length CONTINUATION), or keep a header
// block open with CONTINUATION frames (CVE-2024-27316 class). Each
// connection has two budgets refilled over time, one for stream resets
// and one for those frames; a client over either is sent GOAWAY
// ENHANCE_YOUR_CALM and its connection closed, as Go's x/net and
// nghttp2 do since those advisories. A header block is bounded in bytes
// with each frame's header counted, so empty CONTINUATION frames add up.

// Defaults of Server.MaxResetsPerSecond and MaxControlPerSecond.
const (
	DefaultResetsPerSecond  = 100
	DefaultControlPerSecond = 1000
)

// frameOverhead is what each CONTINUATION frame costs against the header
// block's bound beyond its payload: its own header's nine bytes.
const frameOverhead = 9

// budget is a token bucket: up to burst events at once, refilled at rate
// a second. Only the connection's reading goroutine uses it.
type budget struct {
	rate, burst, tokens float64
	last                time.Time
}

func newBudget(perSecond int) budget {
	r := float64(perSecond)
	// A burst of two seconds' worth: a client that cancels a few hundred
	// streams at once (a context cancelled over a fan-out) is not cut.
	return budget{rate: r, burst: 2 * r, tokens: 2 * r}
}

// spend takes one token at now, or reports that none is left.
func (b *budget) spend(now time.Time) bool {
	if !b.last.IsZero() {
		if dt := now.Sub(b.last).Seconds(); dt > 0 {
			b.tokens = min(b.burst, b.tokens+dt*b.rate)
		}
	}
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// costly reports whether a frame is one of those charged to the control
// budget: it asks for an answer or carries nothing a request needs.
func costly(h frameHdr) bool {
	switch h.typ {
	case framePing, frameSettings:
		return !h.has(flagAck)
	case framePriority:
		return true
	case frameWindowUpdate:
		// A client sends these in proportion to what the server sends
		// it (a fast download asks for thousands a second), so they are
		// not held to the budget; each costs an addition.
		return false
	case frameData:
		return h.length == 0 && !h.has(flagEndStream)
	case frameContinuation:
		return h.length == 0
	case frameHeaders, frameRSTStream, frameGoAway:
		return false
	}
	return true // unknown types are read and ignored
}

// errResetFlood and errControlFlood end a connection over its budgets.
var (
	errResetFlood   = connErr(ErrEnhanceYourCalm, "too many stream resets")
	errControlFlood = connErr(ErrEnhanceYourCalm, "too many control frames")
)
