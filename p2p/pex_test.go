package p2p

import (
	"errors"
	"net"
	"slices"
	"strconv"
	"testing"
	"time"
)

const topicEcho Topic = 9

// echoHost starts a host whose handler of topicEcho sends the payload
// back at low priority: behind anything the host queued for that peer
// before, so an echo proves earlier answers have been sent.
func echoHost(t *testing.T, cfg Config) *Host {
	t.Helper()
	cfg.Key, cfg.Chain, cfg.ListenAddr, cfg.Logf = newKey(t), testChain, "127.0.0.1:0", t.Logf
	h, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h.Handle(topicEcho, TopicConfig{Priority: Low}, func(from ID, p []byte) error {
		h.Send(from, topicEcho, p)
		return nil
	})
	if err := h.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	return h
}

// untilEcho reads frames from sc until the echo of payload, returning
// the peer lists it received on the way and whether it was asked for
// peers.
func untilEcho(t *testing.T, sc *secureConn, payload string) (lists [][]PeerAddr, asked bool) {
	t.Helper()
	sc.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		f, err := sc.readFrame()
		if err != nil {
			t.Fatalf("waiting for the echo: %v", err)
		}
		m, err := decodeMessage(f)
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case m.kind == kindPeers:
			lists = append(lists, m.peers)
		case m.kind == kindGetPeers:
			asked = true
		case m.kind == kindMsg && m.topic == topicEcho && string(m.payload) == payload:
			return lists, asked
		}
	}
}

func ids(addrs []PeerAddr) []ID {
	var out []ID
	for _, a := range addrs {
		out = append(out, a.ID)
	}
	return out
}

// With peer exchange off a host neither asks for addresses, nor answers
// when asked, nor keeps or dials the addresses it is sent.
func TestPeerExchangeOff(t *testing.T) {
	for _, tc := range []struct {
		name string
		off  bool
	}{{"on", false}, {"off", true}} {
		t.Run(tc.name, func(t *testing.T) {
			other := echoHost(t, Config{}) // a listening node the host could give out or dial
			h := echoHost(t, Config{NoPeerExchange: tc.off, StaticPeers: []PeerAddr{addrOf(other)}})
			waitFor(t, "static peer", connected(h, other))
			key := newKey(t)
			sc := rawPeer(t, h, key)
			waitFor(t, "raw peer registered", func() bool { return hasPeer(h, IDOf(key)) })

			// The raw peer asks for addresses and offers one, then waits
			// for an echo: the host has handled both by then.
			stranger := echoHost(t, Config{})
			for _, f := range [][]byte{{kindGetPeers}, encodePeers([]PeerAddr{addrOf(stranger)}), encodeMsg(topicEcho, []byte("1"))} {
				if err := sc.writeFrame(f); err != nil {
					t.Fatal(err)
				}
			}
			lists, asked := untilEcho(t, sc, "1")
			// A second round trip: the host asks a new peer right after
			// registering it, so its question, if any, is out by now.
			if err := sc.writeFrame(encodeMsg(topicEcho, []byte("2"))); err != nil {
				t.Fatal(err)
			}
			more, askedLate := untilEcho(t, sc, "2")
			lists, asked = append(lists, more...), asked || askedLate
			if asked == tc.off {
				t.Errorf("host asked the new peer for addresses: %v, want %v", asked, !tc.off)
			}
			answered := len(lists) > 0 && slices.Contains(ids(lists[0]), other.ID())
			if answered == tc.off {
				t.Errorf("host answered with its peers: %v (lists %v), want %v", answered, lists, !tc.off)
			}
			known := slices.Contains(ids(h.KnownAddrs()), stranger.ID())
			if known == tc.off {
				t.Errorf("host kept the address it was sent: %v, want %v", known, !tc.off)
			}
			if tc.off {
				if n := len(h.KnownAddrs()); n != 0 {
					t.Errorf("host with peer exchange off keeps %d addresses to dial: %v", n, h.KnownAddrs())
				}
			} else {
				waitFor(t, "host dials the address it learned", connected(h, stranger))
			}
		})
	}
}

