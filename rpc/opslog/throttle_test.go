package opslog

import (
	"io"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
	"time"
)

// gatedBody holds a request's body back until the gate opens, as a slow
// client's body arrives after its headers.
type gatedBody struct {
	gate <-chan struct{}
	r    io.Reader
}

func (b *gatedBody) Read(p []byte) (int, error) {
	<-b.gate
	return b.r.Read(p)
}

// 200 wrong passphrases from one address, all sent at once with bodies
// that arrive late, get at most the allowance checked; the rest are
// refused 429 without a check, and so is the right passphrase after them.
func TestConcurrentLoginsThrottled(t *testing.T) {
	g := newRig(t, "")
	gate := make(chan struct{})
	codes := make(chan int, 200)
	var started sync.WaitGroup
	for range 200 {
		started.Add(1)
		go func() {
			r := httptest.NewRequest("POST", "/authenticate", &gatedBody{gate: gate, r: strings.NewReader(`{"passphrase":"guess"}`)})
			r.RemoteAddr = "192.0.2.77:1"
			r.Header.Set("Content-Type", "application/json")
			w := httptest.NewRecorder()
			started.Done()
			g.h.ServeHTTP(w, r)
			codes <- w.Code
		}()
	}
	started.Wait()
	time.Sleep(50 * time.Millisecond) // let every handler reach its body
	close(gate)
	checked := 0
	for range 200 {
		switch code := <-codes; code {
		case 401:
			checked++
		case 429:
		default:
			t.Fatalf("answer %d", code)
		}
	}
	if checked > 5 {
		t.Fatalf("%d of 200 concurrent wrong passphrases checked, want at most 5", checked)
	}
	if code, _, _ := g.do("POST", "/authenticate", "192.0.2.77:1", `{"passphrase":"correct horse"}`); code != 429 {
		t.Fatalf("right passphrase during the lock-out: %d", code)
	}
}

// Past its allowance an address is locked out for a minute, then for
// twice as long with each further failure, up to an hour; a success
// clears it.

// Past its allowance an address is locked out for a minute, then for
// twice as long with each further failure, up to an hour; a success
// clears it.
func TestBackoffPerAddress(t *testing.T) {
	th := throttle{perIP: map[string]*backoff{}}
	rule := backoffRule{free: 2, base: time.Minute, max: time.Hour}
	now := time.Unix(1000, 0)
	try := func(ok bool) (bool, time.Duration) {
		checked, _, wait := th.attempt("192.0.2.1", rule, now, func() bool { return ok })
		return checked, wait
	}
	try(false)
	if checked, _ := try(false); !checked {
		t.Fatal("second failure not checked")
	}
	for _, want := range []time.Duration{time.Minute, 2 * time.Minute, 4 * time.Minute, 8 * time.Minute, 16 * time.Minute, 32 * time.Minute, time.Hour, time.Hour} {
		if checked, wait := try(false); checked || wait != want {
			t.Fatalf("during the lock-out: checked %v, wait %v; want %v", checked, wait, want)
		}
		now = now.Add(want)
		if checked, _ := try(false); !checked {
			t.Fatal("after the lock-out: not checked")
		}
	}
	now = now.Add(time.Hour)
	if checked, _ := try(true); !checked {
		t.Fatal("right passphrase after the lock-out not checked")
	}
	if th.perIP["192.0.2.1"] != nil {
		t.Fatal("a success left the address's failures")
	}
}

