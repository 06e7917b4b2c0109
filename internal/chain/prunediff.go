package chain

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rlp"
	"github.com/chaind/chaind/state"
)

// stateDiff walks two stored states in step, by absolute trie path, and
// reports every stored node and code blob the new state holds where the
// old one does not (made) and every one the old holds where the new does
// not (dropped). Where both hold the same hash at the same path the
// subtree is the same and is not read, so a block's diff costs what the
// block changed, not the size of the state. Paths are followed through
// extensions and leaves that moved (an extension split by an insert, a
// leaf pushed down a level): the unchanged subtree or account below is
// met at its own path on both sides and skipped, however large.
//
// What one side holds at a path is an "occurrence": the same node can
// occur at several paths (two contracts with the same storage), and it
// is reported once per path. Incremental pruning counts occurrences.
type stateDiff struct {
	load    func(h [32]byte) ([]byte, error)
	made    func(h [32]byte)
	dropped func(h [32]byte)
}

// diff reports what the state at root holds that the state at old does
// not, and the reverse.
func (d *stateDiff) diff(root, old types.Hash) error {
	return d.pair(sub{raw: rootItem(root)}, sub{raw: rootItem(old)}, d.account)
}

// rootItem is a root as a parent would refer to it: by hash, or the
// empty string for an empty trie. A root is always stored by its hash,
// however short its encoding.
func rootItem(h types.Hash) []byte {
	if h == (types.Hash{}) || h == types.EmptyRootHash {
		return []byte{0x80}
	}
	return append([]byte{0xa0}, h[:]...)
}

// dnode is a node at a path: a stored or embedded one, or the rest of an
// extension or leaf whose first nibbles the walk has consumed.
type dnode struct {
	kind  uint8
	key   []byte   // nibbles of an extension or leaf
	items [][]byte // a branch's 17 items
	child sub      // an extension's child
	val   []byte   // a leaf's value
}

const (
	dNone uint8 = iota
	dBranch
	dExt
	dLeaf
)

// sub is a child: a reference as its parent encodes it (raw), or what is
// left of a node the walk has entered part way (virt).
type sub struct {
	raw  []byte
	virt *dnode
}

// leafFunc is told of a value the two states hold at the same key, or
// that one of them holds alone.
type leafFunc func(va, vb []byte, hasA, hasB bool) error

func (d *stateDiff) pair(a, b sub, leaf leafFunc) error {
	if a.virt == nil && b.virt == nil && bytes.Equal(a.raw, b.raw) {
		return nil // the same hash or the same embedded node: the same subtree
	}
	na, err := d.resolve(a, false)
	if err != nil {
		return err
	}
	nb, err := d.resolve(b, true)
	if err != nil {
		return err
	}
	return d.nodes(na, nb, leaf)
}

func (d *stateDiff) resolve(s sub, old bool) (dnode, error) {
	if s.virt != nil {
		return *s.virt, nil
	}
	return d.open(s.raw, old)
}

// open decodes the node a reference names, reporting it if stored.
func (d *stateDiff) open(raw []byte, old bool) (dnode, error) {
	if len(raw) == 0 {
		return dnode{}, nil
	}
	k, content, _, err := rlp.Split(raw)
	if err != nil {
		return dnode{}, err
	}
	if k == rlp.List {
		return decodeDNode(raw)
	}
	switch len(content) {
	case 0:
		return dnode{}, nil
	case 32:
	default:
		return dnode{}, fmt.Errorf("child reference of %d bytes", len(content))
	}
	h := [32]byte(content)
	if old {
		d.dropped(h)
	} else {
		d.made(h)
	}
	enc, err := d.load(h)
	if err != nil {
		return dnode{}, err
	}
	n, err := decodeDNode(enc)
	if err != nil {
		return dnode{}, fmt.Errorf("node %x: %w", h, err)
	}
	return n, nil
}

var errShortKey = errors.New("empty compact key")

