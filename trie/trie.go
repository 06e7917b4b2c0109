// Package trie implements Ethereum's Merkle-Patricia trie: the authenticated
// key-value map behind state, storage, transaction, receipt and withdrawal
// roots.
//
// A Trie is loaded lazily from a node Reader, modified in memory, hashed on
// demand and committed as a NodeSet of new nodes. Root hashes, node encodings
// and proofs are byte-for-byte those of Ethereum. StackTrie and ListRoot build
// the root of an ordered list without keeping a trie in memory. SecureTrie
// hashes keys with keccak256 as the state and storage tries do.
package trie

import (
	"bytes"
	"runtime"
	"sync"
	"sync/atomic"
)

// EmptyRoot is the root hash of the empty trie, keccak256(rlp("")).
var EmptyRoot = [32]byte{
	0x56, 0xe8, 0x1f, 0x17, 0x1b, 0xcc, 0x55, 0xa6, 0xff, 0x83, 0x45, 0xe6, 0x92, 0xc0, 0xf8, 0x6e,
	0x5b, 0x48, 0xe0, 0x1b, 0x99, 0x6c, 0xad, 0xc0, 0x01, 0x62, 0x2f, 0xb5, 0xe3, 0x63, 0xb4, 0x21,
}

// generations hands out owner tags. A trie modifies a node in place only
// when the node carries the trie's own tag; Copy gives both tries fresh tags
// so that neither can change what the other sees.
var generations atomic.Uint32

func newGen() uint32 { return generations.Add(1) }

// Trie is a Merkle-Patricia trie. It is not safe for concurrent use; use Copy
// to hand a trie to another goroutine.
type Trie struct {
	root     node
	db       Reader
	gen      uint32
	unhashed int // modifications since the last hash, to decide on parallel hashing
	// uncommitted counts the modifications since the last commit, to
	// decide on a parallel commit.
	uncommitted int

	// Allocation pools private to this trie (see alloc, newLeaf, newFull).
	arena                      []byte
	leafSlab                   []leafNode
	fullSlab                   []fullNode
	leafSlabSize, fullSlabSize int
	arenaSize                  int
}

// New opens the trie with the given root. The zero root and EmptyRoot open
// an empty trie; any other root must be present in db.
//
// The root node is looked up, so a missing one fails here, but decoded on
// the trie's first use: a state opened for one eth_call whose reads all
// come from a flat copy or a read cache never needs it.
func New(root [32]byte, db Reader) (*Trie, error) {
	t := &Trie{db: db, gen: newGen()}
	if root == ([32]byte{}) || root == EmptyRoot {
		return t, nil
	}
	h := hashNode(root)
	if db == nil {
		return nil, MissingNode(root)
	}
	if _, err := db.Node(root); err != nil {
		return nil, err
	}
	t.root = &h
	return t, nil
}

// NewEmpty returns an empty trie without a node store: it can only hold
// what is put into it, which is all a block list root or a test needs.
func NewEmpty() *Trie { return &Trie{gen: newGen()} }

func (t *Trie) resolve(h *hashNode) (node, error) {
	if t.db == nil {
		return nil, MissingNode(*h)
	}
	blob, err := t.db.Node(*h)
	if err != nil {
		return nil, err
	}
	return decodeNode(*h, blob, t.gen)
}

// alloc returns n bytes from the trie's arena. Keys and values are packed
// into shared chunks so that an insert costs no allocations of its own.
func (t *Trie) alloc(n int) []byte {
	if n > 256 {
		return make([]byte, n)
	}
	if cap(t.arena)-len(t.arena) < n {
		// Grow the chunk size with use so that the many small storage
		// tries of a block do not each reserve a large chunk.
		t.arenaSize = min(max(2*t.arenaSize, 512), 16384)
		t.arena = make([]byte, 0, t.arenaSize)
	}
	l := len(t.arena)
	t.arena = t.arena[:l+n]
	return t.arena[l : l+n : l+n]
}

// Get returns the value stored under key, or nil when there is none. The
// returned slice must not be modified.
func (t *Trie) Get(key []byte) ([]byte, error) {
	var buf [80]byte
	nib := appendNibbles(buf[:0], key)
	val, nn, resolved, err := t.get(t.root, nib)
	if err == nil && resolved {
		t.root = nn
	}
	return val, err
}

