package p2p

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
	"time"
)

// relayingHost starts a host whose gossip handler passes every message
// on, as a node does with votes and transactions.
func relayingHost(t *testing.T, cfg Config) (*Host, *inbox) {
	t.Helper()
	return relayingTopic(t, cfg, TopicConfig{Priority: Low, Gossip: true})
}

func relayingTopic(t *testing.T, cfg Config, tc TopicConfig) (*Host, *inbox) {
	t.Helper()
	h, _ := startHost(t, cfg)
	in := &inbox{msgs: make(map[string]int), ch: make(chan string, 4096)}
	h.Handle(topicTx, tc, func(from ID, p []byte) error {
		if err := in.handler(from, p); err != nil {
			return err
		}
		h.Broadcast(topicTx, p)
		return nil
	})
	return h, in
}

// A peer that connects to a relay after a message went through it hears
// of the relay's recent messages on a catch-up topic (TopicConfig.Recent),
// and of nothing on another. The author's retransmission would not help:
// it skips the relay, which has the message already. This is a validator
// joining its sentry a moment after the others voted: without catch-up
// the round waits for ever for votes that were sent once.
func TestCatchUpOnConnect(t *testing.T) {
	for _, recent := range []int{0, 8} {
		t.Run(fmt.Sprintf("recent=%d", recent), func(t *testing.T) {
			tc := TopicConfig{Priority: High, Gossip: true, Recent: recent}
			relay, inR := relayingTopic(t, Config{}, tc)
			a, _ := relayingTopic(t, Config{StaticPeers: []PeerAddr{addrOf(relay)}}, tc)
			waitFor(t, "a—relay", connected(a, relay))
			for i := range 10 { // more than the ring holds: the oldest are forgotten
				a.Broadcast(topicTx, []byte(fmt.Sprint("vote", i)))
				inR.want(t, fmt.Sprint("vote", i))
			}
			a.Broadcast(topicTx, []byte("vote9")) // a retransmission: the relay has it
			c, inC := relayingTopic(t, Config{StaticPeers: []PeerAddr{addrOf(relay)}}, tc)
			waitFor(t, "c—relay", connected(c, relay))
			if recent == 0 {
				select {
				case got := <-inC.ch:
					t.Fatalf("c got %q with no catch-up", got)
				case <-time.After(300 * time.Millisecond):
				}
				return
			}
			for i := 10 - recent; i < 10; i++ {
				inC.want(t, fmt.Sprint("vote", i))
			}
			if n := inC.count("vote0") + inC.count("vote1"); n != 0 {
				t.Fatalf("c got %d messages older than the ring", n)
			}
		})
	}
}

// In a line a—b—c, c gets a's message through b's announcement: b
// announces, c asks, b serves; nobody gets a copy twice.
func TestRelayByAnnouncement(t *testing.T) {
	a, _ := relayingHost(t, Config{})
	b, inB := relayingHost(t, Config{StaticPeers: []PeerAddr{addrOf(a)}})
	c, inC := relayingHost(t, Config{StaticPeers: []PeerAddr{addrOf(b)}, MaxPeers: 1})
	waitFor(t, "line", func() bool { return connected(a, b)() && connected(b, c)() })
	a.Broadcast(topicTx, []byte("tx1"))
	inB.want(t, "tx1")
	inC.want(t, "tx1")
	waitFor(t, "counters", func() bool { return b.Stats().Served == 1 })
	sa, sb, sc := a.Stats(), b.Stats(), c.Stats()
	if sa.Pushed != 1 || sb.Pushed != 0 || sb.Announced != 1 || sc.Wanted != 1 || sb.Served != 1 {
		t.Fatalf("a %+v, b %+v, c %+v: want a push by a, an announcement by b, one want by c served by b", sa, sb, sc)
	}
	if sa.Duplicates+sb.Duplicates+sc.Duplicates != 0 {
		t.Fatalf("duplicates: %d %d %d", sa.Duplicates, sb.Duplicates, sc.Duplicates)
	}
	if sa.Wanted != 0 {
		t.Fatal("a asked for its own message back")
	}
}