func decodeDNode(enc []byte) (dnode, error) {
	items, err := nodeItems(enc)
	if err != nil {
		return dnode{}, err
	}
	switch len(items) {
	case 17:
		val, _, err := rlp.SplitString(items[16])
		return dnode{kind: dBranch, items: items, val: val}, err
	case 2:
		ck, _, err := rlp.SplitString(items[0])
		if err != nil {
			return dnode{}, err
		}
		if len(ck) == 0 {
			return dnode{}, errShortKey
		}
		nib := make([]byte, 0, 2*len(ck))
		if ck[0]&0x10 != 0 { // odd length: the first nibble is in the flag byte
			nib = append(nib, ck[0]&0x0f)
		}
		for _, b := range ck[1:] {
			nib = append(nib, b>>4, b&0x0f)
		}
		if ck[0]&0x20 == 0 {
			return dnode{kind: dExt, key: nib, child: sub{raw: items[1]}}, nil
		}
		val, _, err := rlp.SplitString(items[1])
		return dnode{kind: dLeaf, key: nib, val: val}, err
	}
	return dnode{}, fmt.Errorf("node of %d items", len(items))
}

// nodes compares what the two states hold at one path.
func (d *stateDiff) nodes(a, b dnode, leaf leafFunc) error {
	switch {
	case a.kind == dNone && b.kind == dNone:
		return nil
	case a.kind == dNone:
		return d.all(b, true, leaf)
	case b.kind == dNone:
		return d.all(a, false, leaf)
	case a.kind == b.kind && a.kind != dBranch && bytes.Equal(a.key, b.key):
		if a.kind == dExt {
			return d.pair(a.child, b.child, leaf)
		}
		return d.values(a.val, b.val, leaf)
	}
	// Different shapes at this path: both are seen as branches, a
	// nibble at a time, until the paths meet again.
	ca, va := a.branch()
	cb, vb := b.branch()
	for i := range ca {
		if err := d.pair(ca[i], cb[i], leaf); err != nil {
			return err
		}
	}
	return d.values(va, vb, leaf)
}

func (d *stateDiff) values(va, vb []byte, leaf leafFunc) error {
	if leaf == nil || bytes.Equal(va, vb) {
		return nil
	}
	return leaf(va, vb, len(va) > 0, len(vb) > 0)
}

// branch is n seen as a branch at its path: its children by next nibble
// and the value that ends here.
func (n dnode) branch() (c [16]sub, val []byte) {
	switch n.kind {
	case dBranch:
		for i := range c {
			c[i] = sub{raw: n.items[i]}
		}
		return c, n.val
	case dExt:
		if len(n.key) == 1 {
			c[n.key[0]] = n.child
		} else {
			c[n.key[0]] = sub{virt: &dnode{kind: dExt, key: n.key[1:], child: n.child}}
		}
	case dLeaf:
		if len(n.key) == 0 {
			return c, n.val
		}
		c[n.key[0]] = sub{virt: &dnode{kind: dLeaf, key: n.key[1:], val: n.val}}
	}
	return c, nil
}

// all reports the whole subtree below n, which only one side holds.
func (d *stateDiff) all(n dnode, old bool, leaf leafFunc) error {
	report := func(v []byte) error {
		if leaf == nil || len(v) == 0 {
			return nil
		}
		if old {
			return leaf(nil, v, false, true)
		}
		return leaf(v, nil, true, false)
	}
	switch n.kind {
	case dBranch:
		for i := 0; i < 16; i++ {
			c, err := d.open(n.items[i], old)
			if err != nil {
				return err
			}
			if err := d.all(c, old, leaf); err != nil {
				return err
			}
		}
		return report(n.val)
	case dExt:
		c, err := d.resolve(n.child, old)
		if err != nil {
			return err
		}
		return d.all(c, old, leaf)
	case dLeaf:
		return report(n.val)
	}
	return nil
}

// account compares the account two states hold at one address: its
// storage trie in step, and its code.
func (d *stateDiff) account(va, vb []byte, hasA, hasB bool) error {
	var a, b state.Account
	ra, rb := []byte{0x80}, []byte{0x80}
	var err error
	if hasA {
		if a, err = state.DecodeAccount(va); err != nil {
			return err
		}
		ra = rootItem(a.Root)
	}
	if hasB {
		if b, err = state.DecodeAccount(vb); err != nil {
			return err
		}
		rb = rootItem(b.Root)
	}
	if err := d.pair(sub{raw: ra}, sub{raw: rb}, nil); err != nil {
		return err
	}
	codeA := hasA && a.CodeHash != types.EmptyCodeHash
	codeB := hasB && b.CodeHash != types.EmptyCodeHash
	if codeA && (!codeB || a.CodeHash != b.CodeHash) {
		d.made([32]byte(a.CodeHash))
	}
	if codeB && (!codeA || a.CodeHash != b.CodeHash) {
		d.dropped([32]byte(b.CodeHash))
	}
	return nil
}
