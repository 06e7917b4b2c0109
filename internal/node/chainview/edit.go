package chainview

import (
	"errors"
	"fmt"

	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
)

// A development node's test helpers (setBalance, setCode, snapshots...)
// change the state of the head without making a block, and rewind the
// head to an earlier block. What follows serves them; a node that runs
// none of them never calls it.

// ErrHeadMoved is returned when the head is no longer the block whose
// state was to change: the change must be made again on the new head.
var ErrHeadMoved = errors.New("chainview: the head moved")

// SetHeadState commits st, opened on the state of block head (State), and
// makes it the head's state: reads of the head see it, the pool admits by
// it and the next block is built on it. Its trie nodes are written at
// once (chain.CommitState), so the root stays readable whatever happens
// next. It returns the new root.
func (v *View) SetHeadState(head types.Hash, st *state.StateDB) (types.Hash, error) {
	if v.chain.Head().Hash() != head {
		return types.Hash{}, ErrHeadMoved
	}
	root, err := v.chain.CommitState(st)
	if err != nil {
		return types.Hash{}, err
	}
	return root, v.UseHeadState(head, root)
}

// UseHeadState makes root, a state root stored earlier (by SetHeadState),
// the head's state, as a snapshot revert does.
func (v *View) UseHeadState(head, root types.Hash) error {
	h := v.chain.Head()
	if h.Hash() != head {
		return ErrHeadMoved
	}
	st, err := v.chain.StateAt(root)
	if err != nil {
		return fmt.Errorf("state %s: %w", root, err)
	}
	st.Release()
	v.mu.Lock()
	defer v.mu.Unlock()
	if root == h.Root() {
		delete(v.roots, head)
		return nil
	}
	if v.roots == nil {
		v.roots = map[types.Hash]types.Hash{}
	}
	v.roots[head] = root
	v.edited.Store(true)
	return nil
}

// Rewind makes canonical block num the head again (chain.Rewind) and
// forgets the states the helpers made of the blocks it drops.
func (v *View) Rewind(num uint64) error {
	old := v.chain.Head().Number()
	var dropped []types.Hash
	for n := num + 1; n <= old; n++ {
		dropped = append(dropped, v.chain.GetHash(n))
	}
	if err := v.chain.Rewind(num); err != nil {
		return err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	for _, h := range dropped {
		delete(v.roots, h)
	}
	return nil
}
