package types

import (
	"errors"
	"testing"
)

// changed is the default schedule with a 4-block rule (selection at the
// second block) from cycle 3 and a 7-block rule (selection at the fifth)
// from cycle 5: blocks 0..29 are cycles 0..2, 30..37 cycles 3..4, then
// 38..44 cycle 5, 45..51 cycle 6.
func changed(t *testing.T) Cycles {
	t.Helper()
	c, err := DefaultCycles.Then(3, CycleRule{Length: 4, Selection: 1})
	if err != nil {
		t.Fatal(err)
	}
	if c, err = c.Then(5, CycleRule{Length: 7, Selection: 4}); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestCycles(t *testing.T) {
	for _, tc := range []struct {
		name                     string
		c                        Cycles
		n, cycle                 uint64
		first, last, sel, setBlk uint64
		isFirst, isSel, isLast   bool
	}{
		{"default", DefaultCycles, 0, 0, 0, 9, 5, 0, true, false, false},
		{"default", DefaultCycles, 5, 0, 0, 9, 5, 0, false, true, false},
		{"default", DefaultCycles, 9, 0, 0, 9, 5, 0, false, false, true},
		{"default", DefaultCycles, 10, 1, 10, 19, 15, 5, true, false, false},
		{"default", DefaultCycles, 125, 12, 120, 129, 125, 115, false, true, false},
		{"zero value", Cycles{}, 125, 12, 120, 129, 125, 115, false, true, false},
		// Before the first change the schedule answers as it always did.
		{"changed, old era", changed(t), 15, 1, 10, 19, 15, 5, false, true, false},
		{"changed, old era's last block", changed(t), 29, 2, 20, 29, 25, 15, false, false, true},
		// Cycle 3 is chosen under the old rule (block 25) and runs the new.
		{"changed, first of second era", changed(t), 30, 3, 30, 33, 31, 25, true, false, false},
		{"changed, selection in second era", changed(t), 31, 3, 30, 33, 31, 25, false, true, false},
		{"changed, second era's last block", changed(t), 37, 4, 34, 37, 35, 31, false, false, true},
		{"changed, third era", changed(t), 38, 5, 38, 44, 42, 35, true, false, false},
		{"changed, third era later", changed(t), 50, 6, 45, 51, 49, 42, false, false, false},
	} {
		c := tc.c
		cy := c.Of(tc.n)
		if cy != tc.cycle || c.First(cy) != tc.first || c.Last(cy) != tc.last || c.SelectionBlock(cy) != tc.sel || c.SetBlock(cy) != tc.setBlk {
			t.Errorf("%s: block %d: cycle %d [%d, %d] selection %d set block %d", tc.name, tc.n, cy, c.First(cy), c.Last(cy), c.SelectionBlock(cy), c.SetBlock(cy))
		}
		if c.IsFirst(tc.n) != tc.isFirst || c.IsSelection(tc.n) != tc.isSel || c.IsLast(tc.n) != tc.isLast {
			t.Errorf("%s: block %d: first %v selection %v last %v", tc.name, tc.n, c.IsFirst(tc.n), c.IsSelection(tc.n), c.IsLast(tc.n))
		}
	}
}

// TestCyclesContiguous walks every block of a changed schedule: each
// cycle's blocks run from First to Last, one cycle after another, with one
// selection block each.
func TestCyclesContiguous(t *testing.T) {
	c := changed(t)
	var cy uint64
	sels := 0
	for n := uint64(0); n < 200; n++ {
		if got := c.Of(n); got != cy {
			if got != cy+1 || !c.IsFirst(n) || c.Last(cy) != n-1 {
				t.Fatalf("block %d: cycle %d after cycle %d ending at %d", n, got, cy, c.Last(cy))
			}
			if sels != 1 {
				t.Fatalf("cycle %d had %d selection blocks", cy, sels)
			}
			cy, sels = got, 0
		}
		if c.IsSelection(n) {
			sels++
			if c.IsLast(n) || n != c.SelectionBlock(cy) {
				t.Fatalf("block %d: selection block of cycle %d is %d", n, cy, c.SelectionBlock(cy))
			}
		}
	}
}

func TestCycleRuleCheck(t *testing.T) {
	for _, tc := range []struct {
		r  CycleRule
		ok bool
	}{
		{DefaultCycleRule, true},
		{CycleRule{Length: 2, Selection: 0}, true},
		{CycleRule{Length: 1, Selection: 0}, false},
		{CycleRule{Length: 0, Selection: 0}, false},
		{CycleRule{Length: 10, Selection: 9}, false}, // selection on the last block
		{CycleRule{Length: 10, Selection: 8}, true},
		{CycleRule{Length: MaxCycleLength + 1, Selection: 5}, false},
	} {
		err := tc.r.Check()
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, ErrCycleRule)) {
			t.Errorf("%+v: %v", tc.r, err)
		}
	}
}

func TestCyclesOf(t *testing.T) {
	good := changed(t).Eras()
	if c, err := CyclesOf(good); err != nil || c.Of(40) != 5 {
		t.Fatalf("round trip: %v", err)
	}
	for name, eras := range map[string][]Era{
		"none":              nil,
		"not from 0":        {{Start: 10, Cycle: 1, CycleRule: DefaultCycleRule}},
		"mid-cycle":         {good[0], {Start: 31, Cycle: 3, CycleRule: good[1].CycleRule}},
		"cycle not counted": {good[0], {Start: 30, Cycle: 4, CycleRule: good[1].CycleRule}},
		"not after":         {good[0], {Start: 0, Cycle: 0, CycleRule: good[1].CycleRule}},
		"bad rule":          {good[0], {Start: 30, Cycle: 3, CycleRule: CycleRule{Length: 1}}},
	} {
		if _, err := CyclesOf(eras); !errors.Is(err, ErrCycleRule) {
			t.Errorf("%s: %v", name, err)
		}
	}
	if same, err := DefaultCycles.Then(4, DefaultCycleRule); err != nil || len(same.Eras()) != 1 {
		t.Errorf("an unchanged rule adds an era: %v %v", same.Eras(), err)
	}
}