// Failures from many addresses lock out everyone but the trusted
// addresses, which log in during the attack.
func TestGlobalLockoutSparesTrusted(t *testing.T) {
	th := throttle{perIP: map[string]*backoff{}, trusted: []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24")}}
	rule := backoffRule{free: 5, base: time.Minute, max: time.Hour}
	now := time.Unix(1000, 0)
	for i := range globalRule.free {
		ip := netip.AddrFrom4([4]byte{198, 51, byte(i >> 8), byte(i)}).String()
		if checked, _, _ := th.attempt(ip, rule, now, func() bool { return false }); !checked {
			t.Fatalf("attempt %d from a fresh address not checked", i)
		}
	}
	if checked, _, wait := th.attempt("192.0.2.200", rule, now, func() bool { return true }); checked || wait != time.Second {
		t.Fatalf("untrusted address during the global lock-out: checked %v, wait %v", checked, wait)
	}
	if checked, ok, _ := th.attempt("203.0.113.5", rule, now, func() bool { return true }); !checked || !ok {
		t.Fatal("trusted address locked out by an attack from others")
	}
}

// FuzzThrottle drives the login throttle with attempts from a few
// addresses (one of them trusted), right or wrong, as time moves on. What
// must hold whatever the order: every refusal says how long to wait; no
// address has more wrong passphrases checked than its free allowance plus
// one per lock-out period that has passed (each lock-out lasts at least
// the rule's base), unless it was forgotten to make room for others (then
// the global rule holds it); a trusted address with no lock-out of its own is
// always checked, however locked everyone else is; and the addresses
// tracked stay within maxTracked.
func FuzzThrottle(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0x40, 0, 0x81, 0x02, 0x03, 0xf0, 0})
	f.Add([]byte{0x01, 0x01, 0x01, 0x03, 0x03, 0x03, 0x03, 0x83, 0x02, 0xff})
	defer func(n int) { maxTracked = n }(maxTracked)
	maxTracked = 3
	f.Fuzz(func(t *testing.T, ops []byte) {
		th := throttle{perIP: map[string]*backoff{}, trusted: []netip.Prefix{netip.MustParsePrefix("203.0.113.0/24")}}
		rule := backoffRule{free: 2, base: time.Minute, max: time.Hour}
		ips := []string{"192.0.2.1", "192.0.2.2", "198.51.100.7", "203.0.113.9"} // the last trusted
		start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		now := start
		wrong := map[string]int{}       // since the address's last right passphrase
		since := map[string]time.Time{} // which resets its back-off
		forgotten := map[string]bool{}
		for i, op := range ops {
			if op&0xf0 == 0xf0 { // time passes: up to 16 minutes
				now = now.Add(time.Duration(op&0x0f+1) * time.Minute)
				continue
			}
			ip := ips[op&0x03]
			right := op&0x80 != 0
			own := th.perIP[ip]
			if own == nil && wrong[ip] > 0 {
				forgotten[ip] = true // evicted to make room: the global rule holds it
			}
			ownClear := own == nil || !now.Before(own.until)
			checked, ok, wait := th.attempt(ip, rule, now, func() bool { return right })
			switch {
			case !checked && wait <= 0:
				t.Fatalf("op %d: %s refused with no wait", i, ip)
			case checked && ok != right:
				t.Fatalf("op %d: %s checked %v, answered %v", i, ip, right, ok)
			case !checked && ip == ips[3] && ownClear:
				t.Fatalf("op %d: the trusted address refused by the others' lock-out", i)
			}
			switch {
			case checked && right:
				wrong[ip], since[ip], forgotten[ip] = 0, now, false
			case checked:
				wrong[ip]++
			}
			if since[ip].IsZero() {
				since[ip] = start
			}
			// The global lock-out (free 100) is not reached by 4
			// addresses' allowances, so each is bound by its own rule.
			if limit := rule.free + 1 + int(now.Sub(since[ip])/rule.base); wrong[ip] > limit && !forgotten[ip] {
				t.Fatalf("op %d: %s had %d wrong passphrases checked in %v, want at most %d", i, ip, wrong[ip], now.Sub(since[ip]), limit)
			}
			if len(th.perIP) > maxTracked {
				t.Fatalf("op %d: %d addresses tracked, cap %d", i, len(th.perIP), maxTracked)
			}
		}
	})
}
