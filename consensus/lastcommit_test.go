package consensus

import (
	"testing"
)

// decidedCore returns a core of validator 0 of four equal validators that
// decided A at height 1, round 0, with the precommits of validators 0, 1
// and 2, and the LastCommit effects it reported on the way.
func decidedCore(t *testing.T) (*State, Value, []LastCommit) {
	t.Helper()
	A := val(0xA)
	s, err := New(Config{Self: addr(1), Timeouts: DefaultTimeouts}, 1, newSource(t, []int64{1, 1, 1, 1}).fixed())
	if err != nil {
		t.Fatal(err)
	}
	var got []LastCommit
	var step func(ev Event)
	step = func(ev Event) {
		for _, e := range s.Step(ev) {
			switch e := e.(type) {
			case RequestValue:
				step(ValueEvent{Height: e.Height, Round: e.Round, Value: A})
			case RequestValidation:
				step(ValidatedEvent{Height: e.Height, ID: e.Value.ID, Valid: true})
			case LastCommit:
				got = append(got, e)
			}
		}
	}
	step(Start{})
	if p := s.proposer(0); p != addr(1) {
		step(ProposalEvent{Proposal{Height: 1, Round: 0, Value: A, ValidRound: -1, Proposer: p}})
	}
	for _, from := range []int{1, 2, 3} {
		step(vote(Prevote, 0, A, from))
	}
	for _, from := range []int{1, 2} {
		step(vote(Precommit, 0, A, from))
	}
	if s.Height() != 2 {
		t.Fatalf("core at height %d, want 2 after deciding", s.Height())
	}
	return s, A, got
}

// TestLastCommit: after deciding, a core keeps gathering precommits for
// the decided height, round and value from its validators, once each, and
// reports the whole list each time it grows; nothing else joins.
func TestLastCommit(t *testing.T) {
	_, A, got := decidedCore(t)
	if len(got) != 1 || len(got[0].Precommits) != 3 || got[0].Height != 1 || got[0].ID != A.ID {
		t.Fatalf("after the decision: %+v, want one LastCommit of 3 precommits for height 1", got)
	}
	late := vote(Precommit, 0, A, 3)
	cases := []struct {
		name string
		ev   VoteEvent
		want int // precommits reported, 0 for no effect
	}{
		{"late precommit of the fourth validator", late, 4},
		{"precommit for nil", vote(Precommit, 0, Value{}, 3), 0},
		{"precommit for another value", vote(Precommit, 0, val(0xB), 3), 0},
		{"precommit at another round", vote(Precommit, 1, A, 3), 0},
		{"prevote", vote(Prevote, 0, A, 3), 0},
		{"a validator already counted", vote(Precommit, 0, A, 1), 0},
		{"not a validator", VoteEvent{Vote{Type: Precommit, Height: 1, Round: 0, ID: A.ID, Validator: addr(9)}}, 0},
		{"another height", VoteEvent{Vote{Type: Precommit, Height: 0, Round: 0, ID: A.ID, Validator: addr(4)}}, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, _, _ := decidedCore(t)
			var lcs []LastCommit
			for _, e := range s.Step(c.ev) {
				if lc, ok := e.(LastCommit); ok {
					lcs = append(lcs, lc)
				}
			}
			if c.want == 0 {
				if len(lcs) != 0 {
					t.Fatalf("reported %+v", lcs)
				}
				return
			}
			if len(lcs) != 1 || len(lcs[0].Precommits) != c.want {
				t.Fatalf("reported %+v, want %d precommits", lcs, c.want)
			}
			// Once in is enough: the same vote again changes nothing.
			for _, e := range s.Step(c.ev) {
				if _, ok := e.(LastCommit); ok {
					t.Fatal("a repeated precommit was reported again")
				}
			}
		})
	}
}

// TestPrecommitOnDecide: a validator that finishes validating the proposal
// only after the others' precommits decided it signs its own precommit
// for the decided value and round before it moves on, so its liveness
// reaches the next proposer; one that precommitted already signs nothing
// more.
func TestPrecommitOnDecide(t *testing.T) {
	A := val(0xA)
	src := newSource(t, []int64{1, 1, 1, 1})
	probe, err := New(Config{Self: addr(1), Timeouts: DefaultTimeouts}, 1, src.fixed())
	if err != nil {
		t.Fatal(err)
	}
	p := probe.proposer(0)
	self := 0
	for addr(byte(self+1)) == p {
		self++
	}
	s, err := New(Config{Self: addr(byte(self + 1)), Timeouts: DefaultTimeouts}, 1, src.fixed())
	if err != nil {
		t.Fatal(err)
	}
	s.Step(Start{})
	s.Step(ProposalEvent{Proposal{Height: 1, Round: 0, Value: A, ValidRound: -1, Proposer: p}})
	// The proposal is still being validated while the others prevote and
	// precommit it.
	var others []int
	for i := range 4 {
		if i != self {
			others = append(others, i)
		}
	}
	for _, from := range others {
		s.Step(vote(Prevote, 0, A, from))
	}
	for _, from := range others {
		s.Step(vote(Precommit, 0, A, from))
	}
	var own []Vote
	decided := false
	for _, e := range s.Step(ValidatedEvent{Height: 1, ID: A.ID, Valid: true}) {
		switch e := e.(type) {
		case BroadcastVote:
			if e.Vote.Height == 1 {
				own = append(own, e.Vote)
			}
		case Decide:
			decided = true
			if len(e.Precommits) != 4 {
				t.Errorf("decision with %d precommits, want 4 (ours included)", len(e.Precommits))
			}
		}
	}
	if !decided {
		t.Fatal("no decision")
	}
	if len(own) != 1 || own[0].Type != Precommit || own[0].Round != 0 || own[0].ID != A.ID {
		t.Fatalf("own votes at height 1 on deciding: %+v, want one precommit for A at round 0", own)
	}
	// decidedCore's validator precommitted before deciding: nothing more.
	if _, _, lcs := decidedCore(t); len(lcs) != 1 || len(lcs[0].Precommits) != 3 {
		t.Fatalf("a validator that precommitted reported %+v", lcs)
	}
}