// A host never gives out the addresses of its private peers; the others
// it does.
func TestPrivatePeersNotShared(t *testing.T) {
	for _, tc := range []struct {
		name    string
		private func(v, w *Host) []ID
		want    func(v, w *Host) []ID
	}{
		{"none private", func(v, w *Host) []ID { return nil }, func(v, w *Host) []ID { return []ID{v.ID(), w.ID()} }},
		{"one private", func(v, w *Host) []ID { return []ID{v.ID()} }, func(v, w *Host) []ID { return []ID{w.ID()} }},
		{"both private", func(v, w *Host) []ID { return []ID{v.ID(), w.ID()} }, func(v, w *Host) []ID { return nil }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, w := echoHost(t, Config{}), echoHost(t, Config{})
			sentry := echoHost(t, Config{PrivatePeers: tc.private(v, w), StaticPeers: []PeerAddr{addrOf(v), addrOf(w)}})
			waitFor(t, "sentry connected", func() bool { return connected(sentry, v)() && connected(sentry, w)() })
			key := newKey(t)
			sc := rawPeer(t, sentry, key)
			waitFor(t, "raw peer registered", func() bool { return hasPeer(sentry, IDOf(key)) })
			for _, f := range [][]byte{{kindGetPeers}, encodeMsg(topicEcho, []byte("1"))} {
				if err := sc.writeFrame(f); err != nil {
					t.Fatal(err)
				}
			}
			lists, _ := untilEcho(t, sc, "1")
			if len(lists) != 1 {
				t.Fatalf("got %d peer lists, want 1", len(lists))
			}
			got, want := ids(lists[0]), tc.want(v, w)
			slices.SortFunc(got, func(a, b ID) int { return slices.Compare(a[:], b[:]) })
			slices.SortFunc(want, func(a, b ID) int { return slices.Compare(a[:], b[:]) })
			if !slices.Equal(got, want) {
				t.Fatalf("sentry shared %v, want %v", got, want)
			}
		})
	}
}

func TestBootnodesNeedPeerExchange(t *testing.T) {
	_, err := New(Config{Key: newKey(t), NoPeerExchange: true, Bootnodes: []PeerAddr{{Addr: "127.0.0.1:1"}}})
	if !errors.Is(err, ErrBootnodesNeedExchange) {
		t.Fatalf("got %v, want ErrBootnodesNeedExchange", err)
	}
}

// answerPeers plays a peer that waits for the host's request for
// addresses and answers it with addrs, then sends extra unasked-for, and
// returns once the host has handled all of it (an echo came back).
func answerPeers(t *testing.T, sc *secureConn, addrs, extra []PeerAddr) {
	t.Helper()
	sc.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		f, err := sc.readFrame()
		if err != nil {
			t.Fatalf("waiting for the host to ask for peers: %v", err)
		}
		if m, err := decodeMessage(f); err == nil && m.kind == kindGetPeers {
			break
		}
	}
	for _, f := range [][]byte{encodePeers(addrs), encodePeers(extra), encodeMsg(topicEcho, []byte("done"))} {
		if err := sc.writeFrame(f); err != nil {
			t.Fatal(err)
		}
	}
	untilEcho(t, sc, "done")
}

// addrsAt makes n addresses on a loopback IP nothing listens on.
func addrsAt(ip string, from, n int) []PeerAddr {
	var out []PeerAddr
	for i := range n {
		out = append(out, PeerAddr{Addr: net.JoinHostPort(ip, strconv.Itoa(from+i))})
	}
	return out
}

// Fresh keys from one IP cannot fill the address book: the addresses
// learned from an IP are capped however many keys it uses, unasked-for
// lists are ignored, and another IP has room of its own.
func TestPeerListsBoundedPerSource(t *testing.T) {
	h := echoHost(t, Config{MaxAddrsPerSource: 10})
	fromIP := func(ip string) int {
		n := 0
		for _, a := range h.KnownAddrs() {
			if hostOf(a.Addr) == ip {
				n++
			}
		}
		return n
	}
	// The first answer is taken, the unasked-for list after it is not.
	answerPeers(t, rawPeerFrom(t, h, newKey(t), "127.0.0.7"), addrsAt("127.0.9.1", 1000, 4), addrsAt("127.0.9.2", 1000, 4))
	if n, m := fromIP("127.0.9.1"), fromIP("127.0.9.2"); n != 4 || m != 0 {
		t.Fatalf("learned %d of the answer (want 4) and %d unasked-for (want 0)", n, m)
	}
	for i := range 3 { // fresh keys from the same IP, full lists each
		answerPeers(t, rawPeerFrom(t, h, newKey(t), "127.0.0.7"), addrsAt("127.0.9.3", 1000+100*i, maxPeersShared), nil)
	}
	if n := fromIP("127.0.9.1") + fromIP("127.0.9.3"); n != 10 {
		t.Fatalf("one source IP put %d addresses in the book, want the cap of 10", n)
	}
	answerPeers(t, rawPeerFrom(t, h, newKey(t), "127.0.0.8"), addrsAt("127.0.9.4", 1000, maxPeersShared), nil)
	if n := fromIP("127.0.9.4"); n != 10 {
		t.Fatalf("a second source IP put %d addresses in the book, want 10", n)
	}
}

