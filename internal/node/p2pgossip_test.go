package node

import (
	"sync"
	"testing"
	"time"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/node/bft"
	"github.com/chaind/chaind/internal/protocol/wire"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/p2p"
)

type fakePool struct {
	mu  sync.Mutex
	evs []consensus.DuplicateVoteEvidence
}

func (p *fakePool) AddEvidence(ev consensus.DuplicateVoteEvidence) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.evs = append(p.evs, ev)
	return nil
}

func (p *fakePool) count() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.evs)
}

// rawPeer is a bare p2p host on the test chain that records what it gets
// on one topic.
func rawPeer(t *testing.T, n *Node, seed int, topic p2p.Topic, gossip bool) (*p2p.Host, chan []byte) {
	key, _ := DevValidatorKey(seed)
	h, err := p2p.New(p2p.Config{Key: key, Chain: p2p.Chain{ChainID: 8119, Genesis: n.Chain.Genesis().Hash()},
		StaticPeers: []p2p.PeerAddr{{ID: n.net.Load().Host().ID(), Addr: n.net.Load().Host().Addr().String()}}})
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte, 16)
	h.Handle(topic, p2p.TopicConfig{Gossip: gossip}, func(_ p2p.ID, b []byte) error { got <- b; return nil })
	h.Handle(wire.TopicStatus, p2p.TopicConfig{}, func(p2p.ID, []byte) error { return nil })
	if err := h.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	deadline := time.Now().Add(10 * time.Second)
	for n.net.Load().Host().PeerCount() < 1 || h.PeerCount() < 1 {
		if time.Now().After(deadline) {
			t.Fatal("raw peer did not connect")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return h, got
}

// Double-sign evidence from one peer is checked, pooled and passed on to
// the others once; forged evidence gets its sender dropped.
func TestP2PEvidenceGossip(t *testing.T) {
	pn := newP2PNet(t, 2)
	n, err := New(Config{Genesis: pn.genesis, HTTPPort: -1, WSPort: -1, Validators: pn.vals,
		P2P: &P2PConfig{ListenAddr: freePort(t)}, Log: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	pool := &fakePool{}
	n.net.Load().Certs().SetEvidencePool(pool)
	x, _ := rawPeer(t, n, 600, wire.TopicEvidence, true)
	_, atY := rawPeer(t, n, 601, wire.TopicEvidence, true)

	signer, err := consensus.NewSigner(8119, pn.keys[0].Serialize())
	if err != nil {
		t.Fatal(err)
	}
	a := consensus.Vote{Type: consensus.Prevote, Height: 1, ID: types.Hash{1}, Validator: signer.Address()}
	b := a
	b.ID = types.Hash{2}
	signer.SignVote(&a)
	signer.SignVote(&b)
	ev := consensus.NewDuplicateVoteEvidence(a, b)
	x.Broadcast(wire.TopicEvidence, ev.Encode())
	select {
	case got := <-atY:
		if string(got) != string(ev.Encode()) {
			t.Fatal("relayed evidence differs")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("evidence was not passed on")
	}
	if pool.count() != 1 {
		t.Fatalf("pooled %d pieces of evidence, want 1", pool.count())
	}
	// The same evidence again is neither pooled nor passed on twice.
	x.Send(n.net.Load().Host().ID(), wire.TopicEvidence, ev.Encode())
	select {
	case <-atY:
		t.Fatal("evidence passed on twice")
	case <-time.After(300 * time.Millisecond):
	}
	// Forged: the second vote's signature is the first one's.
	forged := ev
	forged.B.Signature = forged.A.Signature
	x.Send(n.net.Load().Host().ID(), wire.TopicEvidence, forged.Encode())
	deadline := time.Now().Add(10 * time.Second)
	for x.PeerCount() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("a peer sending forged evidence was not dropped")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if pool.count() != 1 {
		t.Fatalf("forged evidence pooled")
	}
}

// A gossiped vote with a forged signature gets its sender dropped; a
// valid one for the height being decided is passed on.
func TestP2PVoteGossipChecksSignatures(t *testing.T) {
	pn := newP2PNet(t, 2)
	n, err := New(Config{Genesis: pn.genesis, HTTPPort: -1, WSPort: -1, Validators: pn.vals,
		P2P: &P2PConfig{ListenAddr: freePort(t)}, Log: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	if err := n.Start(); err != nil {
		t.Fatal(err)
	}
	x, _ := rawPeer(t, n, 600, wire.TopicVote, true)
	_, atY := rawPeer(t, n, 601, wire.TopicVote, true)
	signer, _ := consensus.NewSigner(8119, pn.keys[1].Serialize())
	v := consensus.Vote{Type: consensus.Prevote, Height: 1, ID: types.Hash{1}, Validator: signer.Address()}
	signer.SignVote(&v)
	msg := encodeVoteMsg(v)
	x.Broadcast(wire.TopicVote, msg)
	select {
	case <-atY:
	case <-time.After(10 * time.Second):
		t.Fatal("a valid vote was not relayed")
	}
	// Too far ahead of the chain: not relayed, not an offence.
	far := v
	far.Height = 50
	signer.SignVote(&far)
	x.Broadcast(wire.TopicVote, encodeVoteMsg(far))
	select {
	case <-atY:
		t.Fatal("a vote far ahead of the chain was relayed")
	case <-time.After(300 * time.Millisecond):
	}
	forged := v
	forged.ID = types.Hash{9}
	x.Broadcast(wire.TopicVote, encodeVoteMsg(forged))
	deadline := time.Now().Add(10 * time.Second)
	for x.PeerCount() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("a peer relaying a forged vote was not dropped")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func encodeVoteMsg(v consensus.Vote) []byte {
	return bft.EncodeMessage(consensus.VoteEvent{Vote: v})
}
