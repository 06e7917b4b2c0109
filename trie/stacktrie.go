package trie

import (
	"bytes"
	"errors"
	"sync"

	"github.com/chaind/chaind/rlp"
)

// Errors returned by StackTrie.Update.
var (
	ErrKeyOrder      = errors.New("trie: stack trie keys must be strictly increasing")
	ErrEmptyValue    = errors.New("trie: stack trie cannot store an empty value")
	ErrStackTrieDone = errors.New("trie: stack trie already hashed; Reset it first")
)

// StackTrie computes the root hash of a trie whose keys arrive in strictly
// increasing order, keeping only the rightmost path in memory. Each branch
// is encoded and hashed as soon as no later key can reach it, so the cost
// is one pass over the data and no per-key allocation.
//
// The zero value is ready to use. Hash ends the trie; Reset starts over and
// keeps the buffers.
type StackTrie struct {
	h       hasher
	prev    []byte // nibbles of the last key
	spare   []byte // the other key buffer
	prevVal []byte // copy of the last value, its leaf is written lazily
	has     bool
	frames  []stackFrame // open branches, depths strictly increasing
	done    bool
	root    [32]byte
	tmp     [32]byte
	// onNode, when set, receives every node stored by hash (the root
	// included, whatever its size) as it is hashed: a trie committed
	// while it is built, in memory bounded by its depth. blob is reused
	// after the call.
	onNode func(hash [32]byte, blob []byte)
}

// stackFrame is a branch still receiving children. Children arrive in slot
// order, so their references are appended to body as they come.
type stackFrame struct {
	depth  int // nibble index the branch dispatches on
	next   int // first slot not written to body yet
	body   []byte
	val    []byte
	hasVal bool
}

// pendingNode is the subtree just completed, waiting to be attached to its
// parent: either the leaf of the last key or a branch at depth.
type pendingNode struct {
	leaf  bool
	depth int
	ref   [33]byte // the branch's reference (hash or embedded encoding)
	n     int
}

// NewStackTrie returns an empty stack trie.
func NewStackTrie() *StackTrie { return new(StackTrie) }

// NewStackTrieWriter returns an empty stack trie that hands every node it
// hashes to onNode (which must copy blob if it keeps it), so the trie is
// written out while it is built: children before parents, the root last.
func NewStackTrieWriter(onNode func(hash [32]byte, blob []byte)) *StackTrie {
	return &StackTrie{onNode: onNode}
}

// Reset empties the trie so it can be reused.
func (st *StackTrie) Reset() {
	st.prev = st.prev[:0]
	st.prevVal = st.prevVal[:0]
	st.has = false
	st.frames = st.frames[:0]
	st.done = false
}

// Update adds a key, which must be greater than every key added before, with
// a non-empty value. value is copied.
func (st *StackTrie) Update(key, value []byte) error {
	if st.done {
		return ErrStackTrieDone
	}
	if len(value) == 0 {
		return ErrEmptyValue
	}
	nib := appendNibbles(st.spare[:0], key)
	if st.has {
		if bytes.Compare(nib, st.prev) <= 0 {
			st.spare = nib
			return ErrKeyOrder
		}
		st.advance(nib)
	}
	st.prev, st.spare = nib, st.prev
	st.prevVal = append(st.prevVal[:0], value...)
	st.has = true
	return nil
}

// advance completes every branch that the key next can no longer reach and
// attaches the previous key's leaf where it belongs.
func (st *StackTrie) advance(next []byte) {
	c := prefixLen(st.prev, next)
	pend := pendingNode{leaf: true}
	for len(st.frames) > 0 && st.frames[len(st.frames)-1].depth > c {
		f := &st.frames[len(st.frames)-1]
		st.attach(f, &pend)
		st.finish(f, &pend)
		st.frames = st.frames[:len(st.frames)-1]
	}
	var f *stackFrame
	if n := len(st.frames); n > 0 && st.frames[n-1].depth == c {
		f = &st.frames[n-1]
	} else {
		f = st.push(c)
	}
	if c == len(st.prev) {
		// The previous key is a prefix of the next one: it ends at the
		// new branch. (Nothing can have been completed below it.)
		f.val = append(f.val[:0], st.prevVal...)
		f.hasVal = true
		return
	}
	st.attach(f, &pend)
}

func (st *StackTrie) push(depth int) *stackFrame {
	n := len(st.frames)
	if n < cap(st.frames) {
		st.frames = st.frames[:n+1]
	} else {
		st.frames = append(st.frames, stackFrame{})
	}
	f := &st.frames[n]
	f.depth, f.next, f.body, f.val, f.hasVal = depth, 0, f.body[:0], f.val[:0], false
	return f
}

