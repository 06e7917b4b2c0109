package relay

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/consensus/cycle"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/protocol/wire"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/p2p"
)

const testChain = 8119

func key(t *testing.T, b byte) []byte {
	k := make([]byte, 32)
	k[0], k[31] = 0x42, b
	return k
}

// pair connects a validator's host running the relay to a bare peer.
func pair(t *testing.T, vals consensus.ValidatorSource) (*Reactor, *p2p.Host) {
	t.Helper()
	chain := p2p.Chain{ChainID: testChain, Genesis: types.Hash{1}}
	vk, _ := crypto.ToPrivateKey(key(t, 1))
	host, err := p2p.New(p2p.Config{Key: vk, Chain: chain, ListenAddr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	r := New(host, Config{ChainID: testChain, Head: func() uint64 { return 0 }, Validators: vals, Validating: true,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(host.Close)
	pk, _ := crypto.ToPrivateKey(key(t, 9))
	peer, err := p2p.New(p2p.Config{Key: pk, Chain: chain, StaticPeers: []p2p.PeerAddr{{ID: host.ID(), Addr: host.Addr().String()}}})
	if err != nil {
		t.Fatal(err)
	}
	peer.Handle(wire.TopicVote, p2p.TopicConfig{Priority: p2p.High, Gossip: true}, func(p2p.ID, []byte) error { return nil })
	if err := peer.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(peer.Close)
	for deadline := time.Now().Add(10 * time.Second); host.PeerCount() < 1 || peer.PeerCount() < 1; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("peer did not connect")
		}
	}
	return r, peer
}

// The driver's inbox holds only messages whose signature the relay
// checked: forged and other-chain votes, sent directly or gossiped, never
// reach it; the good vote sent after them is the first thing it gets,
// as a verified event.
func TestRelayDeliversOnlyVerified(t *testing.T) {
	var signers []*consensus.Signer
	var members []consensus.Validator
	for i := range 4 {
		s, err := consensus.NewSigner(testChain, key(t, byte(i+1)))
		if err != nil {
			t.Fatal(err)
		}
		signers = append(signers, s)
		members = append(members, consensus.Validator{Address: s.Address(), Power: 1})
	}
	set, err := consensus.NewValidatorSet(members)
	if err != nil {
		t.Fatal(err)
	}
	r, peer := pair(t, cycle.NewSchedule(set))
	to := r.host.ID()
	good := consensus.Vote{Type: consensus.Prevote, Height: 1, ID: types.Hash{7}}
	signers[1].SignVote(&good)
	forged := good
	forged.Validator = signers[2].Address()
	other, _ := consensus.NewSigner(testChain+1, key(t, 2))
	elsewhere := consensus.Vote{Type: consensus.Prevote, Height: 1, ID: types.Hash{7}}
	other.SignVote(&elsewhere)
	for _, v := range []consensus.Vote{forged, elsewhere} {
		if !peer.Send(to, wire.TopicConsensus, consensus.EncodeMessage(consensus.VoteEvent{Vote: v})) {
			t.Fatal("send failed")
		}
	}
	// A bad signature sent directly is dropped, not held against the
	// peer: the good vote still arrives over the same connection.
	peer.Send(to, wire.TopicConsensus, consensus.EncodeMessage(consensus.VoteEvent{Vote: good}))
	select {
	case m := <-r.Receive():
		ev, ok := m.Event().(consensus.VoteEvent)
		if !ok || ev.Vote.Validator != signers[1].Address() || ev.Vote.ID != good.ID {
			t.Fatalf("the driver got %+v, want the good vote", m.Event())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the good vote did not reach the driver")
	}
	// Gossiped, a forged vote costs the peer its connection and reaches
	// nobody.
	peer.Broadcast(wire.TopicVote, consensus.EncodeMessage(consensus.VoteEvent{Vote: forged}))
	for deadline := time.Now().Add(10 * time.Second); peer.PeerCount() != 0; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("a peer gossiping a forged vote was not dropped")
		}
	}
	select {
	case m := <-r.Receive():
		t.Fatalf("the driver got %+v after a forged vote", m.Event())
	default:
	}
	if got := r.Stats.Delivered.Load(); got != 1 {
		t.Fatalf("%d messages delivered, want 1", got)
	}
}
