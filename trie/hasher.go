package trie

import (
	"sync"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/rlp"
)

// hasher computes node references. Encodings are built in one growing
// buffer: a child is encoded at the end of the buffer and, when it is 32
// bytes or longer, replaced in place by the RLP string of its hash, so the
// parent's encoding is assembled without copying or allocating.
type hasher struct {
	buf []byte
	sha crypto.KeccakState
	tmp [32]byte

	// While committing: where encodings of dirty nodes go, and the
	// generation that may take ownership of them.
	nodes *NodeSet
	gen   uint32
	depth int // of the nodes encode is at (the root's children: 1)
}

func newKeccak() crypto.KeccakState { return crypto.NewKeccak() }

var hasherPool = sync.Pool{New: func() any {
	return &hasher{buf: make([]byte, 0, 1024), sha: crypto.NewKeccak()}
}}

func getHasher() *hasher { return hasherPool.Get().(*hasher) }

func putHasher(h *hasher) {
	h.nodes, h.depth = nil, 0
	h.buf = h.buf[:0]
	hasherPool.Put(h)
}

func (h *hasher) keccak(b []byte, out *[32]byte) {
	h.sha.Reset()
	h.sha.Write(b)
	h.sha.Read(out[:])
}

// appendRef appends the reference to n as its parent encodes it.
func (h *hasher) appendRef(n node) {
	var m *meta
	switch n := n.(type) {
	case nil:
		h.buf = append(h.buf, 0x80)
		return
	case *hashNode:
		h.buf = append(h.buf, 0xa0)
		h.buf = append(h.buf, n[:]...)
		return
	case *fullNode:
		m = &n.meta
	case *shortNode:
		m = &n.meta
	case *leafNode:
		m = &n.meta
	}
	if m.flags&(fHashed|fSmall) == fHashed && (h.nodes == nil || m.flags&fDirty == 0) {
		h.buf = append(h.buf, 0xa0)
		h.buf = append(h.buf, m.hash[:]...)
		return
	}
	start := len(h.buf)
	h.encode(n)
	enc := h.buf[start:]
	if len(enc) < 32 {
		if m.flags&(fHashed|fSmall) != fHashed|fSmall {
			m.flags |= fHashed | fSmall
		}
		if h.nodes != nil && m.flags&fDirty != 0 {
			m.flags &^= fDirty
		}
		return
	}
	if m.flags&fHashed == 0 {
		h.keccak(enc, &m.hash)
		m.flags |= fHashed
	}
	if h.nodes != nil && m.flags&fDirty != 0 {
		h.nodes.add(&m.hash, enc, h.depth)
		m.flags &^= fDirty
	}
	h.buf = append(h.buf[:start], 0xa0)
	h.buf = append(h.buf, m.hash[:]...)
}

// rootHash returns the hash of n as a root: always keccak256 of its
// encoding, however short.
func (h *hasher) rootHash(n node) [32]byte {
	var m *meta
	switch n := n.(type) {
	case nil:
		return EmptyRoot
	case *hashNode:
		return *n
	case *fullNode:
		m = &n.meta
	case *shortNode:
		m = &n.meta
	case *leafNode:
		m = &n.meta
	}
	if m.flags&(fHashed|fSmall) == fHashed && (h.nodes == nil || m.flags&fDirty == 0) {
		return m.hash
	}
	start := len(h.buf)
	h.encode(n)
	enc := h.buf[start:]
	hash := &h.tmp
	if m.flags&(fHashed|fSmall) == fHashed {
		*hash = m.hash
	} else {
		h.keccak(enc, hash)
		if len(enc) >= 32 {
			m.hash = *hash
			m.flags = m.flags&^fSmall | fHashed
		} else if m.flags&(fHashed|fSmall) != fHashed|fSmall {
			m.flags |= fHashed | fSmall
		}
	}
	if h.nodes != nil && m.flags&fDirty != 0 {
		h.nodes.add(hash, enc, 0)
		m.flags &^= fDirty
	}
	h.buf = h.buf[:start]
	return *hash
}

// own returns n itself when the committing generation may modify it, and a
// shallow copy it may modify when n is dirty but shared with another trie.
// Clean nodes are never modified by a commit and are returned as they are.
func (h *hasher) own(n node) node {
	switch c := n.(type) {
	case *fullNode:
		if c.flags&fDirty != 0 && c.gen != h.gen {
			cp := *c
			cp.gen = h.gen
			return &cp
		}
	case *shortNode:
		if c.flags&fDirty != 0 && c.gen != h.gen {
			cp := *c
			cp.gen = h.gen
			return &cp
		}
	case *leafNode:
		if c.flags&fDirty != 0 && c.gen != h.gen {
			cp := *c
			cp.gen = h.gen
			return &cp
		}
	}
	return n
}

// encode appends the RLP encoding of n, whose children references are
// computed (and cached) on the way.
func (h *hasher) encode(n node) {
	switch n := n.(type) {
	case *leafNode:
		size := compactStringSize(n.key) + rlp.StringSize(n.val)
		h.buf = rlp.AppendListHeader(h.buf, size)
		h.buf = appendCompactString(h.buf, n.key, true)
		h.buf = rlp.AppendString(h.buf, n.val)
	case *shortNode:
		start := len(h.buf)
		h.buf = append(h.buf, 0, 0, 0)
		h.buf = appendCompactString(h.buf, n.key, false)
		if h.nodes != nil {
			// Write only when owning changes something: n may be a
			// clean node shared with another trie.
			if c := h.own(n.child); c != n.child {
				n.child = c
			}
		}
		h.depth++
		h.appendRef(n.child)
		h.depth--
		h.closeList(start)
	case *fullNode:
		start := len(h.buf)
		h.buf = append(h.buf, 0, 0, 0)
		h.depth++
		for i := range n.children {
			c := n.children[i]
			if c == nil {
				h.buf = append(h.buf, 0x80)
				continue
			}
			if h.nodes != nil {
				if oc := h.own(c); oc != c {
					c = oc
					n.children[i] = c
				}
			}
			h.appendRef(c)
		}
		h.depth--
		h.buf = rlp.AppendString(h.buf, n.val)
		h.closeList(start)
	}
}

// closeList turns the content written after 3 reserved bytes at start into
// a complete list encoding beginning at start.
func (h *hasher) closeList(start int) {
	size := len(h.buf) - start - 3
	hs := rlp.HeaderSize(size)
	if hs <= 3 {
		hdr := start + 3 - hs
		rlp.AppendListHeader(h.buf[:hdr], size)
		copy(h.buf[start:], h.buf[hdr:])
		h.buf = h.buf[:len(h.buf)-(3-hs)]
		return
	}
	// Content of 64 KiB or more (a huge branch value): make room.
	end := len(h.buf)
	for i := 0; i < hs-3; i++ {
		h.buf = append(h.buf, 0)
	}
	copy(h.buf[start+hs:], h.buf[start+3:end])
	rlp.AppendListHeader(h.buf[:start], size)
}