// The address book on a simulated clock: a learned address that keeps
// failing is retried ever later and then forgotten; learning it again
// does not bring its retry forward; a source whose addresses were dropped
// refills its room slowly.
func TestAddrBookBackoff(t *testing.T) {
	b := newAddrBook(4, 10*time.Second)
	now := time.Unix(1e9, 0)
	a := PeerAddr{Addr: "10.0.0.1:26656"}
	if !b.learn(a, "10.9.9.9", now) {
		t.Fatal("first address refused")
	}
	c := b.addrs[a.Addr]
	var dials []time.Duration
	start := now
	for step := 0; step < 100000 && b.addrs[a.Addr] != nil; step++ {
		now = now.Add(100 * time.Millisecond)
		if now.Before(c.next) {
			continue
		}
		dials = append(dials, now.Sub(start))
		b.dialed(c, false, now)
		if b.addrs[a.Addr] != nil && b.learn(a, "10.9.9.9", now) { // offered again right away
			t.Fatal("an address in the book learned twice")
		}
	}
	if len(dials) != maxAddrFailures {
		t.Fatalf("dialed %d times before forgetting, want %d: %v", len(dials), maxAddrFailures, dials)
	}
	in15s := 0
	for i, d := range dials {
		if d <= 15*time.Second {
			in15s++
		}
		if i >= 2 && dials[i]-dials[i-1] < dials[i-1]-dials[i-2] {
			t.Fatalf("retries not spaced ever wider: %v", dials)
		}
	}
	if in15s > 4 {
		t.Fatalf("a failing address dialed %d times in 15s: %v", in15s, dials)
	}
	if q := b.sources["10.9.9.9"]; q.held != 0 {
		t.Fatalf("forgotten address still charged to its source: %d", q.held)
	}
	// Minutes went by: the source has its four tokens back. Four
	// addresses go in at once, no more.
	learnN := func(from, n int) (added int) {
		for i := range n {
			if b.learn(PeerAddr{Addr: net.JoinHostPort("10.0.0.2", strconv.Itoa(from+i))}, "10.9.9.9", now) {
				added++
			}
		}
		return added
	}
	if added := learnN(0, 10); added != 4 {
		t.Fatalf("source added %d addresses at once, want its cap of 4", added)
	}
	// Its addresses dropped, the source may not refill the book at once:
	// one new address per refill interval.
	for _, c := range b.addrs {
		b.remove(c)
	}
	if added := learnN(100, 10); added != 0 {
		t.Fatalf("source with no tokens added %d addresses", added)
	}
	now = now.Add(10 * time.Second)
	if added := learnN(200, 10); added != 1 {
		t.Fatalf("source added %d addresses one refill interval later, want 1", added)
	}
}

// FuzzAddrBook drives the address book with learns, dial outcomes and
// time from a few sources, checking its accounting: each source is
// charged exactly the addresses it has in the book, never more than its
// cap, and the book never passes its size.
func FuzzAddrBook(f *testing.F) {
	f.Add([]byte{0, 1, 2, 0x40, 0x81, 0xc0, 3, 4})
	f.Add([]byte{0x41, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41, 0x41})
	f.Fuzz(func(t *testing.T, ops []byte) {
		b := newAddrBook(3, time.Second)
		now := time.Unix(1e9, 0)
		for i, op := range ops {
			src := "10.0.0." + strconv.Itoa(int(op&3))
			addr := net.JoinHostPort("10.1.0.1", strconv.Itoa(int(op>>2&15)))
			switch op >> 6 {
			case 0, 1:
				b.learn(PeerAddr{Addr: addr}, src, now)
			case 2:
				if c := b.addrs[addr]; c != nil {
					b.dialed(c, i%3 == 0, now)
				}
			case 3:
				now = now.Add(time.Duration(op&63) * 100 * time.Millisecond)
				b.sweep(now)
			}
			held := map[string]int{}
			for _, c := range b.addrs {
				held[c.source]++
			}
			for s, q := range b.sources {
				if q.held != held[s] || q.held > b.perSource || q.tokens > float64(b.perSource) {
					t.Fatalf("source %s charged %d (tokens %v), holds %d", s, q.held, q.tokens, held[s])
				}
			}
			for s, n := range held {
				if b.sources[s] == nil && n > 0 {
					t.Fatalf("source %s holds %d but is not accounted", s, n)
				}
			}
		}
	})
}
