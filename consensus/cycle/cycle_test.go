package cycle

import (
	"testing"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/types"
)

func addr(b byte) types.Address { return types.Address{19: b} }

// Every height's set is the genesis set advanced once per height, however
// the heights are asked for: in order, far ahead, or long after they
// left the window of recent sets.
func TestScheduleAdvancesPerHeight(t *testing.T) {
	g, err := consensus.NewValidatorSet([]consensus.Validator{{Address: addr(1), Power: 1}, {Address: addr(2), Power: 2}, {Address: addr(3), Power: 3}})
	if err != nil {
		t.Fatal(err)
	}
	want := func(h uint64) types.Address {
		set := g
		for range h - 1 {
			set = set.Next()
		}
		return set.Proposer(0)
	}
	s := NewSchedule(g)
	for _, h := range []uint64{1, 2, 3, 10, 9, 3*keep + 5, 5, keep + 1, 3 * keep, 3*keep + 6} {
		set, err := s.ValidatorSet(h)
		if err != nil {
			t.Fatal(err)
		}
		if got := set.Proposer(0); got != want(h) {
			t.Fatalf("height %d: proposer %x, want %x", h, got, want(h))
		}
		if set.TotalPower() != 6 {
			t.Fatalf("height %d: total power %d", h, set.TotalPower())
		}
	}
	if len(s.sets) > 2*keep {
		t.Fatalf("%d sets held, at most %d", len(s.sets), 2*keep)
	}
	if _, err := s.ValidatorSet(0); err == nil {
		t.Fatal("a set for the genesis height")
	}
	// Proposers rotate from height to height.
	a, _ := s.ValidatorSet(1)
	b, _ := s.ValidatorSet(2)
	if a.Proposer(0) == b.Proposer(0) {
		t.Fatal("consecutive heights should have different proposers")
	}
}
