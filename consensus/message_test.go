package consensus

import (
	"bytes"
	"errors"
	"testing"

	"github.com/chaind/chaind/internal/types"
)

func TestMessageCodec(t *testing.T) {
	ss, _ := signers(t, 1)
	v := Vote{Type: Prevote, Height: 3, Round: 1, ID: types.Hash{4}}
	ss[0].SignVote(&v)
	p := Proposal{Height: 3, Round: 1, ValidRound: 0, Value: Value{ID: types.Hash{4}, Data: []byte{1, 2}}}
	ss[0].SignProposal(&p)
	for _, ev := range []Event{VoteEvent{Vote: v}, ProposalEvent{Proposal: p}, StatusEvent{Height: 9, Round: 2}} {
		enc := EncodeMessage(ev)
		got, err := DecodeMessage(enc)
		if err != nil {
			t.Fatalf("%T: %v", ev, err)
		}
		if !bytes.Equal(EncodeMessage(got), enc) {
			t.Fatalf("round trip of %T changed it", ev)
		}
	}
	if EncodeMessage(Start{}) != nil {
		t.Error("Start has a wire form")
	}
	for _, bad := range [][]byte{nil, {9}, {kindVote}, {kindStatus, 0xc1, 0x01}, {kindStatus, 0xc6, 0x01, 0x85, 0xff, 0xff, 0xff, 0xff, 0xff},
		append(EncodeMessage(VoteEvent{Vote: v}), 0)} {
		if _, err := DecodeMessage(bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("DecodeMessage(%x) = %v, want ErrMalformed", bad, err)
		}
	}
}

// Both ways into the core, Receive and VerifyMessage then Deliver (the
// node's: checked once at the edge), drop what is not signed by the
// validator it names for this chain, and attribute status messages to the
// peer.
func TestReceiveChecksSignatures(t *testing.T) {
	for name, receive := range map[string]func(s *State, peer types.Address, msg []byte) ([]Effect, error){
		"Receive": (*State).Receive,
		"VerifyMessage+Deliver": func(s *State, peer types.Address, msg []byte) ([]Effect, error) {
			m, err := VerifyMessage(testChain, peer, msg)
			if err != nil {
				return nil, err
			}
			return s.Deliver(m)
		},
	} {
		t.Run(name, func(t *testing.T) { testReceiveChecksSignatures(t, receive) })
	}
}

func testReceiveChecksSignatures(t *testing.T, receive func(s *State, peer types.Address, msg []byte) ([]Effect, error)) {
	ss, set := signers(t, 4)
	src := &fixedSource{sets: []*ValidatorSet{nil, set}}
	s, err := New(Config{Self: ss[0].Address(), ChainID: testChain, Timeouts: DefaultTimeouts}, 1, src.fixed())
	if err != nil {
		t.Fatal(err)
	}
	s.Step(Start{})
	good := Vote{Type: Prevote, Height: 1, Round: 0, ID: types.Hash{7}}
	ss[1].SignVote(&good)
	forged := good
	forged.Validator = ss[2].Address() // ss[1]'s signature, ss[2]'s name
	relabelled := good
	relabelled.Round = 1 // a real vote replayed into another round
	nextHeight := good
	nextHeight.Height = 2 // or another height (buffered if it passed)
	otherChain := Vote{Type: Prevote, Height: 1, Round: 0, ID: types.Hash{7}}
	other, _ := NewSigner(testChain+1, make32(2))
	other.SignVote(&otherChain)
	otherChain.Validator = ss[1].Address()
	for name, v := range map[string]Vote{"forged": forged, "relabelled": relabelled, "next height": nextHeight, "other chain": otherChain} {
		if _, err := receive(s, types.Address{}, EncodeMessage(VoteEvent{Vote: v})); !errors.Is(err, ErrBadSignature) {
			t.Errorf("%s vote: %v, want ErrBadSignature", name, err)
		}
	}
	if s.book.Sum(0, Prevote) != 0 {
		t.Fatal("a rejected vote was counted")
	}
	if _, err := receive(s, types.Address{}, EncodeMessage(VoteEvent{Vote: good})); err != nil {
		t.Fatal(err)
	}
	if s.book.Sum(0, Prevote) == 0 {
		t.Fatal("a good vote was not counted")
	}
	// A status from a peer at height 0 asks for nothing; its From is the peer.
	effs, err := receive(s, ss[3].Address(), EncodeMessage(StatusEvent{Height: 1, Round: 0}))
	if err != nil || len(effs) != 0 {
		t.Fatalf("status: %v %v", effs, err)
	}
}

