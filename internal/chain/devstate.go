package chain

import (
	"errors"
	"fmt"

	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
)

// A development chain's test helpers (setBalance, setCode, snapshots…)
// change the state of the head without making a block, and rewind the
// head to an earlier block. Everything here serves them; a chain that runs
// none of them behaves exactly as without it.

// headState is a state root that stands for the head's own: the head's
// state with the helpers' changes. The next block is built on it, so its
// state root covers them.
type headState struct {
	block types.Hash // the head it belongs to; stale once the head moves
	root  types.Hash
}

// StateRoot is the root of the state to read "after block h": the
// header's own, or for the head the state the test helpers made of it.
func (c *Chain) StateRoot(h *types.Header) types.Hash {
	hs := c.headState.Load()
	if hs == nil && !c.devRootsUsed.Load() {
		return h.Root
	}
	hash := h.Hash()
	if hs != nil && hs.block == hash {
		return hs.root
	}
	if c.devRootsUsed.Load() {
		c.devMu.RLock()
		root, ok := c.devRoots[hash]
		c.devMu.RUnlock()
		if ok {
			return root
		}
	}
	return h.Root
}

// keepHeadState is called when a block is committed on the head: the
// state the helpers made of the old head stays that block's state, as
// Hardhat and anvil keep it, so reads at that block (a balance before and
// after a transaction) see it. Called with c.mu held.
func (c *Chain) keepHeadState() {
	hs := c.headState.Load()
	if hs == nil {
		return
	}
	c.devMu.Lock()
	if c.devRoots == nil {
		c.devRoots = map[types.Hash]types.Hash{}
	}
	c.devRoots[hs.block] = hs.root
	c.devMu.Unlock()
	c.devRootsUsed.Store(true)
	c.headState.Store(nil)
}

// HeadStateRoot is StateRoot of the head.
func (c *Chain) HeadStateRoot() types.Hash { return c.StateRoot(c.Head().HeaderRef()) }

// HeadState opens the state the next block builds on.
func (c *Chain) HeadState() (*state.StateDB, error) { return c.StateAt(c.HeadStateRoot()) }

// ErrHeadMoved is returned by SetHeadState when the head is no longer the
// block whose state was changed: the change must be made again on the new
// head.
var ErrHeadMoved = errors.New("chain: the head moved")

// SetHeadState commits st, opened on the state of block head, and makes
// it the head's state. Its trie nodes are written at once, not with the
// next block, so the root stays readable whatever happens next. A zero
// st leaves the head's state as the block made it.
func (c *Chain) SetHeadState(head types.Hash, st *state.StateDB) (types.Hash, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.head.Hash() != head {
		return types.Hash{}, ErrHeadMoved
	}
	if st == nil {
		c.headState.Store(nil)
		return c.head.Root(), nil
	}
	root, err := st.Commit(c.Config.Fork(c.head.Number()+1, c.head.Time()+1) >= forks.SpuriousDragon)
	if err != nil {
		c.db.Discard()
		return types.Hash{}, err
	}
	c.recordKeys(st)
	if err := c.db.Flush(); err != nil {
		return types.Hash{}, err
	}
	c.setHeadRoot(root)
	return root, nil
}

// UseHeadStateRoot makes root, a state root stored earlier (by
// SetHeadState), the head's state, as a snapshot revert does.
func (c *Chain) UseHeadStateRoot(head, root types.Hash) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.head.Hash() != head {
		return ErrHeadMoved
	}
	if _, err := state.New(root, c.db); err != nil {
		return fmt.Errorf("state %s: %w", root, err)
	}
	c.setHeadRoot(root)
	return nil
}

// setHeadRoot records root as the head's state; called with c.mu held.
func (c *Chain) setHeadRoot(root types.Hash) {
	c.devMu.Lock()
	delete(c.devRoots, c.head.Hash()) // what the head kept from before a rewind
	c.devMu.Unlock()
	if root == c.head.Root() {
		c.headState.Store(nil)
		return
	}
	c.headState.Store(&headState{block: c.head.Hash(), root: root})
}

// Rewind makes canonical block num the head again, as if the blocks after
// it had never been made: their canonical entries, transaction lookups,
// blooms, certificates and history-index entries go, in one atomic write.
// The state of block num must still be stored.
func (c *Chain) Rewind(num uint64) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.head.Number()
	if num > old {
		return fmt.Errorf("chain: cannot rewind to block %d, the head is %d", num, old)
	}
	if num == old {
		c.headState.Store(nil)
		return nil
	}
	target, err := c.BlockByNumber(num)
	if err != nil {
		return fmt.Errorf("block %d: %w", num, err)
	}
	if _, err := state.New(c.stateRootOf(target.Root()), c.db); err != nil {
		return fmt.Errorf("state of block %d: %w", num, err)
	}
	var dropped []types.Hash
	for n := num + 1; n <= old; n++ {
		if h, ok := c.db.CanonicalHash(n); ok {
			dropped = append(dropped, h)
		}
	}
	if err := c.switchCanonical(&canonSwitch{base: target, forget: true}); err != nil {
		return err
	}
	c.head = target
	c.headState.Store(nil)
	c.devMu.Lock()
	for _, h := range dropped {
		delete(c.devRoots, h)
	}
	c.devMu.Unlock()
	return nil
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
// block) without a block.
func (db *DB) Flush() error {
	db.mu.Lock()
	defer db.mu.Unlock()
	if err := db.writePending(); err != nil {
		return err
	}
	db.pending.Reset()
	clear(db.overlay)
	return nil
}
