package chain

import (
	"errors"
	"fmt"
	"sync"

	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
)

// A read of an old state (eth_call, eth_getProof, a trace at an old
// block) walks its trie for as long as it runs, while the pruner may drop
// that very state: it is the oldest kept one, and the next head moves the
// window past it. Without a guard the read would fail half way on a
// missing node. So a long read pins the state of its block (PinState,
// StateAtBlock) and the pruner leaves pinned states alone: the
// incremental pass stops before the journal that would end a pinned
// state and goes on at a later step, once the read released it; the mark
// and sweep pass marks pinned states as kept. Each pass first raises the
// floor, the lowest block whose state it has not begun to drop, under
// the same lock a pin takes, so a pin either comes before the pass saw
// the pins (and the pass keeps the state) or is refused (ErrStatePruned)
// — never a read of a state being deleted under it.

// ErrStatePruned: the state of the block asked for is no longer kept
// (pruning dropped it, or is dropping it now).
var ErrStatePruned = errors.New("state not available: pruned")

// statePins counts the open pins of each block number's state.
type statePins struct {
	mu    sync.Mutex
	floor uint64         // states of lower blocks are dropped or being dropped
	n     map[uint64]int // pins by block number
}

// PinState keeps the state of canonical block number from being pruned
// until release is called (once; more calls do nothing). It fails with
// ErrStatePruned if pruning dropped that state already or began to. The
// genesis state is always kept, and so is one pinned now: a mark and
// sweep pass raises the floor past the states it keeps for their pins.
func (c *Chain) PinState(number uint64) (release func(), err error) {
	p := &c.pins
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := c.pruned(number); err != nil {
		return nil, err
	}
	if p.n == nil {
		p.n = map[uint64]int{}
	}
	p.n[number]++
	return sync.OnceFunc(func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.n[number]--; p.n[number] <= 0 {
			delete(p.n, number)
		}
	}), nil
}

// StateKept returns ErrStatePruned if pruning dropped the state of block
// number or began to; nil says it was kept when asked (PinState keeps it
// so).
func (c *Chain) StateKept(number uint64) error {
	c.pins.mu.Lock()
	defer c.pins.mu.Unlock()
	return c.pruned(number)
}

// pruned is StateKept with c.pins.mu held.
func (c *Chain) pruned(number uint64) error {
	p := &c.pins
	if number < p.floor && p.n[number] == 0 && number != c.Genesis().Number() {
		return fmt.Errorf("%w: block %d (states kept from block %d)", ErrStatePruned, number, p.floor)
	}
	return nil
}

// StateAtBlock opens the state root of block number, pinned (PinState)
// until release: a read that walks it for long answers from the whole
// state or not at all.
func (c *Chain) StateAtBlock(number uint64, root types.Hash) (st *state.StateDB, release func(), err error) {
	release, err = c.PinState(number)
	if err != nil {
		return nil, nil, err
	}
	st, err = c.StateAt(root)
	if err != nil {
		release()
		return nil, nil, err
	}
	return st, release, nil
}

// raiseFloor lets a pass drop the states below block to, unless one of
// them is pinned: then it reports the lowest pinned block, and the pass
// may drop only what is below that.
func (p *statePins) raiseFloor(to uint64) (ok bool, pinned uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	lowest, any := uint64(0), false
	for n := range p.n {
		if n < to && (!any || n < lowest) {
			lowest, any = n, true
		}
	}
	if any {
		return false, lowest
	}
	p.floor = max(p.floor, to)
	return true, 0
}

// pinnedBelow raises the floor to to (a mark-and-sweep pass keeps the
// states from there) and returns the pinned blocks below it, whose states
// the pass keeps as well.
func (p *statePins) pinnedBelow(to uint64) []uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []uint64
	for n := range p.n {
		if n < to {
			out = append(out, n)
		}
	}
	p.floor = max(p.floor, to)
	return out
}

// lowered follows the head going back to block number (a rewind or a
// reset): the blocks after it are new, and so are their states.
func (p *statePins) lowered(number uint64) {
	p.mu.Lock()
	if number < p.floor {
		p.floor = number + 1
	}
	p.mu.Unlock()
}
