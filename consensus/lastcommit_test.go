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
