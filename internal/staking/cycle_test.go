package staking

import (
	"testing"

	"github.com/chaind/chaind/internal/types"
)

// TestCycleRuleChange passes a proposal changing the cycle length at
// different blocks of cycle 1 and checks the switch height: the first
// block of the cycle after the one in which it passed, never mid-cycle;
// the cycles before keep their blocks and records.
func TestCycleRuleChange(t *testing.T) {
	for _, tc := range []struct {
		name      string
		param     string
		value     string
		passAt    uint64 // the block in which the proposal closes
		want      types.Era
		wantFirst []uint64 // first blocks of cycles 0.. after the change
	}{
		{"first block of a cycle", "cycleLength", "20", 10, types.Era{Start: 20, Cycle: 2, CycleRule: types.CycleRule{Length: 20, Selection: 5}}, []uint64{0, 10, 20, 40, 60}},
		{"mid-cycle", "cycleLength", "20", 13, types.Era{Start: 20, Cycle: 2, CycleRule: types.CycleRule{Length: 20, Selection: 5}}, []uint64{0, 10, 20, 40, 60}},
		{"selection block", "cycleLength", "7", 15, types.Era{Start: 20, Cycle: 2, CycleRule: types.CycleRule{Length: 7, Selection: 5}}, []uint64{0, 10, 20, 27, 34}},
		{"last block of a cycle", "cycleLength", "7", 19, types.Era{Start: 20, Cycle: 2, CycleRule: types.CycleRule{Length: 7, Selection: 5}}, []uint64{0, 10, 20, 27, 34}},
		{"selection offset", "selectionOffset", "2", 13, types.Era{Start: 20, Cycle: 2, CycleRule: types.CycleRule{Length: 10, Selection: 2}}, []uint64{0, 10, 20, 30, 40}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, l, p := govLedger(t)
			st.AddBalance(GovernanceAddress, p.MinDeposit)
			id, err := l.submitProposal(&p, addr(5), ParamChangeProposal, "cycles", "", tc.param, tc.value, p.MinDeposit)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range []byte{1, 2} {
				if err := l.vote(id, addr(v), [4]uint64{PPM, 0, 0, 0}); err != nil {
					t.Fatal(err)
				}
			}
			end := 1000 + secondsOf(p.VotingPeriod)
			timeOf := func(n uint64) uint64 {
				if n < tc.passAt {
					return 1000 + n
				}
				return end + n
			}
			last := tc.wantFirst[len(tc.wantFirst)-1]
			for n := uint64(1); n < last; n++ {
				if err := EndBlock(st, Block{Number: n, Time: timeOf(n)}); err != nil {
					t.Fatal(err)
				}
				if pr, _ := ReadProposal(st, id); (pr.Status == Passed) != (n >= tc.passAt) {
					t.Fatalf("block %d: proposal %v", n, pr.Status)
				}
				c, err := ReadCycles(st)
				if err != nil {
					t.Fatal(err)
				}
				// Until the last block of the cycle the change passed in, the
				// schedule is the genesis one; from then on it has the era.
				changed := n >= tc.want.Start-1
				if eras := c.Eras(); changed != (len(eras) == 2) || (changed && eras[1] != tc.want) {
					t.Fatalf("block %d: eras %+v", n, eras)
				}
			}
			c, _ := ReadCycles(st)
			for cy, first := range tc.wantFirst {
				if got := c.First(uint64(cy)); got != first {
					t.Errorf("cycle %d starts at %d, want %d", cy, got, first)
				}
				if cy+1 < len(tc.wantFirst) {
					// Each cycle's record opened at its first block and
					// closed at its last (the set handed over there).
					r, ok := ReadCycle(st, uint64(cy))
					if !ok || r.Start != timeOf(max(first, 1))*1000 || r.End != timeOf(tc.wantFirst[cy+1]-1)*1000 {
						t.Errorf("cycle %d record %+v, want blocks %d..%d", cy, r, first, tc.wantFirst[cy+1]-1)
					}
				}
			}
		})
	}
}

// TestCycleRuleParamChecked refuses parameter changes the schedule
// cannot run, at submission.
func TestCycleRuleParamChecked(t *testing.T) {
	for _, tc := range []struct{ param, value string }{
		{"cycleLength", "1"},
		{"cycleLength", "6"}, // the selection offset 5 would be the last block
		{"selectionOffset", "9"},
		{"cycleLength", "0"},
	} {
		_, l, p := govLedger(t)
		_, err := l.submitProposal(&p, addr(5), ParamChangeProposal, "t", "", tc.param, tc.value, p.MinDeposit)
		wantRevert(t, err, "cycle rule")
	}
}
