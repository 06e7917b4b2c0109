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
// node of a loopback network does: a static peer is still dialed, a
// private peer still connects, but an unknown fresh key from that IP is
// refused after its handshake.
func TestIPBanSparesConfiguredPeers(t *testing.T) {
	kf := newKey(t)
	static, _ := startHost(t, Config{})
	staticAddr := addrOf(static)
	h, in := startHost(t, Config{StaticPeers: []PeerAddr{staticAddr}, PrivatePeers: []ID{IDOf(kf)}})
	waitFor(t, "static peer connected", connected(h, static))
	offend(t, h, "127.0.0.1")
	offend(t, h, "127.0.0.1")
	if !refusedAfterHandshake(t, h, "127.0.0.1") {
		t.Fatal("a fresh key from a banned IP was registered")
	}
	friend, _ := startHost(t, Config{Key: kf, StaticPeers: []PeerAddr{addrOf(h)}})
	waitFor(t, "private peer from the banned IP connected", connected(friend, h))
	friend.Send(h.ID(), topicVote, []byte("friend"))
	in.want(t, "friend")
	static.Close()
	waitFor(t, "static peer gone", func() bool { return !hasPeer(h, staticAddr.ID) })
	restarted, err := New(Config{Key: static.cfg.Key, Chain: testChain, ListenAddr: staticAddr.Addr, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	if err := restarted.Start(); err != nil {
		t.Fatal(err)
	}
	defer restarted.Close()
	waitFor(t, "static peer at the banned IP redialed", connected(h, restarted))
}