// get looks key up below n. When it had to load nodes it returns the
// replacement for n that has them attached, so later lookups are cheaper.
func (t *Trie) get(n node, key []byte) (val []byte, nn node, resolved bool, err error) {
	switch n := n.(type) {
	case nil:
		return nil, nil, false, nil
	case *leafNode:
		if bytes.Equal(n.key, key) {
			return n.val, n, false, nil
		}
		return nil, n, false, nil
	case *shortNode:
		if len(key) < len(n.key) || !bytes.Equal(n.key, key[:len(n.key)]) {
			return nil, n, false, nil
		}
		val, child, resolved, err := t.get(n.child, key[len(n.key):])
		if err == nil && resolved {
			n = t.ownShort(n)
			n.child = child
		}
		return val, n, resolved, err
	case *fullNode:
		if len(key) == 0 {
			return n.val, n, false, nil
		}
		val, child, resolved, err := t.get(n.children[key[0]], key[1:])
		if err == nil && resolved {
			n = t.ownFull(n)
			n.children[key[0]] = child
		}
		return val, n, resolved, err
	case *hashNode:
		child, err := t.resolve(n)
		if err != nil {
			return nil, n, false, err
		}
		val, nn, _, err := t.get(child, key)
		return val, nn, true, err
	}
	panic("trie: unknown node type")
}

// The own* helpers return a node this trie may modify: n itself, or a copy
// when n is shared. They keep the flags; callers that change the node's
// content mark it dirty.
func (t *Trie) ownFull(n *fullNode) *fullNode {
	if n.gen == t.gen {
		return n
	}
	cp := *n
	cp.gen = t.gen
	return &cp
}

func (t *Trie) ownShort(n *shortNode) *shortNode {
	if n.gen == t.gen {
		return n
	}
	cp := *n
	cp.gen = t.gen
	return &cp
}

func (t *Trie) ownLeaf(n *leafNode) *leafNode {
	if n.gen == t.gen {
		return n
	}
	cp := *n
	cp.gen = t.gen
	return &cp
}

// New leaves and branches are carved from slabs that grow with the trie,
// so building a large trie costs few allocations while a small storage
// trie does not reserve much.
func (t *Trie) newLeaf(key, val []byte) *leafNode {
	if len(t.leafSlab) == 0 {
		t.leafSlabSize = min(max(2*t.leafSlabSize, 4), 128)
		t.leafSlab = make([]leafNode, t.leafSlabSize)
	}
	n := &t.leafSlab[0]
	t.leafSlab = t.leafSlab[1:]
	n.key, n.val, n.gen, n.flags = key, val, t.gen, fDirty
	return n
}

func (t *Trie) newShort(key []byte, child node) *shortNode {
	return &shortNode{key: key, child: child, meta: meta{gen: t.gen, flags: fDirty}}
}

func (t *Trie) newFull() *fullNode {
	if len(t.fullSlab) == 0 {
		t.fullSlabSize = min(max(2*t.fullSlabSize, 2), 32)
		t.fullSlab = make([]fullNode, t.fullSlabSize)
	}
	n := &t.fullSlab[0]
	t.fullSlab = t.fullSlab[1:]
	n.gen, n.flags = t.gen, fDirty
	return n
}

// Update stores value under key. An empty value deletes the key. value is
// copied.
func (t *Trie) Update(key, value []byte) error {
	if len(value) == 0 {
		return t.Delete(key)
	}
	k := appendNibbles(t.alloc(2 * len(key))[:0], key)
	v := t.alloc(len(value))
	copy(v, value)
	nn, changed, err := t.insert(t.root, k, v)
	if err != nil {
		return err
	}
	if changed {
		t.root = nn
		t.unhashed++
		t.uncommitted++
	}
	return nil
}