// attach writes the reference of the pending subtree, which contains the
// previous key, into its slot of f.
func (st *StackTrie) attach(f *stackFrame, pend *pendingNode) {
	slot := int(st.prev[f.depth])
	for ; f.next < slot; f.next++ {
		f.body = append(f.body, 0x80)
	}
	f.next = slot + 1
	path := st.prev[f.depth+1:]
	switch {
	case pend.leaf:
		st.encodeLeaf(path)
		f.body = st.appendRef(f.body)
	case pend.depth == f.depth+1:
		f.body = append(f.body, pend.ref[:pend.n]...)
	default:
		st.encodeExt(path[:pend.depth-f.depth-1], pend)
		f.body = st.appendRef(f.body)
	}
}

// finish encodes the completed branch f and makes it the pending subtree.
func (st *StackTrie) finish(f *stackFrame, pend *pendingNode) {
	for ; f.next < 16; f.next++ {
		f.body = append(f.body, 0x80)
	}
	var val []byte
	if f.hasVal {
		val = f.val
	}
	b := st.h.buf[:0]
	b = rlp.AppendListHeader(b, len(f.body)+rlp.StringSize(val))
	b = append(b, f.body...)
	st.h.buf = rlp.AppendString(b, val)
	pend.leaf, pend.depth = false, f.depth
	pend.n = len(st.appendRef(pend.ref[:0]))
}

func (st *StackTrie) encodeLeaf(path []byte) {
	b := st.h.buf[:0]
	b = rlp.AppendListHeader(b, compactStringSize(path)+rlp.StringSize(st.prevVal))
	b = appendCompactString(b, path, true)
	st.h.buf = rlp.AppendString(b, st.prevVal)
}

func (st *StackTrie) encodeExt(path []byte, pend *pendingNode) {
	b := st.h.buf[:0]
	b = rlp.AppendListHeader(b, compactStringSize(path)+pend.n)
	b = appendCompactString(b, path, false)
	st.h.buf = append(b, pend.ref[:pend.n]...)
}

// appendRef appends the reference to the node encoded in the hasher buffer.
func (st *StackTrie) appendRef(dst []byte) []byte {
	enc := st.h.buf
	if len(enc) < 32 {
		return append(dst, enc...)
	}
	st.hash(enc, &st.tmp)
	dst = append(dst, 0xa0)
	return append(dst, st.tmp[:]...)
}

func (st *StackTrie) hash(b []byte, out *[32]byte) {
	if st.h.sha == nil {
		st.h.sha = newKeccak()
	}
	st.h.keccak(b, out)
	if st.onNode != nil {
		st.onNode(*out, b)
	}
}

// Hash returns the root hash of the keys added so far and ends the trie.
func (st *StackTrie) Hash() [32]byte {
	if st.done {
		return st.root
	}
	if !st.has {
		return EmptyRoot
	}
	pend := pendingNode{leaf: true}
	for len(st.frames) > 0 {
		f := &st.frames[len(st.frames)-1]
		st.attach(f, &pend)
		st.finish(f, &pend)
		st.frames = st.frames[:len(st.frames)-1]
	}
	switch {
	case pend.leaf:
		st.encodeLeaf(st.prev)
		st.hash(st.h.buf, &st.root)
	case pend.depth == 0 && pend.n == 33:
		copy(st.root[:], pend.ref[1:])
	case pend.depth == 0:
		st.hash(pend.ref[:pend.n], &st.root)
	default:
		st.encodeExt(st.prev[:pend.depth], &pend)
		st.hash(st.h.buf, &st.root)
	}
	st.done = true
	return st.root
}

var stackTriePool = sync.Pool{New: func() any { return NewStackTrie() }}

// ListRoot returns the root of the trie that maps rlp(i) to item(i) for i
// in [0, n): the transactions, receipts and withdrawals roots of a block.
// item's result is copied before the next call. An empty item is left out,
// as a trie cannot hold an empty value.
func ListRoot(n int, item func(i int) []byte) [32]byte {
	st := stackTriePool.Get().(*StackTrie)
	st.Reset()
	var kb [9]byte
	add := func(i int) {
		if v := item(i); len(v) > 0 {
			st.Update(rlp.AppendUint64(kb[:0], uint64(i)), v)
		}
	}
	// rlp(0) is 0x80, which sorts after rlp(1..127) = 0x01..0x7f and before
	// rlp(128..) = 0x81.., so index 0 goes in after 127.
	for i := 1; i < n && i < 0x80; i++ {
		add(i)
	}
	if n > 0 {
		add(0)
	}
	for i := 0x80; i < n; i++ {
		add(i)
	}
	root := st.Hash()
	stackTriePool.Put(st)
	return root
}
