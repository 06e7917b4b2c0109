package cycle

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/types"
)

func addr(b byte) types.Address { return types.Address{19: b} }

func TestOf(t *testing.T) {
	for _, c := range []struct{ h, cycle, next uint64 }{{0, 0, 10}, {9, 0, 10}, {10, 1, 20}, {19, 1, 20}, {125, 12, 130}} {
		if Of(c.h) != c.cycle || NextBoundary(c.h) != c.next {
			t.Errorf("height %d: cycle %d next %d, want %d %d", c.h, Of(c.h), NextBoundary(c.h), c.cycle, c.next)
		}
	}
}

func TestScheduleChangesAtBoundary(t *testing.T) {
	g, _ := consensus.NewValidatorSet([]consensus.Validator{{Address: addr(1), Power: 1}, {Address: addr(2), Power: 1}})
	s := NewSchedule(g)
	for h := uint64(1); h <= 13; h++ {
		if _, err := s.ValidatorSet(h); err != nil {
			t.Fatal(err)
		}
	}
	// Requested while executing block 13: takes effect at 20, not before.
	if err := s.Queue(13, consensus.Validator{Address: addr(3), Power: 5}, consensus.Validator{Address: addr(1), Power: 0}); err != nil {
		t.Fatal(err)
	}
	for h := uint64(14); h <= 25; h++ {
		set, err := s.ValidatorSet(h)
		if err != nil {
			t.Fatal(err)
		}
		want := int64(2)
		if h >= 20 {
			want = 6
		}
		if set.TotalPower() != want {
			t.Fatalf("height %d: total power %d, want %d", h, set.TotalPower(), want)
		}
	}
	if err := s.Queue(19); !errors.Is(err, ErrTooLate) {
		t.Fatalf("queue for an already fixed boundary: %v", err)
	}
	if err := s.Queue(25, consensus.Validator{Address: addr(9), Power: 0}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ValidatorSet(30); err == nil {
		t.Fatal("removing an unknown validator at the boundary should fail")
	}
	// Proposers rotate from height to height within a cycle.
	a, _ := s.ValidatorSet(1)
	b, _ := s.ValidatorSet(2)
	if a.Proposer(0) == b.Proposer(0) {
		t.Fatal("two equal validators: consecutive heights should have different proposers")
	}
}

func TestBook(t *testing.T) {
	b := NewBook(BookConfig{Desired: 7, BlockInterval: 1000, MaxSyncTime: 1200})
	if _, ok := b.Latest(); ok {
		t.Fatal("empty book has a latest cycle")
	}
	nodes := Nodes{Active: 4, Standby: 1}
	for h := uint64(1); h <= 12; h++ {
		b.Observe(h, 1_700_000_000_000+h*1000, nodes)
	}
	r, ok := b.Cycle(0)
	if !ok || r.CycleCounter != 0 || r.StartTime != 1_700_000_001_000 || r.EndTime != 1_700_000_009_000 || r.Duration != 8 {
		t.Fatalf("cycle 0: %+v", r)
	}
	l, _ := b.Latest()
	if l.CycleCounter != 1 || l.StartTime != 1_700_000_010_000 || l.EndTime != 1_700_000_019_000 || l.Timestamp != 1_700_000_012_000 {
		t.Fatalf("cycle 1 in progress: %+v", l)
	}
	js, _ := json.Marshal(l)
	want := `{"cycleCounter":1,"startTime":1700000010000,"endTime":1700000019000,"nodes":{"active":4,"standby":1,"syncing":0},"desired":7,"duration":9,"maxSyncTime":1200,"timestamp":1700000012000}`
	if string(js) != want {
		t.Fatalf("json\n got %s\nwant %s", js, want)
	}
	if _, ok := b.Cycle(5); ok {
		t.Fatal("future cycle found")
	}
}
