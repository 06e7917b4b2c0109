package bft

import (
	"testing"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/types"
)

// A MemNetwork checks each message once, as it is sent: a forged vote, or
// one signed for another chain, reaches no driver; a good one reaches
// every other endpoint as a verified event.
func TestMemNetworkDeliversOnlyVerified(t *testing.T) {
	tn := newTestNet(t, []int64{1, 1, 1})
	a, b := tn.net.Join(tn.signers[0].Address()), tn.net.Join(tn.signers[1].Address())
	good := consensus.Vote{Type: consensus.Prevote, Height: 1, ID: types.Hash{1}}
	tn.signers[0].SignVote(&good)
	forged := good
	forged.Validator = tn.signers[2].Address()
	other, err := consensus.NewSigner(chainID+1, []byte{31: 9})
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := consensus.Vote{Type: consensus.Prevote, Height: 1, ID: types.Hash{1}}
	other.SignVote(&elsewhere)
	for _, v := range []consensus.Vote{forged, elsewhere} {
		a.Broadcast(EncodeMessage(consensus.VoteEvent{Vote: v}))
		a.Send(tn.signers[1].Address(), EncodeMessage(consensus.VoteEvent{Vote: v}))
	}
	a.Broadcast([]byte{0xff}) // undecodable
	select {
	case m := <-b.Receive():
		t.Fatalf("an unverifiable message was delivered: %+v", m.Event())
	default:
	}
	a.Send(tn.signers[1].Address(), EncodeMessage(consensus.VoteEvent{Vote: good}))
	select {
	case m := <-b.Receive():
		if ev, ok := m.Event().(consensus.VoteEvent); !ok || ev.Vote.Validator != tn.signers[0].Address() {
			t.Fatalf("delivered %+v", m.Event())
		}
	default:
		t.Fatal("a good vote was not delivered")
	}
}