// In a full mesh where every node relays, each message reaches each node
// once: the relays only announce it to peers that got it from its author.
// (Pushing relays would send every node two extra copies of each message
// here.)
func TestFullMeshNoDuplicates(t *testing.T) {
	var hosts []*Host
	var inboxes []*inbox
	for range 4 {
		var peers []PeerAddr
		for _, h := range hosts {
			peers = append(peers, addrOf(h))
		}
		h, in := relayingHost(t, Config{StaticPeers: peers})
		hosts, inboxes = append(hosts, h), append(inboxes, in)
	}
	waitFor(t, "mesh", func() bool {
		for _, h := range hosts {
			if h.PeerCount() != 3 {
				return false
			}
		}
		return true
	})
	const n = 200
	for i := range n {
		hosts[i%4].Broadcast(topicTx, []byte(fmt.Sprintf("tx%d", i)))
		time.Sleep(time.Millisecond)
	}
	waitFor(t, "delivery", func() bool {
		for _, in := range inboxes {
			in.mu.Lock()
			got := len(in.msgs)
			in.mu.Unlock()
			if got != n-n/4 { // all but the ones the host sent itself
				return false
			}
		}
		return true
	})
	var dup, pushed, announced uint64
	for _, h := range hosts {
		s := h.Stats()
		dup += s.Duplicates
		pushed += s.Pushed
		announced += s.Announced
	}
	// Each author pushes to its 3 peers (a connection replaced meanwhile
	// may miss a push and get the message by announcement); relays push
	// nothing.
	if pushed > 3*n || pushed < 3*n-n/20 {
		t.Fatalf("%d messages pushed, want about %d (each author to its 3 peers)", pushed, 3*n)
	}
	t.Logf("%d messages, %d pushes, %d announcements, %d duplicates", n, pushed, announced, dup)
	// An announcement can cross its message in flight and draw a second
	// copy; anything beyond a few means relays send copies.
	if dup > n/20 {
		t.Fatalf("%d duplicate copies received for %d messages", dup, n)
	}
	for k, in := range inboxes {
		in.mu.Lock()
		for m, c := range in.msgs {
			if c != 1 {
				t.Errorf("host %d handled %s %d times", k, m, c)
			}
		}
		in.mu.Unlock()
	}
}

// A WANT for a message the host never had is ignored; a HAVE of a topic
// the host does not take, or of a message it has, draws no WANT.
func TestAnnouncementEdges(t *testing.T) {
	a, _ := startHost(t, Config{})
	key := newKey(t)
	c := rawPeer(t, a, key)
	waitFor(t, "peer registered", func() bool { return hasPeer(a, IDOf(key)) })
	if err := c.writeFrame(encodeWant([][32]byte{{9}})); err != nil {
		t.Fatal(err)
	}
	a.Broadcast(topicTx, []byte("mine"))
	mine := gossipHash(topicTx, []byte("mine"))
	if err := c.writeFrame(encodeHave([]announced{{topic: 99, hash: [32]byte{1}}, {topicTx, mine}})); err != nil {
		t.Fatal(err)
	}
	if err := c.writeFrame(encodeHave([]announced{{topicTx, [32]byte{2}}})); err != nil {
		t.Fatal(err)
	}
	// The first frame a sends after its push is the WANT of hash 2 alone.
	c.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		f, err := c.readFrame()
		if err != nil {
			t.Fatal(err)
		}
		m, err := decodeMessage(f)
		if err != nil {
			t.Fatal(err)
		}
		if m.kind != kindWant {
			continue
		}
		if len(m.wants) != 1 || m.wants[0] != [32]byte{2} {
			t.Fatalf("wanted %x", m.wants)
		}
		break
	}
	if s := a.Stats(); s.Served != 0 || s.Wanted != 1 {
		t.Fatalf("stats %+v", s)
	}
}

