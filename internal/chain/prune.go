package chain

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rlp"
	"github.com/chaind/chaind/state"
	"github.com/chaind/chaind/trie"
)

// Pruning keeps the state of recent blocks only. Trie nodes and code are
// stored by hash and shared: between the states of many blocks, between
// identical subtrees of one state (two contracts with the same storage
// share a whole storage trie), and with states yet to come (a value set
// back makes the old node again). So a node a block replaced cannot be
// deleted by reference or age alone: it may still sit elsewhere in a kept
// or a future trie, and counting references would cost a read and write
// per node per block. Pruning stays a mark and a sweep, made incremental:
//
//  1. mark, without holding the chain: every node of the head's state,
//     then, for each older kept state, only what differs from the next
//     newer one (both tries walked in step; a subtree whose hash is the
//     same at the same path is the same subtree, already marked), into a
//     Bloom filter sized to the stored nodes. The filter bounds the memory
//     (about 10 bits a node, where a set of hashes took some 80 bytes);
//     a false positive only keeps a dead node until a later pass. The
//     store records every node written meanwhile;
//  2. sweep, the stored nodes one 1/256th of the key space at a time:
//     the unmarked ones are listed without the chain, then deleted in
//     slices of at most pruneSlice keys, each skipping nodes written since
//     the mark began and written without holding the chain (prunedel.go):
//     a commit waits only for the filter of one slice, or for one slice's
//     write when it makes one of its nodes again (PruneStats.Pauses;
//     BenchmarkPrunePause).
//
// Every node of a block committed after the mark began is either new (so
// recorded) or inherited from its parent's trie, and by induction from the
// head's trie at the start, which was marked: the sweep never takes a node
// a kept or future state needs. TestPruneKeepsReachable checks it.

// PruneStats reports what a pruning pass did.
type PruneStats struct {
	Roots   int // state roots kept
	Kept    int // nodes and code blobs marked
	Deleted int // nodes and code blobs removed
	// Pauses are the holds of the lock a commit also takes, one per
	// slice of deletes; Waits are the waits of commits that wrote a node
	// of a slice in flight again (prunedel.go).
	Pauses, Waits []time.Duration
}

// MaxPause is the longest the pass held the chain.
func (s PruneStats) MaxPause() time.Duration {
	var m time.Duration
	for _, p := range s.Pauses {
		m = max(m, p)
	}
	return m
}

// ErrPruneBusy is returned when a pruning pass is already running.
var ErrPruneBusy = errors.New("a pruning pass is already running")

// pruneSlice bounds the deletions one locked step of the sweep makes.
const pruneSlice = 1024

// Prune deletes the trie nodes and code that the states of the last keep
// blocks (the head included) and of the genesis do not use. Older states
// become unreadable (their flat copy, if any, is the journal's and goes
// with it).
func (c *Chain) Prune(keep uint64) (PruneStats, error) {
	if keep == 0 {
		keep = 1
	}
	if !c.db.startTracking() {
		return PruneStats{}, ErrPruneBusy
	}
	defer c.db.stopTracking()

	head := c.settledHead()
	first := c.Genesis().Number() // a fork's chain starts above 0
	if head.Number()+1 > first+keep {
		first = head.Number() + 1 - keep
	}
	// States long reads hold are kept as well, and no state older than
	// first can be pinned from now on (statepin.go).
	held := c.pins.pinnedBelow(first)
	var st PruneStats
	stored := 0
	if err := c.db.kv.IterateKeys(prefixNode, func([]byte) bool { stored++; return true }); err != nil {
		return st, err
	}
	m := &marker{c: c, bloom: newBloom(stored)}
	// Newest first: each older state is walked where it differs from the
	// one after it.
	var next types.Hash
	for n := head.Number(); n+1 > first; n-- {
		b, err := c.BlockByNumber(n)
		if err != nil {
			return st, fmt.Errorf("prune: block %d: %w", n, err)
		}
		root := c.stateRootOf(b.Root())
		if root == next {
			continue
		}
		st.Roots++
		if err := m.state(root, next); err != nil {
			return st, fmt.Errorf("prune: state of block %d: %w", n, err)
		}
		next = root
		if n == 0 {
			break
		}
	}
	// The genesis state is kept too: a development chain resets to it,
	// and it is small.
	if g := c.stateRootOf(c.Genesis().Root()); g != next {
		st.Roots++
		if err := m.state(g, types.Hash{}); err != nil {
			return st, fmt.Errorf("prune: genesis state: %w", err)
		}
	}
	headRoot := c.stateRootOf(head.Root())
	for _, n := range held {
		b, err := c.BlockByNumber(n)
		if err != nil {
			return st, fmt.Errorf("prune: pinned block %d: %w", n, err)
		}
		st.Roots++
		if err := m.state(c.stateRootOf(b.Root()), headRoot); err != nil {
			return st, fmt.Errorf("prune: pinned state of block %d: %w", n, err)
		}
	}
	st.Kept = m.marked
	for shard := 0; shard < 256; shard++ {
		if err := c.sweep(byte(shard), m.bloom, &st); err != nil {
			return st, err
		}
	}
	return st, nil
}

