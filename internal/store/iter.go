package store

import (
	"bytes"
	"container/heap"
	"sort"
)

// iterator walks one source of entries (a memtable, a table, a level) in
// key order, deletions included, one entry per key.
type iterator interface {
	seek(key []byte)
	next()
	valid() bool
	key() []byte
	value() []byte
	deleted() bool
	err() error
}

// levelIter walks the non-overlapping tables of a level 1+ as one.
type levelIter struct {
	tables []*table
	fill   bool
	i      int
	cur    *tableIter
}

func (it *levelIter) open(i int, key []byte) {
	it.i, it.cur = i, nil
	for it.i < len(it.tables) {
		it.cur = it.tables[it.i].iter(it.fill)
		it.cur.seek(key)
		if it.cur.valid() || it.cur.err() != nil {
			return
		}
		it.i, key = it.i+1, nil
	}
	it.cur = nil
}

func (it *levelIter) seek(key []byte) {
	it.open(sort.Search(len(it.tables), func(i int) bool { return bytes.Compare(it.tables[i].largest, key) >= 0 }), key)
}

func (it *levelIter) next() {
	it.cur.next()
	if !it.cur.valid() && it.cur.err() == nil {
		it.open(it.i+1, nil)
	}
}

func (it *levelIter) valid() bool   { return it.cur != nil && it.cur.valid() }
func (it *levelIter) key() []byte   { return it.cur.key() }
func (it *levelIter) value() []byte { return it.cur.value() }
func (it *levelIter) deleted() bool { return it.cur.deleted() }
func (it *levelIter) err() error {
	if it.cur == nil {
		return nil
	}
	return it.cur.err()
}

// mergeIter merges sources ordered newest first: for a key held by several
// sources, the newest one's entry is the one seen.
type mergeIter struct {
	srcs []iterator
	h    mergeHeap
	e    error
}

type mergeHeap struct {
	items []int // source indexes
	srcs  []iterator
}

func (h *mergeHeap) Len() int { return len(h.items) }
func (h *mergeHeap) Less(i, j int) bool {
	a, b := h.items[i], h.items[j]
	c := bytes.Compare(h.srcs[a].key(), h.srcs[b].key())
	return c < 0 || c == 0 && a < b
}
func (h *mergeHeap) Swap(i, j int) { h.items[i], h.items[j] = h.items[j], h.items[i] }
func (h *mergeHeap) Push(x any)    { h.items = append(h.items, x.(int)) }
func (h *mergeHeap) Pop() any {
	x := h.items[len(h.items)-1]
	h.items = h.items[:len(h.items)-1]
	return x
}

func newMergeIter(srcs []iterator) *mergeIter {
	return &mergeIter{srcs: srcs, h: mergeHeap{srcs: srcs}}
}

func (it *mergeIter) seek(key []byte) {
	it.h.items = it.h.items[:0]
	for i, s := range it.srcs {
		s.seek(key)
		if s.valid() {
			it.h.items = append(it.h.items, i)
		} else if err := s.err(); err != nil {
			it.e = err
		}
	}
	heap.Init(&it.h)
}

func (it *mergeIter) next() {
	k := it.key()
	for len(it.h.items) > 0 {
		top := it.h.items[0]
		s := it.srcs[top]
		if !bytes.Equal(s.key(), k) {
			return
		}
		s.next()
		if s.valid() {
			heap.Fix(&it.h, 0)
			continue
		}
		if err := s.err(); err != nil {
			it.e = err
		}
		heap.Pop(&it.h)
	}
}

func (it *mergeIter) valid() bool   { return it.e == nil && len(it.h.items) > 0 }
func (it *mergeIter) cur() iterator { return it.srcs[it.h.items[0]] }
func (it *mergeIter) key() []byte   { return it.cur().key() }
func (it *mergeIter) value() []byte { return it.cur().value() }
func (it *mergeIter) deleted() bool { return it.cur().deleted() }
func (it *mergeIter) err() error    { return it.e }
