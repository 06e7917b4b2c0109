package consensus

import (
	"slices"
	"testing"

	"github.com/chaind/chaind/internal/types"
)

func addr(b byte) types.Address { return types.Address{19: b} }

// set builds a set whose addresses order the validators as listed, with
// the given priorities.
func set(t *testing.T, powers []int64, prio []int64) *ValidatorSet {
	t.Helper()
	var vals []Validator
	for i, p := range powers {
		vals = append(vals, Validator{Address: addr(byte(i + 1)), Power: p})
	}
	s, err := NewValidatorSet(vals)
	if err != nil {
		t.Fatal(err)
	}
	if prio != nil {
		copy(s.prio, prio)
	}
	return s
}

// The "Stable Set" table of CometBFT's proposer-selection spec: p1 with
// power 1, p2 with power 3, priorities starting at 0. Runs 1-4 elect
// p2, p1, p2, p2, and after run 4 both priorities are back to 0.
func TestProposerStableSet(t *testing.T) {
	s := set(t, []int64{1, 3}, nil)
	wantProp := []byte{2, 1, 2, 2, 2, 1, 2, 2}
	wantPrio := [][]int64{{1, -1}, {-2, 2}, {-1, 1}, {0, 0}}
	for run, w := range wantProp {
		if got := s.Proposer(0); got != addr(w) {
			t.Fatalf("run %d: proposer %x, want p%d", run+1, got[19], w)
		}
		s = s.Next()
		if run < len(wantPrio) && !slices.Equal(s.prio, wantPrio[run]) {
			t.Fatalf("run %d: priorities %v, want %v", run+1, s.prio, wantPrio[run])
		}
	}
	// Rounds of one height walk the same queue: round r at a height is
	// the proposer of height+r when nothing changes.
	s = set(t, []int64{1, 3}, nil)
	for r := range int32(8) {
		if got, want := s.Proposer(r), addr(wantProp[r]); got != want {
			t.Fatalf("round %d: %x want %x", r, got[19], want[19])
		}
	}
}

// "Voting Power Change": after the last run p2 is at -1 and p1 at 1; p1's
// power becomes 4. The next run elects p1, leaving p1 at -2 and p2 at 2.
func TestProposerPowerChange(t *testing.T) {
	s := set(t, []int64{1, 3}, []int64{1, -1})
	s, err := s.Update([]Validator{{Address: addr(1), Power: 4}})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Proposer(0); got != addr(1) {
		t.Fatalf("proposer %x, want p1", got[19])
	}
	if n := s.Next(); !slices.Equal(n.prio, []int64{-2, 2}) {
		t.Fatalf("priorities %v, want [-2 2]", n.prio)
	}
}

// "Validator Removal": p1, p2, p3 with powers 1, 2, 3 at priorities 1, 2,
// -3. Removing p2 leaves a sum of -2; the run centres (avg -1), adds
// powers and elects p1, ending at p1 -1, p3 1.
func TestProposerRemoval(t *testing.T) {
	s := set(t, []int64{1, 2, 3}, []int64{1, 2, -3})
	s, err := s.Update([]Validator{{Address: addr(2), Power: 0}})
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Proposer(0); got != addr(1) {
		t.Fatalf("proposer %x, want p1", got[19])
	}
	if n := s.Next(); !slices.Equal(n.prio, []int64{-1, 1}) {
		t.Fatalf("priorities %v, want [-1 1]", n.prio)
	}
}

// "New Validator": p1 (1) at 2 and p2 (3) at -2; p3 (8) joins at
// -1.125·12 ≈ -13. The run centres with avg -4, adds powers and elects p1:
// p1 -5, p2 5, p3 -1.
func TestProposerNewValidator(t *testing.T) {
	s := set(t, []int64{1, 3}, []int64{2, -2})
	s, err := s.Update([]Validator{{Address: addr(3), Power: 8}})
	if err != nil {
		t.Fatal(err)
	}
	if s.prio[2] != -13 {
		t.Fatalf("new validator starts at %d, want -13", s.prio[2])
	}
	if got := s.Proposer(0); got != addr(1) {
		t.Fatalf("proposer %x, want p1", got[19])
	}
	if n := s.Next(); !slices.Equal(n.prio, []int64{-5, 5, -1}) {
		t.Fatalf("priorities %v, want [-5 5 -1]", n.prio)
	}
}

// "Proposer Priority Range": without scaling, p3 would sit 45k behind p2
// with a total power of 20. Scaling keeps max-min within 2·P.
func TestProposerScaling(t *testing.T) {
	s := set(t, []int64{80000}, nil)
	s, _ = s.Update([]Validator{{Address: addr(2), Power: 10}})
	s = s.Next()
	s, _ = s.Update([]Validator{{Address: addr(3), Power: 10}})
	s = s.Next()
	if s.prio[0] < 70000 || s.prio[1] > -10000 || s.prio[2] > -55000 {
		t.Fatalf("unexpected priorities before removal %v", s.prio)
	}
	s, _ = s.Update([]Validator{{Address: addr(1), Power: 0}})
	s = s.Next()
	if d := max(s.prio[0], s.prio[1]) - min(s.prio[0], s.prio[1]); d > 2*s.total {
		t.Fatalf("spread %d exceeds 2·P = %d (%v)", d, 2*s.total, s.prio)
	}
}

// R2 fairness from the spec: over P consecutive selections with no
// changes, each validator proposes exactly VP(i) times. Checked on the
// spec's two 4- and 8-validator examples and a skewed set.
func TestProposerFairness(t *testing.T) {
	for _, powers := range [][]int64{{4, 2, 2, 2}, {3, 1, 1, 1, 1, 1, 1, 1}, {1, 3}, {7, 5, 3, 1, 1}} {
		s := set(t, powers, nil)
		var total int64
		for _, p := range powers {
			total += p
		}
		for range 3 { // three full periods
			count := make(map[types.Address]int64)
			for range total {
				count[s.Proposer(0)]++
				s = s.Next()
			}
			for i, p := range powers {
				if count[addr(byte(i+1))] != p {
					t.Fatalf("powers %v: p%d proposed %d times in %d runs, want %d", powers, i+1, count[addr(byte(i+1))], total, p)
				}
			}
		}
	}
}

func TestValidatorSetErrors(t *testing.T) {
	if _, err := NewValidatorSet(nil); err != ErrEmptyValidatorSet {
		t.Fatalf("empty: %v", err)
	}
	if _, err := NewValidatorSet([]Validator{{addr(1), 1}, {addr(1), 2}}); err == nil {
		t.Fatal("duplicate accepted")
	}
	if _, err := NewValidatorSet([]Validator{{addr(1), 0}}); err == nil {
		t.Fatal("zero power accepted")
	}
	if _, err := NewValidatorSet([]Validator{{addr(1), MaxTotalPower}, {addr(2), 1}}); err == nil {
		t.Fatal("overflowing total accepted")
	}
	s := set(t, []int64{1}, nil)
	if _, err := s.Update([]Validator{{addr(1), 0}}); err == nil {
		t.Fatal("removing the last validator accepted")
	}
	if _, err := s.Update([]Validator{{addr(9), 0}}); err == nil {
		t.Fatal("removing an unknown validator accepted")
	}
}
