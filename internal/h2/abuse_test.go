package h2

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"math"
	"net"
	"net/http"
	"sync/atomic"
	"testing"
	"time"
)

// Each flood ends the connection with GOAWAY ENHANCE_YOUR_CALM long
// before it is through, and the server does work for at most a budget's
// worth of it; the same frames within the budget are served.
func TestAbuseLimits(t *testing.T) {
	hdrs := appendField(appendField(appendField(appendField(nil, ":method", "POST"), ":scheme", "http"), ":path", "/"), ":authority", "x")
	const flood = 20_000
	for _, tc := range []struct {
		name   string
		srv    *Server
		send   func(rc *rawClient, i int) // the i-th frame(s) of the flood
		within int                        // how many of them are fine at once
		end    bool                       // the frames leave a header block to end
	}{
		{"rapid reset", &Server{MaxResetsPerSecond: 50}, func(rc *rawClient, i int) {
			id := uint32(2*i + 1)
			rc.send(frameHeaders, flagEndHeaders, id, hdrs)
			rc.send(frameRSTStream, 0, id, appendUint32(nil, uint32(ErrCancel)))
		}, 90, false},
		{"refused streams", &Server{MaxResetsPerSecond: 50, MaxConcurrentStreams: 1}, func(rc *rawClient, i int) {
			// Stream 1 stays open; every later one is refused.
			rc.send(frameHeaders, flagEndHeaders, uint32(2*i+1), hdrs)
		}, 90, false},
		{"ping", &Server{MaxControlPerSecond: 100}, func(rc *rawClient, i int) {
			rc.send(framePing, 0, 0, make([]byte, 8))
		}, 190, false},
		{"settings", &Server{MaxControlPerSecond: 100}, func(rc *rawClient, i int) {
			rc.send(frameSettings, 0, 0, nil)
		}, 190, false},
		{"empty data", &Server{MaxControlPerSecond: 100}, func(rc *rawClient, i int) {
			if i == 0 {
				rc.send(frameHeaders, flagEndHeaders, 1, hdrs)
			}
			rc.send(frameData, 0, 1, nil)
		}, 190, false},
		{"priority", &Server{MaxControlPerSecond: 100}, func(rc *rawClient, i int) {
			rc.send(framePriority, 0, 1, []byte{0, 0, 0, 0, 16})
		}, 190, false},
		{"unknown frames", &Server{MaxControlPerSecond: 100}, func(rc *rawClient, i int) {
			rc.send(0x20, 0, 0, nil)
		}, 190, false},
		{"empty continuation", &Server{MaxControlPerSecond: 100}, func(rc *rawClient, i int) {
			if i == 0 {
				rc.send(frameHeaders, 0, 1, hdrs)
			}
			rc.send(frameContinuation, 0, 1, nil)
		}, 190, true},
		// With the control budget out of the way, the header block's
		// bound counts each empty frame's header.
		{"empty continuation, block bound", &Server{MaxControlPerSecond: math.MaxInt32, MaxHeaderListSize: 1000}, func(rc *rawClient, i int) {
			if i == 0 {
				rc.send(frameHeaders, 0, 1, hdrs)
			}
			rc.send(frameContinuation, 0, 1, nil)
		}, (1000+defaultFrameSize-len(hdrs))/frameOverhead - 1, true}, // and the frame that ends it
	} {
		t.Run(tc.name, func(t *testing.T) {
			var handled atomic.Int64
			block := make(chan struct{})
			defer close(block)
			addr := listen(t, tc.srv, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				handled.Add(1)
				select {
				case <-r.Context().Done():
				case <-block:
				}
			}))
			// Within the budget: the connection lives on.
			rc := dialRaw(t, addr)
			for i := range tc.within {
				tc.send(rc, i)
			}
			if tc.end {
				rc.send(frameContinuation, flagEndHeaders, 1, nil)
			}
			rc.send(framePing, flagAck, 0, make([]byte, 8)) // costs nothing
			rc.request(uint32(2*tc.within+101), true)
			rc.c.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
			for {
				h, p, err := rc.fr.next()
				if err != nil {
					if ne, ok := err.(net.Error); ok && ne.Timeout() {
						break // quiet: still open
					}
					t.Fatalf("within the budget: %v", err)
				}
				if h.typ == frameGoAway {
					t.Fatalf("within the budget: GOAWAY %s %s", ErrCode(binary.BigEndian.Uint32(p[4:])), p[8:])
				}
			}
			rc.c.Close()

			// The flood: cut off with ENHANCE_YOUR_CALM.
			handled.Store(0)
			rc = dialRaw(t, addr)
			go func() {
				for i := range flood {
					tc.send(rc, i)
				}
			}()
			rc.expectGoAway(ErrEnhanceYourCalm)
			if n := handled.Load(); n > int64(3*tc.within) {
				t.Fatalf("%d streams handled before the cut", n)
			}
		})
	}
}