func (t *Trie) insert(n node, key, val []byte) (node, bool, error) {
	switch n := n.(type) {
	case nil:
		return t.newLeaf(key, val), true, nil

	case *leafNode:
		m := prefixLen(key, n.key)
		if m == len(key) && m == len(n.key) {
			if bytes.Equal(n.val, val) {
				return n, false, nil
			}
			n = t.ownLeaf(n)
			n.val = val
			n.flags = fDirty
			return n, true, nil
		}
		branch := t.newFull()
		if m == len(n.key) {
			branch.val = n.val
		} else {
			slot := n.key[m]
			old := t.ownLeaf(n) // may be n itself: read n.key first
			old.key = n.key[m+1:]
			old.flags = fDirty
			branch.children[slot] = old
		}
		if m == len(key) {
			branch.val = val
		} else {
			branch.children[key[m]] = t.newLeaf(key[m+1:], val)
		}
		if m == 0 {
			return branch, true, nil
		}
		return t.newShort(key[:m:m], branch), true, nil

	case *shortNode:
		m := prefixLen(key, n.key)
		if m == len(n.key) {
			child, changed, err := t.insert(n.child, key[m:], val)
			if !changed || err != nil {
				return n, false, err
			}
			n = t.ownShort(n)
			n.child = child
			n.flags = fDirty
			return n, true, nil
		}
		branch := t.newFull()
		if m+1 == len(n.key) {
			branch.children[n.key[m]] = n.child
		} else {
			slot := n.key[m]
			rest := t.ownShort(n) // may be n itself: read n.key first
			rest.key = n.key[m+1:]
			rest.flags = fDirty
			branch.children[slot] = rest
		}
		if m == len(key) {
			branch.val = val
		} else {
			branch.children[key[m]] = t.newLeaf(key[m+1:], val)
		}
		if m == 0 {
			return branch, true, nil
		}
		return t.newShort(key[:m:m], branch), true, nil

	case *fullNode:
		if len(key) == 0 {
			if bytes.Equal(n.val, val) {
				return n, false, nil
			}
			n = t.ownFull(n)
			n.val = val
			n.flags = fDirty
			return n, true, nil
		}
		child, changed, err := t.insert(n.children[key[0]], key[1:], val)
		if !changed || err != nil {
			return n, false, err
		}
		n = t.ownFull(n)
		n.children[key[0]] = child
		n.flags = fDirty
		return n, true, nil

	case *hashNode:
		rn, err := t.resolve(n)
		if err != nil {
			return n, false, err
		}
		nn, changed, err := t.insert(rn, key, val)
		if !changed || err != nil {
			return n, false, err
		}
		return nn, true, nil
	}
	panic("trie: unknown node type")
}

// Delete removes key. Deleting an absent key is not an error.
func (t *Trie) Delete(key []byte) error {
	var buf [80]byte
	nib := appendNibbles(buf[:0], key)
	nn, changed, err := t.delete(t.root, nib)
	if err != nil {
		return err
	}
	if changed {
		t.root = nn
		t.unhashed++
		t.uncommitted++
	}
	return nil
}

// concat joins two nibble paths into a new slice: key slices are shared
// between nodes and must never be appended to in place.
func concat(a, b []byte) []byte {
	c := make([]byte, len(a)+len(b))
	copy(c, a)
	copy(c[len(a):], b)
	return c
}

func (t *Trie) delete(n node, key []byte) (node, bool, error) {
	switch n := n.(type) {
	case nil:
		return nil, false, nil

	case *leafNode:
		if bytes.Equal(n.key, key) {
			return nil, true, nil
		}
		return n, false, nil

	case *shortNode:
		if len(key) < len(n.key) || !bytes.Equal(n.key, key[:len(n.key)]) {
			return n, false, nil
		}
		child, changed, err := t.delete(n.child, key[len(n.key):])
		if !changed || err != nil {
			return n, false, err
		}
		// The branch below may have collapsed into a leaf or an
		// extension; fold it into this one so that no extension ever
		// points at anything but a branch.
		switch c := child.(type) {
		case *leafNode:
			return t.newLeaf(concat(n.key, c.key), c.val), true, nil
		case *shortNode:
			return t.newShort(concat(n.key, c.key), c.child), true, nil
		}
		n = t.ownShort(n)
		n.child = child
		n.flags = fDirty
		return n, true, nil

	case *fullNode:
		if len(key) == 0 {
			if n.val == nil {
				return n, false, nil
			}
			n = t.ownFull(n)
			n.val = nil
		} else {
			child, changed, err := t.delete(n.children[key[0]], key[1:])
			if !changed || err != nil {
				return n, false, err
			}
			n = t.ownFull(n)
			n.children[key[0]] = child
		}
		n.flags = fDirty
		return t.collapse(n)

	case *hashNode:
		rn, err := t.resolve(n)
		if err != nil {
			return n, false, err
		}
		nn, changed, err := t.delete(rn, key)
		if !changed || err != nil {
			return n, false, err
		}
		return nn, true, nil
	}
	panic("trie: unknown node type")
}