// sweep deletes the unmarked nodes whose hash starts with shard.
func (c *Chain) sweep(shard byte, marked *bloom, st *PruneStats) error {
	prefix := append(append([]byte(nil), prefixNode...), shard)
	var doomed [][]byte
	err := c.db.kv.IterateKeys(prefix, func(k []byte) bool {
		if len(k) == len(prefixNode)+32 && !marked.has([32]byte(k[len(prefixNode):])) {
			doomed = append(doomed, append([]byte(nil), k...))
		}
		return true
	})
	if err != nil {
		return err
	}
	for len(doomed) > 0 {
		n := min(len(doomed), pruneSlice)
		if err := c.deleteUnwritten(doomed[:n], st); err != nil {
			return err
		}
		doomed = doomed[n:]
	}
	return nil
}

// deleteUnwritten deletes keys not written since the mark began
// (deleteNodes: no lock is held across the write).
func (c *Chain) deleteUnwritten(keys [][]byte, st *PruneStats) error {
	hs := make([][32]byte, len(keys))
	for i, k := range keys {
		hs[i] = [32]byte(k[len(prefixNode):])
	}
	n, held, err := c.db.deleteNodes(hs, nil, nil)
	st.Deleted += n
	st.Pauses = append(st.Pauses, held)
	st.Waits = append(st.Waits, c.db.delWaits.take()...)
	return err
}

// marker marks the nodes and code of kept states in a Bloom filter.
type marker struct {
	c      *Chain
	bloom  *bloom
	marked int
}

// nodeRef is a child reference as a node holds it: a hash, or nothing.
// An embedded node (under 32 bytes) is not stored on its own and holds no
// hash (a hash alone is 33 bytes): there is nothing in it to mark.
type nodeRef struct {
	hash [32]byte
	ok   bool
}

func refOf(item []byte) (nodeRef, error) {
	k, c, _, err := rlp.Split(item)
	if err != nil {
		return nodeRef{}, err
	}
	if k == rlp.String && len(c) == 32 {
		return nodeRef{hash: [32]byte(c), ok: true}, nil
	}
	return nodeRef{}, nil
}

func rootRef(root types.Hash) nodeRef {
	if root == (types.Hash{}) || root == types.EmptyRootHash {
		return nodeRef{}
	}
	return nodeRef{hash: [32]byte(root), ok: true}
}

// state marks the state at root where it differs from the state at other
// (zero: all of it), which is marked already.
func (m *marker) state(root, other types.Hash) error {
	return m.diff(rootRef(root), rootRef(other), m.account)
}

// account marks what an account leaf of a marked state needs beyond what
// the same account in the other state (hasB) already had.
func (m *marker) account(va, vb []byte, hasB bool) error {
	a, err := state.DecodeAccount(va)
	if err != nil {
		return err
	}
	var b state.Account
	if hasB {
		if b, err = state.DecodeAccount(vb); err != nil {
			hasB = false
		}
	}
	if a.CodeHash != types.EmptyCodeHash && (!hasB || a.CodeHash != b.CodeHash) {
		m.add([32]byte(a.CodeHash))
	}
	other := nodeRef{}
	if hasB {
		other = rootRef(b.Root)
	}
	return m.diff(rootRef(a.Root), other, nil)
}

func (m *marker) add(h [32]byte) {
	m.bloom.add(h)
	m.marked++
}

// load reads a node; ok is false for a fork's upstream node never fetched
// (nothing stored to keep).
func (m *marker) load(h [32]byte) ([]byte, bool, error) {
	blob, err := m.c.db.Node(h)
	if errors.Is(err, trie.ErrMissingNode) && m.c.Fork() != nil {
		return nil, false, nil
	}
	return blob, err == nil, err
}

