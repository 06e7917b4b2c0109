package trie

import (
	"errors"
	"fmt"
	"sync"
)

// ErrMissingNode is returned (wrapped with the hash) when a node a trie
// needs is not in its Reader.
var ErrMissingNode = errors.New("trie: missing node")

// MissingNode returns the error a Reader reports for an absent node.
func MissingNode(hash [32]byte) error { return fmt.Errorf("%w %x", ErrMissingNode, hash) }

// Reader gives access to stored nodes by hash. Returned blobs must not be
// modified by anyone afterwards: tries keep references into them.
type Reader interface {
	// Node returns the encoding of the node with the given hash, or an
	// error wrapping ErrMissingNode.
	Node(hash [32]byte) ([]byte, error)
}

// Database is a Reader that can also store the nodes of a commit.
type Database interface {
	Reader
	Update(nodes *NodeSet) error
}

// NodeSet holds the nodes created by one commit, keyed by hash. Encodings
// are packed into large shared chunks to keep a commit at a handful of
// allocations.
type NodeSet struct {
	chunk []byte // free space of the current chunk
	nodes []setEntry
	size  int
}

type setEntry struct {
	hash  [32]byte
	blob  []byte
	depth uint8 // nodes above it on its path from the root; noDepth if unknown
}

// noDepth is the depth of a blob added by Add (code, or a node from
// elsewhere): below every bound ForEachUpper is given.
const noDepth = 255

const nodeSetChunk = 64 << 10

// NewNodeSet returns an empty set.
func NewNodeSet() *NodeSet { return &NodeSet{} }

func (s *NodeSet) add(hash *[32]byte, blob []byte, depth int) {
	if len(blob) > cap(s.chunk)-len(s.chunk) {
		s.chunk = make([]byte, 0, max(nodeSetChunk, len(blob)))
	}
	l := len(s.chunk)
	s.chunk = append(s.chunk, blob...)
	s.nodes = append(s.nodes, setEntry{hash: *hash, blob: s.chunk[l:len(s.chunk):len(s.chunk)], depth: uint8(min(depth, noDepth))})
	s.size += len(blob)
}

// Add records a node, or any other blob stored by its keccak256 hash such
// as contract code. blob is copied.
func (s *NodeSet) Add(hash [32]byte, blob []byte) { s.add(&hash, blob, noDepth) }

// Len is the number of nodes in the set.
func (s *NodeSet) Len() int {
	if s == nil {
		return 0
	}
	return len(s.nodes)
}

// Size is the total size of the encodings in bytes.
func (s *NodeSet) Size() int {
	if s == nil {
		return 0
	}
	return s.size
}

// ForEach calls fn for every node in the order they were added (children
// before parents). The blob must not be modified; it stays valid for as
// long as anyone holds it.
func (s *NodeSet) ForEach(fn func(hash [32]byte, blob []byte)) {
	if s == nil {
		return
	}
	for _, e := range s.nodes {
		fn(e.hash, e.blob)
	}
}

// ForEachUpper calls fn, as ForEach, for the nodes a commit wrote less
// than depth nodes below their trie's root (the root is at 0). A trie's
// upper levels are few whatever its size (the five upper ones at most
// 69,905 nodes) and every block walks through them, rewriting those on
// the paths it changes, so a reader's cache may keep them as they are
// written rather than read them back from the store at the next block.
func (s *NodeSet) ForEachUpper(depth int, fn func(hash [32]byte, blob []byte)) {
	if s == nil {
		return
	}
	for _, e := range s.nodes {
		if int(e.depth) < depth {
			fn(e.hash, e.blob)
		}
	}
}

// Merge adds every node of o to s. The encodings are shared, not copied.
func (s *NodeSet) Merge(o *NodeSet) {
	if o == nil {
		return
	}
	s.nodes = append(s.nodes, o.nodes...)
	s.size += o.size
}

// MemoryDB is a Database held in memory. It is safe for concurrent use.
type MemoryDB struct {
	mu    sync.RWMutex
	nodes map[[32]byte][]byte
}

// NewMemoryDB returns an empty in-memory node store.
func NewMemoryDB() *MemoryDB { return &MemoryDB{nodes: make(map[[32]byte][]byte)} }

// Node implements Reader.
func (db *MemoryDB) Node(hash [32]byte) ([]byte, error) {
	db.mu.RLock()
	blob, ok := db.nodes[hash]
	db.mu.RUnlock()
	if !ok {
		return nil, MissingNode(hash)
	}
	return blob, nil
}

// Update implements Database. The set's encodings are kept, not copied, so
// the set must not be reused.
func (db *MemoryDB) Update(nodes *NodeSet) error {
	db.mu.Lock()
	defer db.mu.Unlock()
	nodes.ForEach(func(hash [32]byte, blob []byte) { db.nodes[hash] = blob })
	return nil
}

// Len is the number of stored nodes.
func (db *MemoryDB) Len() int {
	db.mu.RLock()
	defer db.mu.RUnlock()
	return len(db.nodes)
}
