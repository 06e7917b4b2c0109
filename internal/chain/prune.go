package chain

import (
	"errors"
	"fmt"

	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rlp"
	"github.com/chaind/chaind/trie"
)

// Pruning keeps the state of recent blocks only. Trie nodes and code are
// stored by hash and shared between the states of many blocks, so nothing
// can be deleted when a block ages out; instead a mark-and-sweep pass finds
// every node reachable from the state roots to keep and deletes the rest:
//
//  1. mark, without holding the chain: walk the kept roots, collecting
//     node and code hashes, while the store records every node written
//     meanwhile;
//  2. sweep: list the stored nodes not marked, then, holding the chain so
//     no block commits, delete each of them not written since the mark
//     began.
//
// Every node of a block committed after the mark began is either new (so
// recorded) or inherited from its parent's trie, and by induction from the
// head's trie at the start, which was marked: the sweep never takes a node
// a kept or future state needs.

// PruneStats reports what a pruning pass did.
type PruneStats struct {
	Roots   int // state roots kept
	Kept    int // nodes and code blobs reachable from them
	Deleted int // nodes and code blobs removed
}

// ErrPruneBusy is returned when a pruning pass is already running.
var ErrPruneBusy = errors.New("a pruning pass is already running")

// Prune deletes the trie nodes and code that the states of the last keep
// blocks (the head included) and of the genesis do not use. Older states
// become unreadable.
func (c *Chain) Prune(keep uint64) (PruneStats, error) {
	if keep == 0 {
		keep = 1
	}
	if !c.db.startTracking() {
		return PruneStats{}, ErrPruneBusy
	}
	defer c.db.stopTracking()

	head := c.Head()
	first := c.Genesis().Number() // a fork's chain starts above 0
	if head.Number()+1 > first+keep {
		first = head.Number() + 1 - keep
	}
	marked := map[[32]byte]struct{}{}
	var st PruneStats
	seen := map[types.Hash]bool{}
	// The genesis state is kept too: a development chain resets to it,
	// and it is small.
	for n := first; n <= head.Number()+1; n++ {
		var b *types.Block
		var err error
		if n == head.Number()+1 {
			b = c.Genesis()
		} else if b, err = c.BlockByNumber(n); err != nil {
			return st, fmt.Errorf("prune: block %d: %w", n, err)
		}
		if seen[b.Root()] {
			continue
		}
		seen[b.Root()] = true
		st.Roots++
		if err := c.markState(c.stateRootOf(b.Root()), marked); err != nil {
			return st, fmt.Errorf("prune: state of block %d: %w", n, err)
		}
	}
	st.Kept = len(marked)

	// The candidates are listed without holding the chain either: a node
	// written meanwhile is recorded, and the filter below runs locked.
	var doomed [][]byte
	err := c.db.kv.IterateKeys(prefixNode, func(k []byte) bool {
		if len(k) != len(prefixNode)+32 {
			return true
		}
		h := [32]byte(k[len(prefixNode):])
		if _, ok := marked[h]; ok {
			return true
		}
		doomed = append(doomed, append([]byte(nil), k...))
		return true
	})
	if err != nil {
		return st, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	written := c.db.tracked()
	var del store.Batch
	for _, k := range doomed {
		if _, ok := written[[32]byte(k[len(prefixNode):])]; ok {
			continue
		}
		del.Delete(k)
		st.Deleted++
	}
	if err := c.db.kv.Write(&del); err != nil {
		return st, err
	}
	return st, nil
}

// markState marks the account trie at root, every storage trie and every
// code blob its accounts use.
func (c *Chain) markState(root types.Hash, marked map[[32]byte]struct{}) error {
	return c.markTrie([32]byte(root), marked, func(leaf []byte) error {
		// An account is [nonce, balance, storageRoot, codeHash].
		content, _, err := rlp.SplitList(leaf)
		if err != nil {
			return err
		}
		for i := 0; i < 2; i++ {
			if _, content, err = rlp.SplitRaw(content); err != nil {
				return err
			}
		}
		sr, content, err := rlp.SplitString(content)
		if err != nil || len(sr) != 32 {
			return fmt.Errorf("account storage root: %v", err)
		}
		ch, _, err := rlp.SplitString(content)
		if err != nil || len(ch) != 32 {
			return fmt.Errorf("account code hash: %v", err)
		}
		if types.Hash(ch) != types.EmptyCodeHash {
			marked[[32]byte(ch)] = struct{}{}
		}
		if types.Hash(sr) != types.EmptyRootHash {
			return c.markTrie([32]byte(sr), marked, nil)
		}
		return nil
	})
}

// markTrie marks every stored node of the trie at root, calling leaf (if
// not nil) with each value.
func (c *Chain) markTrie(root [32]byte, marked map[[32]byte]struct{}, leaf func([]byte) error) error {
	if types.Hash(root) == types.EmptyRootHash {
		return nil
	}
	stack := [][32]byte{root}
	for len(stack) > 0 {
		h := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if _, ok := marked[h]; ok {
			continue // a subtree shared with a state walked before: done
		}
		blob, err := c.db.Node(h)
		if errors.Is(err, trie.ErrMissingNode) && c.Fork() != nil {
			continue // a fork's upstream node never fetched: nothing stored to keep
		}
		if err != nil {
			return err
		}
		marked[h] = struct{}{}
		if err := walkNode(blob, &stack, leaf); err != nil {
			return fmt.Errorf("node %x: %w", h, err)
		}
	}
	return nil
}

// walkNode pushes the hashed children of an encoded node, descends into
// embedded ones and reports leaf values.
func walkNode(enc []byte, stack *[][32]byte, leaf func([]byte) error) error {
	content, _, err := rlp.SplitList(enc)
	if err != nil {
		return err
	}
	var items [][]byte
	for rest := content; len(rest) > 0; {
		var item []byte
		if item, rest, err = rlp.SplitRaw(rest); err != nil {
			return err
		}
		items = append(items, item)
	}
	child := func(item []byte) error {
		k, c, _, err := rlp.Split(item)
		if err != nil {
			return err
		}
		switch {
		case k == rlp.List:
			return walkNode(item, stack, leaf)
		case len(c) == 32:
			*stack = append(*stack, [32]byte(c))
		case len(c) != 0:
			return fmt.Errorf("child reference of %d bytes", len(c))
		}
		return nil
	}
	switch len(items) {
	case 17:
		for _, it := range items[:16] {
			if err := child(it); err != nil {
				return err
			}
		}
		return nil
	case 2:
		key, _, err := rlp.SplitString(items[0])
		if err != nil || len(key) == 0 {
			return fmt.Errorf("short node key: %v", err)
		}
		if key[0]&0x20 == 0 { // extension: the value is a child
			return child(items[1])
		}
		if leaf == nil {
			return nil
		}
		v, _, err := rlp.SplitString(items[1])
		if err != nil {
			return err
		}
		return leaf(v)
	}
	return fmt.Errorf("node of %d items", len(items))
}

var _ trie.Reader = (*DB)(nil)
