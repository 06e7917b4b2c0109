package p2p

import (
	"errors"
	"slices"
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