// diff marks the trie below a, walking b (a marked trie at the same path)
// in step: where both hold the same hash, the subtree is the same and is
// skipped. leaf, when set, gets each value of a with b's at the same key.
func (m *marker) diff(a, b nodeRef, leaf func(va, vb []byte, hasB bool) error) error {
	if !a.ok || (b.ok && a.hash == b.hash) {
		return nil
	}
	encA, ok, err := m.load(a.hash)
	if err != nil || !ok {
		return err
	}
	m.add(a.hash)
	itemsA, err := nodeItems(encA)
	if err != nil {
		return fmt.Errorf("node %x: %w", a.hash, err)
	}
	var itemsB [][]byte
	if b.ok {
		if encB, ok, err := m.load(b.hash); err == nil && ok {
			itemsB, _ = nodeItems(encB)
		}
	}
	switch len(itemsA) {
	case 17:
		for i := 0; i < 16; i++ {
			ca, err := refOf(itemsA[i])
			if err != nil {
				return err
			}
			var cb nodeRef
			if len(itemsB) == 17 {
				cb, _ = refOf(itemsB[i])
			}
			if err := m.diff(ca, cb, leaf); err != nil {
				return err
			}
		}
		return nil
	case 2:
		key, _, err := rlp.SplitString(itemsA[0])
		if err != nil || len(key) == 0 {
			return fmt.Errorf("node %x: short node key: %v", a.hash, err)
		}
		sameKey := false
		if len(itemsB) == 2 {
			keyB, _, err := rlp.SplitString(itemsB[0])
			sameKey = err == nil && string(keyB) == string(key)
		}
		if key[0]&0x20 == 0 { // extension: the value is a child
			ca, err := refOf(itemsA[1])
			if err != nil {
				return err
			}
			var cb nodeRef
			if sameKey {
				cb, _ = refOf(itemsB[1])
			}
			return m.diff(ca, cb, leaf)
		}
		if leaf == nil {
			return nil
		}
		va, _, err := rlp.SplitString(itemsA[1])
		if err != nil {
			return err
		}
		var vb []byte
		if sameKey {
			if vb, _, err = rlp.SplitString(itemsB[1]); err != nil {
				sameKey = false
			}
		}
		return leaf(va, vb, sameKey)
	}
	return fmt.Errorf("node %x of %d items", a.hash, len(itemsA))
}

// nodeItems splits an encoded node into its items.
func nodeItems(enc []byte) ([][]byte, error) {
	content, _, err := rlp.SplitList(enc)
	if err != nil {
		return nil, err
	}
	// A branch's 17 items at most, in one allocation: appending grew the
	// slice five times a branch, 2% of a loaded 10M-account node's CPU
	// through the pruner's walk of every block (stateDiff).
	items := make([][]byte, 0, 17)
	for rest := content; len(rest) > 0; {
		var item []byte
		if item, rest, err = rlp.SplitRaw(rest); err != nil {
			return nil, err
		}
		items = append(items, item)
	}
	return items, nil
}

// bloom is a Bloom filter over node hashes. The hashes are uniform
// already, so its k probes are read from the hash's own bytes, offset by
// a salt: a mark's filter takes a new salt each pass, so a dead node a
// false positive kept is likely caught by the next pass; the genesis pin
// set (prunepin.go) stores its salt.
type bloom struct {
	bits   []uint64
	salt   uint32
	probes int
}

// bloomBitsPerKey gives a false-positive rate of about 1% with 7 probes.
const (
	bloomBitsPerKey = 10
	bloomProbes     = 7
)

var bloomSalt atomic.Uint32

func newBloom(keys int) *bloom {
	words := max(keys*bloomBitsPerKey/64, 1<<10)
	return &bloom{bits: make([]uint64, words), salt: bloomSalt.Add(1), probes: bloomProbes}
}

func (b *bloom) probe(h *[32]byte, i int) (int, uint64) {
	off := (int(b.salt) + 4*i) % 29
	v := binary.LittleEndian.Uint32(h[off:]) ^ b.salt*0x9e3779b9
	bit := uint64(v) % uint64(len(b.bits)*64)
	return int(bit / 64), 1 << (bit % 64)
}

func (b *bloom) add(h [32]byte) {
	for i := 0; i < b.probes; i++ {
		w, m := b.probe(&h, i)
		b.bits[w] |= m
	}
}

func (b *bloom) has(h [32]byte) bool {
	for i := 0; i < b.probes; i++ {
		if w, m := b.probe(&h, i); b.bits[w]&m == 0 {
			return false
		}
	}
	return true
}

var _ trie.Reader = (*DB)(nil)