// Deliver takes only what VerifyMessage checked for the core's chain: a
// message that skipped the check (the zero Verified) or was checked for
// another chain changes nothing.
func TestDeliverRefusesUnverified(t *testing.T) {
	ss, set := signers(t, 4)
	s, err := New(Config{Self: ss[0].Address(), ChainID: testChain, Timeouts: DefaultTimeouts}, 1, (&fixedSource{sets: []*ValidatorSet{nil, set}}).fixed())
	if err != nil {
		t.Fatal(err)
	}
	s.Step(Start{})
	v := Vote{Type: Prevote, Height: 1, Round: 0, ID: types.Hash{7}}
	ss[1].SignVote(&v)
	msg := EncodeMessage(VoteEvent{Vote: v})
	// Signed for testChain, but checked as a message of another chain:
	// the signature does not recover there.
	if _, err := VerifyMessage(testChain+1, types.Address{}, msg); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("VerifyMessage for another chain: %v", err)
	}
	other, _ := NewSigner(testChain+1, make32(1))
	w := Vote{Type: Prevote, Height: 1, Round: 0, ID: types.Hash{7}}
	other.SignVote(&w)
	elsewhere, err := VerifyMessage(testChain+1, types.Address{}, EncodeMessage(VoteEvent{Vote: w}))
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]Verified{"zero": {}, "other chain": elsewhere} {
		if effs, err := s.Deliver(m); !errors.Is(err, ErrUnverified) || effs != nil {
			t.Errorf("%s: Deliver = %v, %v; want ErrUnverified", name, effs, err)
		}
	}
	if s.book.Sum(0, Prevote) != 0 {
		t.Fatal("an unverified vote was counted")
	}
	m, err := VerifyMessage(testChain, types.Address{}, msg)
	if err != nil {
		t.Fatal(err)
	}
	if ev, ok := m.Event().(VoteEvent); !ok || ev.Vote.Validator != ss[1].Address() {
		t.Fatalf("verified event %+v", m.Event())
	}
	if _, err := s.Deliver(m); err != nil || s.book.Sum(0, Prevote) == 0 {
		t.Fatalf("a verified vote was not counted: %v", err)
	}
}

func make32(b byte) []byte { k := make([]byte, 32); k[0], k[31] = 0x42, b; return k }

// The decoder never panics, and what it accepts re-encodes to the same bytes.
func FuzzDecodeMessage(f *testing.F) {
	f.Add(EncodeMessage(StatusEvent{Height: 1, Round: 1}))
	f.Add(EncodeMessage(VoteEvent{Vote: Vote{Type: Precommit, Height: 2, Signature: []byte{1}}}))
	f.Add(EncodeMessage(ProposalEvent{Proposal: Proposal{Height: 2, Round: 1, ValidRound: -1, Value: Value{ID: types.Hash{1}, Data: []byte("x")}}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		ev, err := DecodeMessage(b)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not wrap ErrMalformed", err)
			}
			return
		}
		if !bytes.Equal(EncodeMessage(ev), b) {
			t.Fatalf("%x decodes to %+v, which encodes differently", b, ev)
		}
	})
}

// A core fed arbitrary bytes off the wire never panics and, for anything
// it refuses, reports an error instead of stepping.
func FuzzReceive(f *testing.F) {
	ss, set := signers(f, 4)
	v := Vote{Type: Prevote, Height: 1, Round: 0, ID: types.Hash{7}}
	ss[1].SignVote(&v)
	p := Proposal{Height: 1, Round: 0, ValidRound: -1, Value: Value{ID: types.Hash{9}, Data: []byte{1}}}
	ss[0].SignProposal(&p)
	f.Add(EncodeMessage(VoteEvent{Vote: v}))
	f.Add(EncodeMessage(ProposalEvent{Proposal: p}))
	f.Add(EncodeMessage(StatusEvent{Height: 3, Round: 1}))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := New(Config{Self: ss[2].Address(), ChainID: testChain, Timeouts: DefaultTimeouts}, 1, (&fixedSource{sets: []*ValidatorSet{nil, set}}).fixed())
		if err != nil {
			t.Fatal(err)
		}
		s.Step(Start{})
		if effs, err := s.Receive(ss[3].Address(), b); err != nil && effs != nil {
			t.Fatal("a refused message produced effects")
		}
	})
}

// BenchmarkVoteIntake compares a validator's intake of one gossiped vote:
// checked at the edge and then decoded and checked again by the core
// (Receive, as before), against checked once at the edge and handed over
// verified (VerifyMessage then Deliver).
func BenchmarkVoteIntake(b *testing.B) {
	ss, set := signers(b, 4)
	v := Vote{Type: Prevote, Height: 1, Round: 0, ID: types.Hash{7}}
	ss[1].SignVote(&v)
	msg := EncodeMessage(VoteEvent{Vote: v})
	core := func() *State {
		s, err := New(Config{Self: ss[0].Address(), ChainID: testChain, Timeouts: DefaultTimeouts}, 1, (&fixedSource{sets: []*ValidatorSet{nil, set}}).fixed())
		if err != nil {
			b.Fatal(err)
		}
		s.Step(Start{})
		return s
	}
	b.Run("twice", func(b *testing.B) {
		s := core()
		for i := 0; i < b.N; i++ {
			ev, err := DecodeMessage(msg)
			if err != nil {
				b.Fatal(err)
			}
			if err := VerifyVote(testChain, ev.(VoteEvent).Vote); err != nil {
				b.Fatal(err)
			}
			if _, err := s.Receive(types.Address{}, msg); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("once", func(b *testing.B) {
		s := core()
		for i := 0; i < b.N; i++ {
			m, err := VerifyMessage(testChain, types.Address{}, msg)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.Deliver(m); err != nil {
				b.Fatal(err)
			}
		}
	})
}