func TestDecodeAnnouncements(t *testing.T) {
	items := []announced{{1, [32]byte{1}}, {2, [32]byte{2}}}
	m, err := decodeMessage(encodeHave(items))
	if err != nil || len(m.haves) != 2 || m.haves[1] != items[1] {
		t.Fatalf("have round trip: %+v %v", m.haves, err)
	}
	m, err = decodeMessage(encodeWant([][32]byte{{3}}))
	if err != nil || len(m.wants) != 1 || m.wants[0] != [32]byte{3} {
		t.Fatalf("want round trip: %+v %v", m.wants, err)
	}
	for _, bad := range [][]byte{
		{kindHave}, {kindHave, 0}, {kindHave, 1, 1}, append(encodeHave(items), 0), encodeHave(items)[:40],
		{kindWant}, {kindWant, 0}, append(encodeWant([][32]byte{{3}}), 1), {kindWant, 2, 1},
	} {
		if _, err := decodeMessage(bad); !errors.Is(err, ErrBadMessage) {
			t.Errorf("% x: %v", bad[:min(len(bad), 8)], err)
		}
	}
	if !bytes.Equal(encodeHave(items)[:2], []byte{kindHave, 2}) {
		t.Fatal("have header")
	}
}

func TestWantSetAsksOneAnnouncerAtATime(t *testing.T) {
	w := wantSet{asked: map[[32]byte]time.Time{}}
	now := time.Now()
	if !w.claim([32]byte{1}, now) || w.claim([32]byte{1}, now.Add(wantTimeout/2)) {
		t.Fatal("a message asked twice within the timeout")
	}
	if !w.claim([32]byte{1}, now.Add(wantTimeout)) {
		t.Fatal("an unanswered want is never asked again")
	}
	w.done([32]byte{1})
	if !w.claim([32]byte{1}, now) {
		t.Fatal("done did not forget")
	}
	for i := range maxWants + 10 {
		w.claim([32]byte{byte(i), byte(i >> 8), byte(i >> 16)}, now)
	}
	if len(w.asked) > maxWants {
		t.Fatalf("%d outstanding wants", len(w.asked))
	}
}

// A peer asking again for a message it was sent gets nothing more: a WANT
// is a few bytes, the message may be a block.
func TestWantAnsweredOncePerPeer(t *testing.T) {
	a, _ := startHost(t, Config{})
	key := newKey(t)
	c := rawPeer(t, a, key)
	waitFor(t, "peer registered", func() bool { return hasPeer(a, IDOf(key)) })
	// A relayed message: a got it from a peer, so it is cached.
	b, _ := startHost(t, Config{StaticPeers: []PeerAddr{addrOf(a)}})
	waitFor(t, "b connected", connected(a, b))
	b.Broadcast(topicTx, []byte("big"))
	hash := gossipHash(topicTx, []byte("big"))
	waitFor(t, "a holds the message", func() bool { _, ok := a.cache.get(hash); return ok })
	for range 3 {
		if err := c.writeFrame(encodeWant([][32]byte{hash})); err != nil {
			t.Fatal(err)
		}
	}
	// A ping round trip after the WANTs: a's reader handles frames in
	// order, so by its pong it has answered all three.
	if err := c.writeFrame([]byte{kindPing}); err != nil {
		t.Fatal(err)
	}
	c.conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	got := 0
	for {
		f, err := c.readFrame()
		if err != nil {
			t.Fatal(err)
		}
		m, err := decodeMessage(f)
		if err != nil {
			t.Fatal(err)
		}
		if m.kind == kindMsg && bytes.Equal(m.payload, []byte("big")) {
			got++
		}
		if m.kind == kindPong {
			break
		}
	}
	if served := a.Stats().Served; served != 1 || got > 1 {
		t.Fatalf("3 WANTs of one message answered %d times (%d copies seen before the pong), want once", served, got)
	}
}
