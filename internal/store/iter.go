package store

import (
	"bytes"
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
// sources, the newest one's entry is the one seen. The sources at hand
// sit in a binary heap by (key, age).
type mergeIter struct {
	srcs []iterator
	h    []int // indexes of the valid sources, a heap
	e    error
}

func newMergeIter(srcs []iterator) *mergeIter {
	return &mergeIter{srcs: srcs, h: make([]int, 0, len(srcs))}
}

func (it *mergeIter) less(i, j int) bool {
	a, b := it.h[i], it.h[j]
	c := bytes.Compare(it.srcs[a].key(), it.srcs[b].key())
	return c < 0 || c == 0 && a < b
}

func (it *mergeIter) down(i int) {
	n := len(it.h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && it.less(r, l) {
			m = r
		}
		if !it.less(m, i) {
			return
		}
		it.h[i], it.h[m] = it.h[m], it.h[i]
		i = m
	}
}

func (it *mergeIter) seek(key []byte) {
	it.h = it.h[:0]
	for i, s := range it.srcs {
		s.seek(key)
		if s.valid() {
			it.h = append(it.h, i)
		} else if err := s.err(); err != nil {
			it.e = err
		}
	}
	for i := len(it.h)/2 - 1; i >= 0; i-- {
		it.down(i)
	}
}

// next moves every source at the current key past it.
func (it *mergeIter) next() {
	k := it.key()
	for len(it.h) > 0 {
		s := it.srcs[it.h[0]]
		if !bytes.Equal(s.key(), k) {
			return
		}
		s.next()
		if !s.valid() {
			if err := s.err(); err != nil {
				it.e = err
			}
			last := len(it.h) - 1
			it.h[0] = it.h[last]
			it.h = it.h[:last]
		}
		it.down(0)
	}
}

func (it *mergeIter) valid() bool   { return it.e == nil && len(it.h) > 0 }
func (it *mergeIter) cur() iterator { return it.srcs[it.h[0]] }
func (it *mergeIter) key() []byte   { return it.cur().key() }
func (it *mergeIter) value() []byte { return it.cur().value() }
func (it *mergeIter) deleted() bool { return it.cur().deleted() }
func (it *mergeIter) err() error    { return it.e }