// collapse replaces a branch left with a single entry by the equivalent
// leaf or extension.
func (t *Trie) collapse(n *fullNode) (node, bool, error) {
	count, pos := 0, -1
	for i, c := range n.children {
		if c != nil {
			count++
			pos = i
		}
	}
	if n.val != nil {
		count++
		pos = 16
	}
	if count >= 2 {
		return n, true, nil
	}
	if pos == 16 {
		return t.newLeaf(nil, n.val), true, nil
	}
	c := n.children[pos]
	if hn, ok := c.(*hashNode); ok {
		rn, err := t.resolve(hn)
		if err != nil {
			return n, false, err
		}
		c = rn
	}
	switch c := c.(type) {
	case *leafNode:
		return t.newLeaf(concat([]byte{byte(pos)}, c.key), c.val), true, nil
	case *shortNode:
		return t.newShort(concat([]byte{byte(pos)}, c.key), c.child), true, nil
	}
	return t.newShort([]byte{byte(pos)}, c), true, nil
}

// Hash returns the root hash. Node hashes are cached, so hashing again
// after a few changes only rehashes the changed paths.
func (t *Trie) Hash() [32]byte {
	if t.unhashed >= parallelThreshold {
		hashChildrenParallel(t.root)
	}
	h := getHasher()
	root := h.rootHash(t.root)
	putHasher(h)
	t.unhashed = 0
	return root
}

// Commit returns the root hash and the nodes created since the trie was
// opened or last committed. The trie stays usable.
func (t *Trie) Commit() ([32]byte, *NodeSet) {
	t.Hash()
	set := NewNodeSet()
	h := getHasher()
	h.nodes, h.gen = set, t.gen
	t.root = h.own(t.root)
	if t.uncommitted >= parallelThreshold {
		commitChildrenParallel(t.root, set, t.gen)
	}
	t.uncommitted = 0
	root := h.rootHash(t.root)
	putHasher(h)
	return root, set
}

// commitChildrenParallel collects the dirty nodes below the root branch
// into set, each child's subtree on a goroutine with a set of its own,
// merged in the children's order so that set still lists children before
// parents; the root itself is left dirty for the caller. Collecting
// encodes every dirty node again (Hash keeps hashes, not encodings): at
// 10M accounts a block of 9,000 transfers made some 60,000 of them, 0.3 s
// of its commit on one goroutine. The subtrees are disjoint and the root
// is owned by this commit, so each goroutine writes only its own nodes
// and its own slot of the root.
func commitChildrenParallel(root node, set *NodeSet, gen uint32) {
	fn, ok := root.(*fullNode)
	if !ok || fn.flags&fDirty == 0 {
		return
	}
	workers := min(hashWorkers(), 16)
	if workers < 2 {
		return
	}
	var sets [16]*NodeSet
	var next atomic.Int32
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := getHasher()
			h.gen, h.depth = gen, 1
			for {
				i := int(next.Add(1)) - 1
				if i >= 16 {
					break
				}
				c := fn.children[i]
				if c == nil {
					continue
				}
				if oc := h.own(c); oc != c {
					c = oc
					fn.children[i] = c
				}
				sets[i] = NewNodeSet()
				h.nodes = sets[i]
				h.buf = h.buf[:0]
				h.appendRef(c)
			}
			putHasher(h)
		}()
	}
	wg.Wait()
	for _, s := range sets {
		set.Merge(s)
	}
}

// Copy returns an independent trie with the same contents. Both tries keep
// sharing the unchanged nodes; whichever modifies one first copies it.
func (t *Trie) Copy() *Trie {
	// Hash first: shared nodes then never need their cached hash written,
	// so the two tries can be used from different goroutines.
	t.Hash()
	t.gen = newGen()
	return &Trie{root: t.root, db: t.db, gen: newGen()}
}

// parallelThreshold is the number of pending changes above which the root's
// children are hashed on several goroutines.
const parallelThreshold = 256

var hashWorkers = sync.OnceValue(func() int { return runtime.GOMAXPROCS(0) })

// hashChildrenParallel computes the references of the root branch's
// children concurrently. Each child is a separate subtree that only this
// trie owns (unhashed nodes are never shared), so no locking is needed.
func hashChildrenParallel(root node) {
	fn, ok := root.(*fullNode)
	if !ok || fn.flags&fHashed != 0 {
		return
	}
	workers := min(hashWorkers(), 16)
	if workers < 2 {
		return
	}
	var next atomic.Int32
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			h := getHasher()
			for {
				i := int(next.Add(1)) - 1
				if i >= 16 {
					break
				}
				if c := fn.children[i]; c != nil {
					h.buf = h.buf[:0]
					h.appendRef(c)
				}
			}
			putHasher(h)
		}()
	}
	wg.Wait()
}
