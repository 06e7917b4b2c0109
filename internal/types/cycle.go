package types

// Cycles is chaind's cycle rule: a cycle is Length consecutive blocks
// (cycle = floor(block / Length)); validator-set changes, rewards and
// penalties take effect at cycle boundaries. The set of the next cycle is
// chosen at the end of the cycle's block Selection (counted from 0),
// early enough that every node knows a height's set a few heights before
// it gets there, as the consensus core must to check votes that arrive
// ahead of time. It is the one place the arithmetic lives: the staking
// end-of-block rule, the engine's validator sets, chain_getCycleInfo, the
// node/cycle feed and the explorer all ask it.
type Cycles struct {
	Length    uint64
	Selection uint64
}

// DefaultCycles is the rule of the spec: ten-block cycles, the next set
// chosen at the end of each cycle's sixth block.
var DefaultCycles = Cycles{Length: 10, Selection: 5}

// Of returns the cycle of block number n.
func (c Cycles) Of(n uint64) uint64 { return n / c.Length }

// First returns the first block of cycle cy.
func (c Cycles) First(cy uint64) uint64 { return cy * c.Length }

// Last returns the last block of cycle cy.
func (c Cycles) Last(cy uint64) uint64 { return c.First(cy) + c.Length - 1 }

// SelectionBlock returns the block of cycle cy at whose end the next
// cycle's validators are chosen.
func (c Cycles) SelectionBlock(cy uint64) uint64 { return c.First(cy) + c.Selection }

// SetBlock returns the block whose post-state holds the validators chosen
// for cycle cy: the previous cycle's selection block (block 0, the
// genesis, for cycle 0).
func (c Cycles) SetBlock(cy uint64) uint64 {
	if cy == 0 {
		return 0
	}
	return c.SelectionBlock(cy - 1)
}

// IsFirst reports whether block n opens its cycle.
func (c Cycles) IsFirst(n uint64) bool { return n%c.Length == 0 }

// IsSelection reports whether block n is its cycle's selection block.
func (c Cycles) IsSelection(n uint64) bool { return n%c.Length == c.Selection }

// IsLast reports whether block n is its cycle's last block.
func (c Cycles) IsLast(n uint64) bool { return n%c.Length == c.Length-1 }