// WINDOW_UPDATE frames are what a client sends as it reads a fast
// download: thousands of them are no flood.
func TestWindowUpdatesNotControl(t *testing.T) {
	rc := dialRaw(t, listen(t, &Server{MaxControlPerSecond: 10}, echo))
	for range 5000 {
		rc.send(frameWindowUpdate, 0, 0, appendUint32(nil, 1))
	}
	rc.request(1, true)
	for {
		f := rc.next()
		if f.typ == frameGoAway {
			t.Fatalf("GOAWAY %s", f.p[8:])
		}
		if f.typ == frameHeaders && f.stream == 1 {
			return
		}
	}
}

// Within a budget's burst every event is allowed; past it, only what the
// rate refills.
func TestBudget(t *testing.T) {
	b := newBudget(10)
	now := time.Unix(1000, 0)
	for i := range 20 {
		if !b.spend(now) {
			t.Fatalf("event %d of the burst refused", i)
		}
	}
	if b.spend(now) {
		t.Fatal("event past the burst allowed")
	}
	now = now.Add(time.Second / 2)
	n := 0
	for b.spend(now) {
		n++
	}
	if n != 5 {
		t.Fatalf("half a second at 10/s refilled %d, want 5", n)
	}
}

// FuzzBudget drives a budget with arbitrary gaps between events: it never
// allows more than its burst plus what its rate refilled over the span,
// and never refuses an event after a full refill.
func FuzzBudget(f *testing.F) {
	f.Add(uint16(5), []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add(uint16(100), []byte{1, 2, 3, 255, 0, 0, 9})
	f.Add(uint16(1), bytes.Repeat([]byte{0}, 300))
	f.Fuzz(func(t *testing.T, rate uint16, gaps []byte) {
		if rate == 0 {
			return
		}
		b := newBudget(int(rate))
		start := time.Unix(1000, 0)
		now := start
		allowed := 0
		for _, g := range gaps {
			// A gap of 255 is a full refill; others are milliseconds.
			full := g == 255
			if full {
				now = now.Add(time.Duration(2*float64(time.Second)) + time.Second)
			} else {
				now = now.Add(time.Duration(g) * time.Millisecond)
			}
			ok := b.spend(now)
			if full && !ok {
				t.Fatal("refused after a full refill")
			}
			if ok {
				allowed++
			}
			if b.tokens > b.burst || b.tokens < 0 {
				t.Fatalf("tokens %v outside [0, %v]", b.tokens, b.burst)
			}
			if max := 2*float64(rate) + now.Sub(start).Seconds()*float64(rate); float64(allowed) > max+1e-6 {
				t.Fatalf("%d allowed within %v at %d/s", allowed, now.Sub(start), rate)
			}
		}
	})
}

// FuzzFloods repeats a fuzzed frame many times on one connection: the
// server ends or keeps the connection, never hangs or panics, and never
// runs more handlers than the stream and reset budgets allow.
func FuzzFloods(f *testing.F) {
	hdrs := appendField(appendField(appendField(nil, ":method", "POST"), ":scheme", "http"), ":path", "/")
	f.Add(uint8(frameRSTStream), uint8(0), uint16(500), []byte{0, 0, 0, 8})
	f.Add(uint8(framePing), uint8(0), uint16(3000), make([]byte, 8))
	f.Add(uint8(frameSettings), uint8(0), uint16(3000), []byte{})
	f.Add(uint8(frameContinuation), uint8(0), uint16(3000), []byte{})
	f.Add(uint8(frameHeaders), uint8(flagEndHeaders), uint16(600), hdrs)
	f.Add(uint8(frameData), uint8(0), uint16(3000), []byte{})
	f.Fuzz(func(t *testing.T, typ, flags uint8, count uint16, payload []byte) {
		if len(payload) > 1024 {
			return
		}
		client, server := net.Pipe()
		go io.Copy(io.Discard, client)
		var handled atomic.Int64
		srv := &Server{PrefaceTimeout: time.Second, MaxResetsPerSecond: 10, MaxControlPerSecond: 10}
		done := make(chan struct{})
		go func() {
			srv.ServeConn(context.Background(), server, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { handled.Add(1) }))
			close(done)
		}()
		client.Write([]byte(preface))
		client.Write(appendFrameHdr(nil, 0, frameSettings, 0, 0))
		client.Write(append(appendFrameHdr(nil, len(hdrs), frameHeaders, flagEndHeaders, 1), hdrs...))
		client.SetWriteDeadline(time.Now().Add(5 * time.Second))
		for i := range int(count) {
			id := uint32(2*i + 1)
			if typ == frameHeaders {
				id += 2 // new streams
			}
			if _, err := client.Write(append(appendFrameHdr(nil, len(payload), typ, flags, id), payload...)); err != nil {
				break
			}
		}
		client.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("connection did not end")
		}
	})
}
