package types

import (
	"errors"
	"fmt"
	"sort"
)

// CycleRule is how cycles are cut in one era of a chain: Length
// consecutive blocks each, the next cycle's validators chosen at the end of
// each cycle's block Selection (counted from 0). The selection comes at
// least one block before the cycle's last, so every node knows a height's
// set a few heights before it gets there, as the consensus core must to
// check votes that arrive ahead of time.
type CycleRule struct {
	Length    uint64
	Selection uint64
}

// DefaultCycleRule is the rule of the spec: ten-block cycles, the next set
// chosen at the end of each cycle's sixth block. A genesis that names no
// rule starts with it, and a chain without staking state keeps it.
var DefaultCycleRule = CycleRule{Length: 10, Selection: 5}

// MaxCycleLength bounds a cycle, so that the arithmetic on heights never
// overflows and a cycle's record is closed within a bounded time.
const MaxCycleLength = 1 << 20

// ErrCycleRule is returned for a rule the schedule cannot run.
var ErrCycleRule = errors.New("invalid cycle rule")

// Check rejects a rule the schedule cannot run: a cycle needs a selection
// block and, after it, at least one block before the next cycle starts.
func (r CycleRule) Check() error {
	switch {
	case r.Length < 2 || r.Length > MaxCycleLength:
		return fmt.Errorf("%w: cycle length %d, want 2..%d", ErrCycleRule, r.Length, MaxCycleLength)
	case r.Selection > r.Length-2:
		return fmt.Errorf("%w: selection offset %d, want 0..%d (before the cycle's last block)", ErrCycleRule, r.Selection, r.Length-2)
	}
	return nil
}

// Era is a run of cycles under one rule: from block Start, which opens
// cycle Cycle, on until the next era.
type Era struct {
	Start uint64 // the era's first block
	Cycle uint64 // the cycle that block opens
	CycleRule
}

// Cycles is chaind's cycle schedule, the one place its arithmetic lives:
// the staking end-of-block rule, the engine's validator sets,
// chain_getCycleInfo, the node/cycle feed and the explorer all ask it.
// Validator-set changes, rewards and penalties take effect at cycle
// boundaries.
//
// The rule is a staking parameter that governance can change; a change
// never cuts a cycle short. The parameters in the state after cycle c's
// last block decide cycle c+1 and later (the staking rule appends an era
// then), so a new rule's first block is the first block of the cycle after
// the one in which the change passed. A schedule keeps every era the chain
// ran, and answers for old heights as the chain ran them. Cycles after
// the last era's current one are answered under the last rule: a change
// that passes later moves them.
//
// The zero Cycles is DefaultCycles.
type Cycles struct {
	eras []Era // by Start; eras[0] starts at block 0, cycle 0
}

// all is c's eras, the default era for the zero Cycles.
func (c Cycles) all() []Era {
	if len(c.eras) == 0 {
		return []Era{{CycleRule: DefaultCycleRule}}
	}
	return c.eras
}

// DefaultCycles is the schedule of one era under DefaultCycleRule.
var DefaultCycles = NewCycles(DefaultCycleRule)

// NewCycles returns the schedule of a chain whose rule never changed.
func NewCycles(r CycleRule) Cycles { return Cycles{eras: []Era{{CycleRule: r}}} }

// CyclesOf returns the schedule of eras: the first starts at block 0
// with cycle 0, and each next one at the first block of a cycle of the
// era before it.
func CyclesOf(eras []Era) (Cycles, error) {
	if len(eras) == 0 || eras[0].Start != 0 || eras[0].Cycle != 0 {
		return Cycles{}, fmt.Errorf("%w: the first era must start at block 0, cycle 0", ErrCycleRule)
	}
	for i, e := range eras {
		if err := e.Check(); err != nil {
			return Cycles{}, fmt.Errorf("era %d: %w", i, err)
		}
		if i == 0 {
			continue
		}
		p := eras[i-1]
		if e.Cycle <= p.Cycle || e.Start != p.Start+(e.Cycle-p.Cycle)*p.Length {
			return Cycles{}, fmt.Errorf("%w: era %d (block %d, cycle %d) does not start a cycle after era %d", ErrCycleRule, i, e.Start, e.Cycle, i-1)
		}
	}
	return Cycles{eras: append([]Era(nil), eras...)}, nil
}

// Eras returns the schedule's eras, oldest first.
func (c Cycles) Eras() []Era { return append([]Era(nil), c.all()...) }

// Then returns the schedule with rule r from cycle cy on; cy must be after
// the cycle the last era opens. It returns c itself when r is the rule
// already in force.
func (c Cycles) Then(cy uint64, r CycleRule) (Cycles, error) {
	eras := c.all()
	last := eras[len(eras)-1]
	if r == last.CycleRule {
		return c, nil
	}
	return CyclesOf(append(c.Eras(), Era{Start: c.First(cy), Cycle: cy, CycleRule: r}))
}

// atBlock is the era block n belongs to.
func (c Cycles) atBlock(n uint64) Era {
	eras := c.all()
	i := sort.Search(len(eras), func(i int) bool { return eras[i].Start > n })
	return eras[i-1]
}

// atCycle is the era cycle cy belongs to.
func (c Cycles) atCycle(cy uint64) Era {
	eras := c.all()
	i := sort.Search(len(eras), func(i int) bool { return eras[i].Cycle > cy })
	return eras[i-1]
}

// Rule returns the rule of cycle cy.
func (c Cycles) Rule(cy uint64) CycleRule { return c.atCycle(cy).CycleRule }

// Of returns the cycle of block number n.
func (c Cycles) Of(n uint64) uint64 {
	e := c.atBlock(n)
	return e.Cycle + (n-e.Start)/e.Length
}

// First returns the first block of cycle cy.
func (c Cycles) First(cy uint64) uint64 {
	e := c.atCycle(cy)
	return e.Start + (cy-e.Cycle)*e.Length
}

// Last returns the last block of cycle cy.
func (c Cycles) Last(cy uint64) uint64 { return c.First(cy) + c.Rule(cy).Length - 1 }

// SelectionBlock returns the block of cycle cy at whose end the next
// cycle's validators are chosen.
func (c Cycles) SelectionBlock(cy uint64) uint64 { return c.First(cy) + c.Rule(cy).Selection }

// SetBlock returns the block whose post-state holds the validators chosen
// for cycle cy: the previous cycle's selection block (block 0, the
// genesis, for cycle 0).
func (c Cycles) SetBlock(cy uint64) uint64 {
	if cy == 0 {
		return 0
	}
	return c.SelectionBlock(cy - 1)
}

// offset is block n's position in its cycle and the cycle's rule.
func (c Cycles) offset(n uint64) (uint64, CycleRule) {
	e := c.atBlock(n)
	return (n - e.Start) % e.Length, e.CycleRule
}

// IsFirst reports whether block n opens its cycle.
func (c Cycles) IsFirst(n uint64) bool {
	o, _ := c.offset(n)
	return o == 0
}

// IsSelection reports whether block n is its cycle's selection block.
func (c Cycles) IsSelection(n uint64) bool {
	o, r := c.offset(n)
	return o == r.Selection
}

// IsLast reports whether block n is its cycle's last block.
func (c Cycles) IsLast(n uint64) bool {
	o, r := c.offset(n)
	return o == r.Length-1
}
