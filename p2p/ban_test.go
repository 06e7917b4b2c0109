package p2p

import (
	"testing"
	"time"
)

// offend connects a fresh key from ip, sends a frame no honest peer
// sends, and waits until the host has dropped it.
func offend(t *testing.T, h *Host, ip string) {
	t.Helper()
	key := newKey(t)
	sc := rawPeerFrom(t, h, key, ip)
	waitFor(t, "offender registered", func() bool { return hasPeer(h, IDOf(key)) })
	if err := sc.writeFrame([]byte{99}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "offender dropped", func() bool { return !hasPeer(h, IDOf(key)) })
}

// refusedAfterHandshake reports whether a fresh key from ip completes the
// handshake but is then dropped, not registered.
func refusedAfterHandshake(t *testing.T, h *Host, ip string) bool {
	t.Helper()
	key := newKey(t)
	sc := rawPeerFrom(t, h, key, ip)
	sc.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		if _, err := sc.readFrame(); err != nil {
			break
		}
	}
	return !hasPeer(h, IDOf(key))
}

// A second banned key from one IP bans the IP: a third fresh key from it
// is closed before any read, while other IPs are served.
func TestBanAppliesPerIP(t *testing.T) {
	h, _ := startHost(t, Config{})
	offend(t, h, "127.0.0.5")
	offend(t, h, "127.0.0.5") // one offence did not ban the IP: a fresh key got in
	if held(t, dialFrom(t, h, "127.0.0.5")) {
		t.Fatal("a fresh key from an IP with two banned keys was let in")
	}
	key := newKey(t)
	rawPeerFrom(t, h, key, "127.0.0.6")
	waitFor(t, "peer from another IP registered", func() bool { return hasPeer(h, IDOf(key)) })
}

// IP bans spare the operator's own peers sharing the banned IP, as every
// node of a loopback network does: static peers and bootnodes are still
// dialed, a private peer still connects, but an unknown fresh key from
// that IP is refused after its handshake.
func TestIPBanSparesConfiguredPeers(t *testing.T) {
	kf := newKey(t)
	static, _ := startHost(t, Config{})
	boot, _ := startHost(t, Config{})
	h, in := startHost(t, Config{StaticPeers: []PeerAddr{addrOf(static)}, PrivatePeers: []ID{IDOf(kf)},
		Bootnodes: []PeerAddr{{Addr: boot.Addr().String()}}})
	waitFor(t, "static peer and bootnode connected", func() bool { return connected(h, static)() && connected(h, boot)() })
	offend(t, h, "127.0.0.1")
	offend(t, h, "127.0.0.1")
	if !refusedAfterHandshake(t, h, "127.0.0.1") {
		t.Fatal("a fresh key from a banned IP was registered")
	}
	friend, _ := startHost(t, Config{Key: kf, StaticPeers: []PeerAddr{addrOf(h)}})
	waitFor(t, "private peer from the banned IP connected", connected(friend, h))
	friend.Send(h.ID(), topicVote, []byte("friend"))
	in.want(t, "friend")
	for _, peer := range []*Host{static, boot} {
		again := restart(t, peer)
		waitFor(t, "configured peer at the banned IP redialed", connected(h, again))
	}
}

// restart closes h and starts a host with its key at its address.
func restart(t *testing.T, h *Host) *Host {
	t.Helper()
	addr := addrOf(h)
	h.Close()
	again, err := New(Config{Key: h.cfg.Key, Chain: testChain, ListenAddr: addr.Addr, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	if err := again.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(again.Close)
	return again
}

func TestIPKey(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"127.0.0.1", "127.0.0.1"},
		{"::ffff:10.0.0.1", "10.0.0.1"},
		{"2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64"},
		{"2001:db8:1:2:ffff::1", "2001:db8:1:2::/64"},
		{"::1", "::/64"},
		{"not-an-ip", "not-an-ip"},
	} {
		if got := ipKey(tc.in); got != tc.want {
			t.Errorf("ipKey(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzIPBans replays offences from a few IPs and keys over simulated
// time against a model: an IP is banned exactly when IPBanAfter distinct
// keys offended from it within IPBanDuration, and stays banned for
// IPBanDuration.
func FuzzIPBans(f *testing.F) {
	f.Add([]byte{0x00, 0x01, 0x40, 0x05, 0xff, 0x00})
	f.Add([]byte{0x00, 0x00, 0x00, 0xc3, 0x01})
	f.Fuzz(func(t *testing.T, ops []byte) {
		h, err := New(Config{Key: fuzzLocalKey, IPBanAfter: 2, IPBanDuration: time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		type offence struct {
			key ID
			at  time.Time
		}
		recent := map[string][]offence{}
		until := map[string]time.Time{}
		now := time.Unix(1e9, 0)
		for _, op := range ops {
			if op&0xc0 == 0xc0 { // time passes
				now = now.Add(time.Duration(op&0x3f) * 5 * time.Second)
				continue
			}
			ip := "10.0.0." + string('0'+rune(op&3))
			key := ID{op >> 2 & 7}
			h.mu.Lock()
			if h.ipBanned(ip, now) {
				h.mu.Unlock()
				continue // a banned IP's connections never get as far as offending
			}
			got := h.offence(ipKey(ip), key, now)
			h.mu.Unlock()
			kept := []offence{{key, now}}
			distinct := map[ID]bool{key: true}
			for _, o := range recent[ip] {
				if now.Sub(o.at) < time.Minute && o.key != key {
					kept = append(kept, o)
					distinct[o.key] = true
				}
			}
			recent[ip] = kept
			want := len(distinct) >= 2
			if (got != "") != want {
				t.Fatalf("offence of %x from %s with %d distinct keys recent: banned %q", key[0], ip, len(distinct), got)
			}
			if want {
				delete(recent, ip)
				until[ip] = now.Add(time.Minute)
			}
		}
		h.mu.Lock()
		defer h.mu.Unlock()
		for _, ip := range []string{"10.0.0.0", "10.0.0.1", "10.0.0.2", "10.0.0.3"} {
			u, ok := until[ip]
			if want := ok && !now.After(u); h.ipBanned(ip, now) != want {
				t.Fatalf("%s banned %v, want %v", ip, !want, want)
			}
		}
	})
}
