package p2p

import (
	"bytes"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

var testChain = Chain{ChainID: 8119, Genesis: [32]byte{1, 2, 3}}

const (
	topicVote Topic = 1
	topicTx   Topic = 2
)

func newKey(t testing.TB) *secp256k1.PrivateKey {
	k, err := secp256k1.GeneratePrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

type inbox struct {
	mu   sync.Mutex
	msgs map[string]int
	ch   chan string
}

func newInbox() *inbox { return &inbox{msgs: make(map[string]int), ch: make(chan string, 100)} }

func (b *inbox) handler(from ID, p []byte) error {
	if bytes.Equal(p, []byte("bad")) {
		return errors.New("bad payload")
	}
	b.mu.Lock()
	b.msgs[string(p)]++
	b.mu.Unlock()
	b.ch <- string(p)
	return nil
}

func (b *inbox) count(s string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.msgs[s]
}

func (b *inbox) want(t *testing.T, s string) {
	t.Helper()
	select {
	case got := <-b.ch:
		if got != s {
			t.Fatalf("got %q, want %q", got, s)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("no message %q", s)
	}
}

func startHost(t *testing.T, cfg Config) (*Host, *inbox) {
	t.Helper()
	if cfg.Key == nil {
		cfg.Key = newKey(t)
	}
	if cfg.Chain.ChainID == 0 {
		cfg.Chain.ChainID, cfg.Chain.Genesis = testChain.ChainID, testChain.Genesis
	}
	cfg.ListenAddr = "127.0.0.1:0"
	if cfg.Logf == nil {
		cfg.Logf = t.Logf
	}
	h, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	in := newInbox()
	h.Handle(topicVote, TopicConfig{Priority: High}, in.handler)
	h.Handle(topicTx, TopicConfig{Priority: Low, Gossip: true}, in.handler)
	if err := h.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	return h, in
}

func addrOf(h *Host) PeerAddr { return PeerAddr{ID: h.ID(), Addr: h.Addr().String()} }

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func connected(a, b *Host) func() bool {
	return func() bool {
		return hasPeer(a, b.ID()) && hasPeer(b, a.ID())
	}
}

func hasPeer(h *Host, id ID) bool {
	for _, p := range h.Peers() {
		if p.ID == id {
			return true
		}
	}
	return false
}

func TestSendAndBroadcast(t *testing.T) {
	b, inB := startHost(t, Config{})
	a, inA := startHost(t, Config{StaticPeers: []PeerAddr{addrOf(b)}})
	waitFor(t, "connection", connected(a, b))
	if !a.Send(b.ID(), topicVote, []byte("v1")) {
		t.Fatal("send failed")
	}
	inB.want(t, "v1")
	b.Broadcast(topicVote, []byte("v2"))
	inA.want(t, "v2")
	if got := a.PeerCount(); got != 1 {
		t.Fatalf("peer count %d", got)
	}
}

func TestBothDialEachOther(t *testing.T) {
	ka, kb := newKey(t), newKey(t)
	// Listen first so each knows the other's address.
	la, _ := net.Listen("tcp", "127.0.0.1:0")
	lb, _ := net.Listen("tcp", "127.0.0.1:0")
	aAddr, bAddr := la.Addr().String(), lb.Addr().String()
	la.Close()
	lb.Close()
	mk := func(k *secp256k1.PrivateKey, listen string, peer PeerAddr) *Host {
		h, err := New(Config{Key: k, Chain: testChain, ListenAddr: listen, StaticPeers: []PeerAddr{peer}, Logf: t.Logf})
		if err != nil {
			t.Fatal(err)
		}
		h.Handle(topicVote, TopicConfig{Priority: High}, func(ID, []byte) error { return nil })
		if err := h.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(h.Close)
		return h
	}
	a := mk(ka, aAddr, PeerAddr{ID: IDOf(kb), Addr: bAddr})
	b := mk(kb, bAddr, PeerAddr{ID: IDOf(ka), Addr: aAddr})
	waitFor(t, "connection", connected(a, b))
	// The connection both kept stays up.
	time.Sleep(500 * time.Millisecond)
	if !connected(a, b)() {
		t.Fatal("connection lost after settling")
	}
}

func TestGossipDeliveredOnce(t *testing.T) {
	a, inA := startHost(t, Config{})
	b, inB := startHost(t, Config{StaticPeers: []PeerAddr{addrOf(a)}})
	c, inC := startHost(t, Config{StaticPeers: []PeerAddr{addrOf(a), addrOf(b)}})
	waitFor(t, "mesh", func() bool { return connected(a, b)() && connected(a, c)() && connected(b, c)() })
	a.Broadcast(topicTx, []byte("tx1"))
	inB.want(t, "tx1")
	inC.want(t, "tx1")
	// Relaying, as a node does with a transaction its pool accepts.
	b.Broadcast(topicTx, []byte("tx1"))
	c.Broadcast(topicTx, []byte("tx1"))
	a.Broadcast(topicTx, []byte("tx2"))
	inB.want(t, "tx2")
	inC.want(t, "tx2")
	if inA.count("tx1") != 0 || inB.count("tx1") != 1 || inC.count("tx1") != 1 {
		t.Fatalf("tx1 delivered %d/%d/%d times, want 0/1/1", inA.count("tx1"), inB.count("tx1"), inC.count("tx1"))
	}
	// b learned that a and c have tx1: nothing is queued to them again.
	for _, p := range []ID{a.ID(), c.ID()} {
		b.mu.Lock()
		pp := b.peers[p]
		b.mu.Unlock()
		if !pp.known.has(gossipHash(topicTx, []byte("tx1"))) {
			t.Fatalf("b does not know %s has tx1", p)
		}
	}
}

func TestChainMismatchRefused(t *testing.T) {
	b, _ := startHost(t, Config{})
	other := Chain{ChainID: 8118, Genesis: testChain.Genesis}
	a, _ := startHost(t, Config{Chain: other, StaticPeers: []PeerAddr{addrOf(b)}})
	time.Sleep(300 * time.Millisecond)
	if a.PeerCount() != 0 || b.PeerCount() != 0 {
		t.Fatal("hosts of different chains connected")
	}
	for _, tc := range []struct {
		chain Chain
		err   error
	}{
		{Chain{ChainID: 1, Genesis: testChain.Genesis}, ErrChainMismatch},
		{Chain{ChainID: testChain.ChainID, Genesis: [32]byte{9}}, ErrGenesisMismatch},
	} {
		_, err := pipeHandshake(t, testChain, tc.chain)
		if !errors.Is(err, tc.err) {
			t.Errorf("%+v: err %v, want %v", tc.chain, err, tc.err)
		}
	}
}

// pipeHandshake runs both ends of a handshake and returns the first end's
// result.
func pipeHandshake(t *testing.T, x, y Chain) (ID, error) {
	c1, c2 := net.Pipe()
	defer c1.Close()
	defer c2.Close()
	kx, ky := newKey(t), newKey(t)
	go func() {
		handshake(c2, ky, y, 0)
		c2.Close()
	}()
	c1.SetDeadline(time.Now().Add(5 * time.Second))
	_, id, _, err := handshake(c1, kx, x, 0)
	if err == nil && id != IDOf(ky) {
		t.Fatalf("handshake proved %s, want %s", id, IDOf(ky))
	}
	return id, err
}

func TestHandshakeProvesKeys(t *testing.T) {
	if _, err := pipeHandshake(t, testChain, testChain); err != nil {
		t.Fatal(err)
	}
}

func TestWrongPeerRefused(t *testing.T) {
	b, _ := startHost(t, Config{})
	h, err := New(Config{Key: newKey(t), Chain: testChain, Logf: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	_, err = h.dial(PeerAddr{ID: ID{7}, Addr: b.Addr().String()})
	if !errors.Is(err, ErrWrongPeer) {
		t.Fatalf("err %v, want ErrWrongPeer", err)
	}
}

func TestGarbageBeforeHandshakeDropped(t *testing.T) {
	b, inB := startHost(t, Config{HandshakeTimeout: 500 * time.Millisecond})
	for _, garbage := range [][]byte{
		bytes.Repeat([]byte{0xff}, 200),
		{},
		bytes.Repeat([]byte{0}, 32), // a low-order X25519 point
	} {
		c, err := net.Dial("tcp", b.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		c.Write(garbage)
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		// The host answers with its ephemeral key, then hangs up.
		_, err = io.Copy(io.Discard, c)
		c.Close()
		if ne, ok := err.(net.Error); ok && ne.Timeout() {
			t.Fatalf("garbage %x: connection not closed by the host", garbage)
		}
	}
	// The host still serves honest peers.
	a, _ := startHost(t, Config{StaticPeers: []PeerAddr{addrOf(b)}})
	waitFor(t, "connection", connected(a, b))
	a.Send(b.ID(), topicVote, []byte("after"))
	inB.want(t, "after")
}

// rawPeer completes a real handshake with h, then lets the test write
// whatever it likes.
func rawPeer(t *testing.T, h *Host, key *secp256k1.PrivateKey) *secureConn {
	return rawPeerFrom(t, h, key, "127.0.0.1")
}

// rawPeerFrom is rawPeer connecting from the loopback address ip.
func rawPeerFrom(t *testing.T, h *Host, key *secp256k1.PrivateKey, ip string) *secureConn {
	t.Helper()
	c := dialFrom(t, h, ip)
	c.SetDeadline(time.Now().Add(5 * time.Second))
	sc, _, _, err := handshake(c, key, testChain, 0)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestInvalidDataBans(t *testing.T) {
	for name, frame := range map[string][]byte{
		"unknown kind":    {99},
		"ping with tail":  {kindPing, 1},
		"bad peers":       {kindPeers, 200},
		"short have":      {kindHave, 2, 1},
		"empty want":      {kindWant, 0},
		"handler refuses": encodeMsg(topicVote, []byte("bad")),
	} {
		t.Run(name, func(t *testing.T) {
			h, _ := startHost(t, Config{})
			key := newKey(t)
			sc := rawPeer(t, h, key)
			waitFor(t, "peer registered", func() bool { return hasPeer(h, IDOf(key)) })
			if err := sc.writeFrame(frame); err != nil {
				t.Fatal(err)
			}
			waitFor(t, "peer dropped", func() bool { return !hasPeer(h, IDOf(key)) })
			// Banned: a new connection with the same key is refused.
			sc2 := rawPeer(t, h, key)
			sc2.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
			for {
				if _, err := sc2.readFrame(); err != nil {
					break
				}
			}
			if hasPeer(h, IDOf(key)) {
				t.Fatal("banned peer accepted again")
			}
		})
	}
}

func TestOversizedFrameDropped(t *testing.T) {
	h, _ := startHost(t, Config{})
	key := newKey(t)
	sc := rawPeer(t, h, key)
	waitFor(t, "peer registered", func() bool { return hasPeer(h, IDOf(key)) })
	sc.conn.Write([]byte{0xff, 0xff, 0xff, 0xff})
	waitFor(t, "peer dropped", func() bool { return !hasPeer(h, IDOf(key)) })
}

func TestSilentPeerTimesOut(t *testing.T) {
	h, _ := startHost(t, Config{Keepalive: 100 * time.Millisecond})
	key := newKey(t)
	rawPeer(t, h, key) // never reads nor answers pings
	waitFor(t, "peer registered", func() bool { return hasPeer(h, IDOf(key)) })
	waitFor(t, "silent peer dropped", func() bool { return !hasPeer(h, IDOf(key)) })
}

func TestKeepaliveHoldsQuietLink(t *testing.T) {
	b, _ := startHost(t, Config{Keepalive: 50 * time.Millisecond})
	a, _ := startHost(t, Config{Keepalive: 50 * time.Millisecond, StaticPeers: []PeerAddr{addrOf(b)}})
	waitFor(t, "connection", connected(a, b))
	time.Sleep(500 * time.Millisecond) // ten keepalive intervals with no traffic
	if !connected(a, b)() {
		t.Fatal("quiet link dropped despite pings")
	}
}

func TestMaxPeers(t *testing.T) {
	b, _ := startHost(t, Config{MaxPeers: 1})
	a, _ := startHost(t, Config{StaticPeers: []PeerAddr{addrOf(b)}})
	waitFor(t, "first peer", connected(a, b))
	c, _ := startHost(t, Config{StaticPeers: []PeerAddr{addrOf(b)}})
	time.Sleep(500 * time.Millisecond)
	if hasPeer(b, c.ID()) || b.PeerCount() != 1 {
		t.Fatalf("host with MaxPeers 1 has %d peers", b.PeerCount())
	}
}

func TestPeerExchange(t *testing.T) {
	hub, _ := startHost(t, Config{})
	a, _ := startHost(t, Config{StaticPeers: []PeerAddr{addrOf(hub)}})
	waitFor(t, "a at hub", connected(a, hub))
	c, _ := startHost(t, Config{Bootnodes: []PeerAddr{{Addr: hub.Addr().String()}}})
	waitFor(t, "c found a through the hub", connected(a, c))
}

func TestRedialAfterRestart(t *testing.T) {
	b, _ := startHost(t, Config{})
	a, _ := startHost(t, Config{StaticPeers: []PeerAddr{addrOf(b)}})
	waitFor(t, "connection", connected(a, b))
	b2 := restart(t, b)
	waitFor(t, "redial", connected(a, b2))
}

func TestHighPriorityFirst(t *testing.T) {
	c1, c2 := net.Pipe()
	defer c1.Close()
	done := make(chan struct{})
	var a, b *secureConn
	go func() { defer close(done); b, _, _, _ = handshake(c2, newKey(t), testChain, 0) }()
	a, _, _, err := handshake(c1, newKey(t), testChain, 0)
	<-done
	if err != nil || b == nil {
		t.Fatal(err)
	}
	p := newPeer(ID{}, a, false, ID{}, PeerAddr{})
	for i := range 10 {
		p.send(Low, []byte{kindMsg, byte(topicTx), byte(i)})
	}
	for i := range 10 {
		p.send(High, []byte{kindMsg, byte(topicVote), byte(i)})
	}
	go p.writeLoop(time.Minute)
	defer p.close(nil)
	for i := range 20 {
		f, err := b.readFrame()
		if err != nil {
			t.Fatal(err)
		}
		want := topicVote
		if i >= 10 {
			want = topicTx
		}
		if Topic(f[1]) != want {
			t.Fatalf("frame %d on topic %d, want %d", i, f[1], want)
		}
	}
}

func TestQueueBounded(t *testing.T) {
	c1, _ := net.Pipe()
	p := newPeer(ID{}, &secureConn{conn: c1}, false, ID{}, PeerAddr{})
	var ok atomic.Int64
	for range queueLen + 10 {
		if p.send(Low, []byte{kindPing}) {
			ok.Add(1)
		}
	}
	if ok.Load() != queueLen || p.dropped.Load() != 10 {
		t.Fatalf("queued %d dropped %d", ok.Load(), p.dropped.Load())
	}
}

func TestParsePeerAddr(t *testing.T) {
	id := ID{0xab}
	for _, tc := range []struct {
		in   string
		want PeerAddr
		ok   bool
	}{
		{"127.0.0.1:26656", PeerAddr{Addr: "127.0.0.1:26656"}, true},
		{id.String() + "@10.0.0.1:1", PeerAddr{ID: id, Addr: "10.0.0.1:1"}, true},
		{"0x" + id.String() + "@[::1]:1", PeerAddr{ID: id, Addr: "[::1]:1"}, true},
		{"nohost", PeerAddr{}, false},
		{"zz@1.2.3.4:5", PeerAddr{}, false},
		{":5", PeerAddr{}, false},
	} {
		got, err := ParsePeerAddr(tc.in)
		if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
			t.Errorf("%q: got %+v, %v", tc.in, got, err)
		}
	}
}

// TestFailedBroadcastNotMarkedKnown: a gossip frame that finds the peer's
// queue full never left, so the peer is not marked as having it and a
// later broadcast sends it.
func TestFailedBroadcastNotMarkedKnown(t *testing.T) {
	h, err := New(Config{Key: newKey(t), Chain: testChain})
	if err != nil {
		t.Fatal(err)
	}
	h.Handle(topicTx, TopicConfig{Priority: Low, Gossip: true}, func(ID, []byte) error { return nil })
	c1, c2 := net.Pipe()
	defer c1.Close()
	defer c2.Close()
	p := newPeer(ID{7}, &secureConn{conn: c1}, false, ID{}, PeerAddr{})
	for range queueLen {
		p.low <- nil // a full queue, as behind a slow link
	}
	h.peers[p.id] = p
	h.Broadcast(topicTx, []byte("tx"))
	hash := gossipHash(topicTx, []byte("tx"))
	if p.known.has(hash) {
		t.Fatal("a frame that was never queued marked the peer as having it")
	}
	<-p.low
	h.Broadcast(topicTx, []byte("tx"))
	if !p.known.has(hash) {
		t.Fatal("the second broadcast did not reach the peer")
	}
}
