package consensus

import (
	"math"
	"strings"
	"testing"
)

// The core takes validator sets as data: each height's set comes from the
// latest run handed over that covers it, priorities advanced per height;
// a height nobody handed a set for stops the core instead of guessing.
func TestValidatorsHandedOver(t *testing.T) {
	a, b := set(t, []int64{1, 1, 1, 1}, nil), set(t, []int64{3, 1, 1}, nil)
	s, err := New(Config{Self: addr(1), Timeouts: DefaultTimeouts}, 1,
		ValidatorsEvent{From: 1, To: 2, Set: a}, ValidatorsEvent{From: 3, To: math.MaxUint64, Set: b})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		h    uint64
		want *ValidatorSet
	}{
		{1, a}, {2, a.Next()}, {3, b}, {6, b.Next().Next().Next()},
	} {
		got, err := s.setOf(tc.h)
		if err != nil || !sameSet(got, tc.want) {
			t.Fatalf("height %d: %v %v", tc.h, got, err)
		}
	}
	// A later run overrides an earlier one from its first height.
	c := set(t, []int64{1, 2}, nil)
	if effects := s.Step(ValidatorsEvent{From: 8, To: 8, Set: c}); len(effects) != 0 {
		t.Fatalf("handing a set over had effects %v", effects)
	}
	if got, _ := s.setOf(7); !sameSet(got, b.Next().Next().Next().Next()) {
		t.Fatal("height 7 left the earlier run")
	}
	if got, _ := s.setOf(8); !sameSet(got, c) {
		t.Fatal("height 8 is not the later run's")
	}

	if _, err := New(Config{Self: addr(1), Timeouts: DefaultTimeouts}, 1); err == nil {
		t.Fatal("a core started without its height's set")
	}
	if _, err := New(Config{Self: addr(1), Timeouts: DefaultTimeouts}, 1, ValidatorsEvent{From: 2, To: 1, Set: a}); err == nil {
		t.Fatal("a run that ends before it starts")
	}
	// The next height's set missing when the height is decided: Halt.
	one := set(t, []int64{1}, nil)
	s, err = New(Config{Self: addr(1), Timeouts: DefaultTimeouts}, 1, ValidatorsEvent{From: 1, To: 1, Set: one})
	if err != nil {
		t.Fatal(err)
	}
	var halt error
	queue := []Event{Start{}}
	for len(queue) > 0 && halt == nil {
		ev := queue[0]
		queue = queue[1:]
		for _, e := range s.Step(ev) {
			switch e := e.(type) {
			case RequestValue:
				queue = append(queue, ValueEvent{Height: e.Height, Round: e.Round, Value: val(1)})
			case BroadcastProposal:
				queue = append(queue, ProposalEvent{Proposal: e.Proposal})
			case RequestValidation:
				queue = append(queue, ValidatedEvent{Height: e.Height, ID: e.Value.ID, Valid: true})
			case BroadcastVote:
				queue = append(queue, VoteEvent{Vote: e.Vote})
			case Halt:
				halt = e.Err
			}
		}
	}
	if halt == nil || !strings.Contains(halt.Error(), "height 2") {
		t.Fatalf("deciding height 1 without the set of 2: halt %v", halt)
	}
}

func sameSet(x, y *ValidatorSet) bool {
	if x == nil || y == nil || x.Len() != y.Len() || x.total != y.total {
		return false
	}
	for i := range x.vals {
		if x.vals[i] != y.vals[i] || x.prio[i] != y.prio[i] {
			return false
		}
	}
	return true
}
