package types

import "testing"

func TestCycles(t *testing.T) {
	c := DefaultCycles
	for _, tc := range []struct {
		n, cycle                 uint64
		first, last, sel, setBlk uint64
		isFirst, isSel, isLast   bool
	}{
		{0, 0, 0, 9, 5, 0, true, false, false},
		{5, 0, 0, 9, 5, 0, false, true, false},
		{9, 0, 0, 9, 5, 0, false, false, true},
		{10, 1, 10, 19, 15, 5, true, false, false},
		{125, 12, 120, 129, 125, 115, false, true, false},
	} {
		cy := c.Of(tc.n)
		if cy != tc.cycle || c.First(cy) != tc.first || c.Last(cy) != tc.last || c.SelectionBlock(cy) != tc.sel || c.SetBlock(cy) != tc.setBlk {
			t.Errorf("block %d: cycle %d [%d, %d] selection %d set block %d", tc.n, cy, c.First(cy), c.Last(cy), c.SelectionBlock(cy), c.SetBlock(cy))
		}
		if c.IsFirst(tc.n) != tc.isFirst || c.IsSelection(tc.n) != tc.isSel || c.IsLast(tc.n) != tc.isLast {
			t.Errorf("block %d: first %v selection %v last %v", tc.n, c.IsFirst(tc.n), c.IsSelection(tc.n), c.IsLast(tc.n))
		}
	}
}
