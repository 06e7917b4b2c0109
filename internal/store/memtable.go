package store

import (
	"bytes"
	"encoding/binary"
	"sync/atomic"
)

// memtable holds the writes not yet in a table, sorted, as a skip list.
// One writer (holding the store's write lock) inserts while any number
// of readers walk it without a lock: a node is fully built before the
// atomic store that links it in, so a reader sees it whole or not at all.
// Nothing is overwritten in place. Every entry carries the sequence number
// of its operation, and a reader ignores entries newer than the sequence
// it started at, so it never sees part of a batch.
type memtable struct {
	head   *mnode
	height atomic.Int32
	rnd    uint64
	bytes  atomic.Int64 // approximate memory held
	walNum uint64       // the log that holds these writes
}

const maxHeight = 16

type mnode struct {
	pfx  uint64 // the key's first 8 bytes: most comparisons end here, without a pointer chase
	key  []byte
	val  []byte
	seq  uint64
	del  bool
	next []atomic.Pointer[mnode]
	// tower holds next for the nodes of height ≤ 2 (15 in 16): one
	// allocation less per write.
	tower [2]atomic.Pointer[mnode]
}

func newMemtable(walNum uint64) *memtable {
	m := &memtable{head: &mnode{next: make([]atomic.Pointer[mnode], maxHeight)}, rnd: 0x9e3779b97f4a7c15 ^ walNum, walNum: walNum}
	m.height.Store(1)
	return m
}

// keyPrefix is the first 8 bytes of a key, big-endian, zero-padded: two
// keys whose prefixes differ compare as their prefixes do.
func keyPrefix(key []byte) uint64 {
	if len(key) >= 8 {
		return binary.BigEndian.Uint64(key)
	}
	var b [8]byte
	copy(b[:], key)
	return binary.BigEndian.Uint64(b[:])
}

// before orders entries: key ascending, then newest first.
func (n *mnode) before(key []byte, pfx, seq uint64) bool {
	if n.pfx != pfx {
		return n.pfx < pfx
	}
	c := bytes.Compare(n.key, key)
	return c < 0 || c == 0 && n.seq > seq
}

func (m *memtable) randomHeight() int {
	h := 1
	for h < maxHeight {
		m.rnd ^= m.rnd << 13
		m.rnd ^= m.rnd >> 7
		m.rnd ^= m.rnd << 17
		if m.rnd&3 != 0 {
			break
		}
		h++
	}
	return h
}

// add inserts an entry; the caller holds the write lock. key and val are
// copied.
func (m *memtable) add(key, val []byte, seq uint64, del bool) {
	var prev [maxHeight]*mnode
	pfx := keyPrefix(key)
	x := m.head
	for lvl := int(m.height.Load()) - 1; lvl >= 0; lvl-- {
		for nx := x.next[lvl].Load(); nx != nil && nx.before(key, pfx, seq); nx = x.next[lvl].Load() {
			x = nx
		}
		prev[lvl] = x
	}
	h := m.randomHeight()
	if cur := int(m.height.Load()); h > cur {
		for lvl := cur; lvl < h; lvl++ {
			prev[lvl] = m.head
		}
		m.height.Store(int32(h))
	}
	buf := make([]byte, len(key)+len(val))
	copy(buf, key)
	copy(buf[len(key):], val)
	n := &mnode{pfx: pfx, key: buf[:len(key):len(key)], val: buf[len(key):], seq: seq, del: del}
	if h <= len(n.tower) {
		n.next = n.tower[:h]
	} else {
		n.next = make([]atomic.Pointer[mnode], h)
	}
	for lvl := 0; lvl < h; lvl++ {
		n.next[lvl].Store(prev[lvl].next[lvl].Load())
	}
	for lvl := 0; lvl < h; lvl++ {
		prev[lvl].next[lvl].Store(n)
	}
	m.bytes.Add(int64(len(buf) + 112 + 8*h))
}

// seek returns the first node at or after key visible at seq.
func (m *memtable) seek(key []byte, seq uint64) *mnode {
	pfx := keyPrefix(key)
	x := m.head
	for lvl := int(m.height.Load()) - 1; lvl >= 0; lvl-- {
		for nx := x.next[lvl].Load(); nx != nil && nx.before(key, pfx, seq); nx = x.next[lvl].Load() {
			x = nx
		}
	}
	return x.next[0].Load()
}

// get finds the newest entry of key visible at seq.
func (m *memtable) get(key []byte, seq uint64) (val []byte, del, ok bool) {
	n := m.seek(key, seq)
	if n == nil || !bytes.Equal(n.key, key) {
		return nil, false, false
	}
	return n.val, n.del, true
}

// memIter walks a memtable in key order, one entry per key: the newest
// visible at seq.
type memIter struct {
	m   *memtable
	seq uint64
	n   *mnode
}

func (it *memIter) seek(key []byte) {
	it.n = it.m.seek(key, it.seq)
	it.skipInvisible()
}

// skipInvisible moves past entries newer than the iterator's sequence.
func (it *memIter) skipInvisible() {
	for it.n != nil && it.n.seq > it.seq {
		it.n = it.n.next[0].Load()
	}
}

func (it *memIter) next() {
	k := it.n.key
	for it.n = it.n.next[0].Load(); it.n != nil && (bytes.Equal(it.n.key, k) || it.n.seq > it.seq); it.n = it.n.next[0].Load() {
	}
}

func (it *memIter) valid() bool   { return it.n != nil }
func (it *memIter) key() []byte   { return it.n.key }
func (it *memIter) value() []byte { return it.n.val }
func (it *memIter) deleted() bool { return it.n.del }
func (it *memIter) err() error    { return nil }
