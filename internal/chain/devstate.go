package chain

import (
	"fmt"

	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
)

// A development chain's test helpers (setBalance, setCode, snapshots...)
// change the state of the head without making a block, and rewind the
// head to an earlier block. The chain stores what they make (CommitState)
// and rewinds (Rewind); which state stands for a block is theirs to say
// (internal/node/chainview): the chain itself reads every block's state at
// its header's root. A chain that runs none of them behaves exactly as
// without this file.

// CommitState writes st, a state opened on a stored root and changed
// outside any block, and returns its root. Its trie nodes are written at
// once, not with the next block, so the root stays readable whatever
// happens next.
func (c *Chain) CommitState(st *state.StateDB) (types.Hash, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	root, err := st.Commit(c.Config.Fork(c.head.Number()+1, c.head.Time()+1) >= forks.SpuriousDragon)
	if err != nil {
		c.db.Discard()
		return types.Hash{}, err
	}
	c.recordKeys(st)
	if err := c.db.Flush(); err != nil {
		return types.Hash{}, err
	}
	return root, nil
}

// Rewind makes canonical block num the head again, as if the blocks after
// it had never been made: their canonical entries, transaction lookups,
// blooms, certificates and history-index entries go, in one atomic write.
// The state of block num must still be stored. A development chain's
// latest chain ID stays the one of the blocks to come (chainids.go).
func (c *Chain) Rewind(num uint64) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	old := c.head.Number()
	if num > old {
		return fmt.Errorf("chain: cannot rewind to block %d, the head is %d", num, old)
	}
	if num == old {
		return nil
	}
	target, err := c.BlockByNumber(num)
	if err != nil {
		return fmt.Errorf("block %d: %w", num, err)
	}
	if _, err := state.New(c.stateRootOf(target.Root()), c.db); err != nil {
		return fmt.Errorf("state of block %d: %w", num, err)
	}
	if err := c.switchCanonical(&canonSwitch{base: target, forget: true}); err != nil {
		return err
	}
	c.setHead(target)
	return c.rewindChainIDs(num)
}

// RecordKeys makes the chain remember every address and storage slot the
// states it commits touch, from now on, starting with seed: a
// development chain lists its accounts from them (DumpState).
func (c *Chain) RecordKeys(seed map[types.Address][]types.Hash) {
	c.keysMu.Lock()
	defer c.keysMu.Unlock()
	c.keys = map[types.Address]map[types.Hash]struct{}{}
	for a, slots := range seed {
		c.addKeys(a, slots)
	}
}

// addKeys records addr and slots; called with c.keysMu held.
func (c *Chain) addKeys(addr types.Address, slots []types.Hash) {
	m := c.keys[addr]
	if m == nil {
		m = map[types.Hash]struct{}{}
		c.keys[addr] = m
	}
	for _, k := range slots {
		m[k] = struct{}{}
	}
}

// recordKeys records what st touched, when RecordKeys is on.
func (c *Chain) recordKeys(st *state.StateDB) {
	c.keysMu.Lock()
	defer c.keysMu.Unlock()
	if c.keys == nil {
		return
	}
	st.Touched(c.addKeys)
}

// Keys returns the recorded addresses and their storage slots; nil unless
// RecordKeys is on. The result is the caller's.
func (c *Chain) Keys() map[types.Address][]types.Hash {
	c.keysMu.Lock()
	defer c.keysMu.Unlock()
	if c.keys == nil {
		return nil
	}
	out := make(map[types.Address][]types.Hash, len(c.keys))
	for a, m := range c.keys {
		slots := make([]types.Hash, 0, len(m))
		for k := range m {
			slots = append(slots, k)
		}
		out[a] = slots
	}
	return out
}

// Flush writes what is pending (trie nodes of a state committed outside a
// block) without a block. What was pending is used up, written or not: on
// an error the caller discards what was staged since, as before.
func (db *DB) Flush() error {
	db.flushMu.Lock()
	defer db.flushMu.Unlock()
	db.mu.Lock()
	defer db.mu.Unlock()
	return db.writePending()
}
