package trie

import "bytes"

// Iterator walks the key-value pairs of a trie in key order. It reads the
// trie as it was when the iterator was made; changing the trie meanwhile
// gives undefined results.
type Iterator struct {
	t     *Trie
	start []byte // nibbles of the first key of interest
	stack []iterFrame
	path  []byte // nibbles from the root to the top frame
	key   []byte
	value []byte
	err   error
}

type iterFrame struct {
	n       node
	pathLen int // length of the path leading to n
	next    int // for branches: -1 before the value, then the next child slot
}

// NewIterator returns an iterator over the pairs whose key is at least
// start (nil: from the first key).
func (t *Trie) NewIterator(start []byte) *Iterator {
	it := &Iterator{t: t, start: KeyToNibbles(start)}
	if t.root != nil {
		it.stack = append(it.stack, iterFrame{n: t.root, next: -1})
	}
	return it
}

// skip reports whether every key below the path p sorts before start.
func (it *Iterator) skip(p []byte) bool {
	s := it.start
	if len(s) > len(p) {
		s = s[:len(p)]
	}
	return bytes.Compare(p, s) < 0
}

func (it *Iterator) push(n node, extra ...byte) {
	top := len(it.path)
	it.path = append(it.path, extra...)
	if it.skip(it.path) {
		it.path = it.path[:top]
		return
	}
	it.stack = append(it.stack, iterFrame{n: n, pathLen: len(it.path), next: -1})
}

// Next advances to the next pair and reports whether there is one.
func (it *Iterator) Next() bool {
	for len(it.stack) > 0 && it.err == nil {
		f := &it.stack[len(it.stack)-1]
		it.path = it.path[:f.pathLen]
		switch n := f.n.(type) {
		case *hashNode:
			rn, err := it.t.resolve(n)
			if err != nil {
				it.err = err
				return false
			}
			f.n = rn
		case *leafNode:
			it.stack = it.stack[:len(it.stack)-1]
			full := append(it.path, n.key...)
			if bytes.Compare(full, it.start) >= 0 {
				it.key = NibblesToKey(full)
				it.value = n.val
				return true
			}
		case *shortNode:
			it.stack = it.stack[:len(it.stack)-1]
			it.push(n.child, n.key...)
		case *fullNode:
			if f.next < 0 {
				f.next = 0
				if n.val != nil && bytes.Compare(it.path, it.start) >= 0 {
					it.key = NibblesToKey(it.path)
					it.value = n.val
					return true
				}
			}
			i := f.next
			for i < 16 && n.children[i] == nil {
				i++
			}
			if i == 16 {
				it.stack = it.stack[:len(it.stack)-1]
				continue
			}
			f.next = i + 1
			it.push(n.children[i], byte(i))
		default:
			it.stack = it.stack[:len(it.stack)-1]
		}
	}
	it.key, it.value = nil, nil
	return false
}

// Key returns the current key. The slice belongs to the caller.
func (it *Iterator) Key() []byte { return it.key }

// Value returns the current value. It must not be modified.
func (it *Iterator) Value() []byte { return it.value }

// Err returns the error that stopped the iteration, if any.
func (it *Iterator) Err() error { return it.err }
