package node

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/node/bft"
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
		StaticPeers: []p2p.PeerAddr{{ID: n.net.Load().host.ID(), Addr: n.net.Load().host.Addr().String()}}})
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan []byte, 16)
	h.Handle(topic, p2p.TopicConfig{Gossip: gossip}, func(_ p2p.ID, b []byte) error { got <- b; return nil })
	h.Handle(topicStatus, p2p.TopicConfig{}, func(p2p.ID, []byte) error { return nil })
	if err := h.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	deadline := time.Now().Add(10 * time.Second)
	for n.net.Load().host.PeerCount() < 1 || h.PeerCount() < 1 {
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
	n.net.Load().setEvidencePool(pool)
	x, _ := rawPeer(t, n, 600, topicEvidence, true)
	_, atY := rawPeer(t, n, 601, topicEvidence, true)

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
	x.Broadcast(topicEvidence, ev.Encode())
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
	x.Send(n.net.Load().host.ID(), topicEvidence, ev.Encode())
	select {
	case <-atY:
		t.Fatal("evidence passed on twice")
	case <-time.After(300 * time.Millisecond):
	}
	// Forged: the second vote's signature is the first one's.
	forged := ev
	forged.B.Signature = forged.A.Signature
	x.Send(n.net.Load().host.ID(), topicEvidence, forged.Encode())
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
	x, _ := rawPeer(t, n, 600, topicVote, true)
	_, atY := rawPeer(t, n, 601, topicVote, true)
	signer, _ := consensus.NewSigner(8119, pn.keys[1].Serialize())
	v := consensus.Vote{Type: consensus.Prevote, Height: 1, ID: types.Hash{1}, Validator: signer.Address()}
	signer.SignVote(&v)
	msg := encodeVoteMsg(v)
	x.Broadcast(topicVote, msg)
	select {
	case <-atY:
	case <-time.After(10 * time.Second):
		t.Fatal("a valid vote was not relayed")
	}
	// Too far ahead of the chain: not relayed, not an offence.
	far := v
	far.Height = 50
	signer.SignVote(&far)
	x.Broadcast(topicVote, encodeVoteMsg(far))
	select {
	case <-atY:
		t.Fatal("a vote far ahead of the chain was relayed")
	case <-time.After(300 * time.Millisecond):
	}
	forged := v
	forged.ID = types.Hash{9}
	x.Broadcast(topicVote, encodeVoteMsg(forged))
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

func TestKnownTxs(t *testing.T) {
	keys := devload.Keys("known-txs", 1)
	txs, err := devload.NewSigner(8119).Workload(devload.KindTransfer, keys[0], 0, 3, types.Address{})
	if err != nil {
		t.Fatal(err)
	}
	validated := types.NewBlockWithHeader(&types.Header{Number: 1}).WithBody(types.Body{Transactions: txs[:2]})
	committed := types.NewBlockWithHeader(&types.Header{Number: 1}).WithBody(types.Body{Transactions: txs[1:2]})
	k := newKnownTxs(16)
	k.add(validated, false)
	k.add(committed, true)
	for i, want := range []struct {
		committed bool
		validated *types.Transaction
	}{{false, txs[0]}, {true, nil}, {false, nil}} {
		c, v := k.lookup(txs[i].Hash())
		if c != want.committed || v != want.validated {
			t.Errorf("tx %d: committed %v, validated copy %p; want %v, %p", i, c, v, want.committed, want.validated)
		}
	}
	// Bounded: old generations go.
	for n := range uint64(40) {
		k.add(types.NewBlockWithHeader(&types.Header{Number: n}).WithBody(types.Body{Transactions: mustWorkload(t, n)}), true)
	}
	if c, v := k.lookup(txs[0].Hash()); c || v != nil {
		t.Fatal("an old transaction is still remembered")
	}
}

func mustWorkload(t *testing.T, seed uint64) types.Transactions {
	keys := devload.Keys(fmt.Sprint("known-txs-", seed), 1)
	txs, err := devload.NewSigner(8119).Workload(devload.KindTransfer, keys[0], 0, 1, types.Address{})
	if err != nil {
		t.Fatal(err)
	}
	return txs
}
