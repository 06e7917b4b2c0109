package trie

import (
	"errors"
	"fmt"

	"github.com/chaind/chaind/rlp"
)

// node is one of *fullNode, *shortNode, *leafNode or *hashNode; nil is the
// empty trie. Branch values (keys that end exactly at a branch) live in
// fullNode.val and leaf values in leafNode.val, so values are never boxed
// into interfaces on their own.
type node interface{}

// fullNode is a branch: sixteen children, one per next nibble, plus the value
// of the key that ends here (nil when none does).
type fullNode struct {
	children [16]node
	val      []byte
	meta
}

// shortNode is an extension: a shared path fragment leading to a branch
// (or, before it is loaded, to the hash of one).
type shortNode struct {
	key   []byte // nibbles, at least one
	child node
	meta
}

// leafNode is the end of a key: the rest of its path and its value.
type leafNode struct {
	key []byte // nibbles, possibly none
	val []byte
	meta
}

// hashNode stands for a stored node that has not been loaded.
type hashNode [32]byte

// Node flags.
const (
	// fHashed: the node is unchanged since its reference was last
	// computed, so the cached hash (or, for small nodes, the knowledge
	// that it is embedded) can be reused.
	fHashed uint8 = 1 << iota
	// fSmall: the encoding is shorter than 32 bytes, so parents embed it
	// instead of referring to it by hash; no hash is cached.
	fSmall
	// fDirty: the node is not yet part of any commit.
	fDirty
)

// meta is the bookkeeping every loaded node carries.
type meta struct {
	hash  [32]byte
	gen   uint32 // the trie generation allowed to modify the node in place
	flags uint8
}

func metaOf(n node) *meta {
	switch n := n.(type) {
	case *fullNode:
		return &n.meta
	case *shortNode:
		return &n.meta
	case *leafNode:
		return &n.meta
	}
	return nil
}

// ErrInvalidNode is returned (wrapped with details) for a stored or proof
// node whose encoding is not a canonical trie node.
var ErrInvalidNode = errors.New("trie: invalid node encoding")

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidNode, fmt.Sprintf(format, args...))
}

// decodeNode parses a node loaded by hash. It never keeps a reference to
// anything but value bytes, which are sub-slices of blob, so blob must not
// change afterwards. The node comes back clean and hashed.
func decodeNode(hash [32]byte, blob []byte, gen uint32) (node, error) {
	n, err := decodeItem(blob, gen)
	if err != nil {
		return nil, err
	}
	m := metaOf(n)
	if len(blob) < 32 {
		// Only a root is stored although small; it keeps its embedding
		// semantics and its hash is recomputed when needed.
		m.flags = fHashed | fSmall
	} else {
		m.hash = hash
		m.flags = fHashed
	}
	return n, nil
}

// decodeItem decodes exactly one node encoding.
func decodeItem(buf []byte, gen uint32) (node, error) {
	content, rest, err := rlp.SplitList(buf)
	if err != nil {
		return nil, invalid("%v", err)
	}
	if len(rest) != 0 {
		return nil, invalid("%d trailing bytes", len(rest))
	}
	count, err := rlp.CountValues(content)
	if err != nil {
		return nil, invalid("%v", err)
	}
	switch count {
	case 2:
		return decodeShort(content, gen)
	case 17:
		return decodeFull(content, gen)
	}
	return nil, invalid("list of %d items", count)
}

func decodeShort(content []byte, gen uint32) (node, error) {
	compact, rest, err := rlp.SplitString(content)
	if err != nil {
		return nil, invalid("path: %v", err)
	}
	key, leaf, err := DecodeCompact(compact)
	if err != nil {
		return nil, invalid("path: %v", err)
	}
	if leaf {
		val, _, err := rlp.SplitString(rest)
		if err != nil {
			return nil, invalid("leaf value: %v", err)
		}
		if len(val) == 0 {
			return nil, invalid("empty leaf value")
		}
		return &leafNode{key: key, val: val, meta: meta{gen: gen, flags: fHashed | fSmall}}, nil
	}
	if len(key) == 0 {
		return nil, invalid("extension with empty path")
	}
	child, _, err := decodeRef(rest, gen)
	if err != nil {
		return nil, err
	}
	switch child.(type) {
	case *hashNode, *fullNode:
	default:
		return nil, invalid("extension must lead to a branch")
	}
	return &shortNode{key: key, child: child, meta: meta{gen: gen, flags: fHashed | fSmall}}, nil
}

func decodeFull(content []byte, gen uint32) (node, error) {
	n := &fullNode{meta: meta{gen: gen, flags: fHashed | fSmall}}
	// Count the hash references first so they share one allocation.
	hashes := 0
	for i, b := 0, content; i < 16; i++ {
		k, c, rest, _ := rlp.Split(b)
		if k == rlp.String && len(c) == 32 {
			hashes++
		}
		b = rest
	}
	hs := make([]hashNode, hashes)
	entries := 0
	for i := 0; i < 16; i++ {
		child, rest, err := decodeRefInto(content, gen, &hs)
		if err != nil {
			return nil, err
		}
		n.children[i] = child
		if child != nil {
			entries++
		}
		content = rest
	}
	val, _, err := rlp.SplitString(content)
	if err != nil {
		return nil, invalid("branch value: %v", err)
	}
	if len(val) > 0 {
		n.val = val
		entries++
	}
	if entries < 2 {
		return nil, invalid("branch with %d entries", entries)
	}
	return n, nil
}

func decodeRef(buf []byte, gen uint32) (node, []byte, error) {
	var hs []hashNode
	return decodeRefInto(buf, gen, &hs)
}

// decodeRefInto decodes a child reference: empty, a 32-byte hash, or an
// embedded node shorter than 32 bytes. Hashes are taken from *hs when it
// has room.
func decodeRefInto(buf []byte, gen uint32, hs *[]hashNode) (node, []byte, error) {
	k, content, rest, err := rlp.Split(buf)
	if err != nil {
		return nil, buf, invalid("child: %v", err)
	}
	switch {
	case k == rlp.List:
		size := len(buf) - len(rest)
		if size >= 32 {
			return nil, buf, invalid("embedded node of %d bytes", size)
		}
		n, err := decodeItem(buf[:size], gen)
		return n, rest, err
	case k == rlp.String && len(content) == 0:
		return nil, rest, nil
	case k == rlp.String && len(content) == 32:
		var h *hashNode
		if len(*hs) > 0 {
			h = &(*hs)[0]
			*hs = (*hs)[1:]
		} else {
			h = new(hashNode)
		}
		copy(h[:], content)
		return h, rest, nil
	}
	return nil, buf, invalid("child reference of %d bytes", len(content))
}
