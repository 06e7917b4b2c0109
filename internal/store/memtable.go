package store

import (
	"bytes"
	"encoding/binary"
	"sync/atomic"
	"unsafe"
)

// memtable holds the writes not yet in a table, sorted, as a skip list.
// One writer (holding the store's write lock) inserts while any number
// of readers walk it without a lock: a node is fully built before the
// atomic store that links it in, so a reader sees it whole or not at all.
// Nothing is overwritten in place. Every entry carries the sequence number
// of its operation, and a reader ignores entries newer than the sequence
// it started at, so it never sees part of a batch.
//
// The nodes live in an arena: a few large chunks of 64-bit words that
// each node (its header, its links, its key and value) is appended to.
// A link is a node's position (chunk and word), not a pointer, so a write
// allocates nothing (a per-entry node and buffer cost two allocations a
// key, and the garbage collector had to trace every node of every
// memtable on each cycle; the chunks hold no pointers, so it skips them),
// and a node costs its key, value, three words and its links.
type memtable struct {
	// chunks is replaced (by the writer) with a longer list before a
	// node in a new chunk is linked in, so a reader that reaches the
	// node finds its chunk.
	chunks atomic.Pointer[[]arenaChunk]
	cur    int // the chunk being filled (writer only)
	used   int // words of it used (writer only)
	chunkW int // words of a regular chunk

	height atomic.Int32
	rnd    uint64
	// bytes is the arena's size, its chunks whole: the memory the
	// memtable holds, which MemtableBytes bounds.
	bytes  atomic.Int64
	walNum uint64 // the log that holds these writes
	// log is that log once the memtable is immutable, for the flusher to
	// finish and close (nil once it has); nil while the memtable is
	// current.
	log *wal
	// filter is a bloom filter of the keys added (memFilter): a store
	// read looks in the current memtable and each one waiting to be
	// flushed before the tables, and nearly every key it looks for is in
	// none of them (a trie node of an older block). Without it each such
	// read walked two or three skip lists of tens of thousands of nodes
	// to find nothing, a cache miss a level (at 10M accounts, 5% of the
	// node's CPU).
	filter []atomic.Uint64
}

// memFilterRatio is the memtable bytes per filter word: 4 bits a byte
// of memtable, some 10 bits a key for the smallest entries (a flat-state
// account, ~100 bytes with its node) and more for the rest. The filter
// is a 32nd of the memtable, beside what MemtableBytes bounds.
const memFilterRatio = 256

// memFilterWord is a key's bits in its filter word: four of the word's
// 64, chosen by the hash's upper half (its lower bits pick the word).
func memFilterWord(h uint64) uint64 {
	return 1<<(h>>32&63) | 1<<(h>>38&63) | 1<<(h>>44&63) | 1<<(h>>50&63)
}

// mayHold is false when the memtable has no entry of the key whose
// keyHash is h. The writer sets a key's bits before it links the key's
// node, so a reader that could find the node finds the bits.
func (m *memtable) mayHold(h uint64) bool {
	bits := memFilterWord(h)
	return m.filter[h&uint64(len(m.filter)-1)].Load()&bits == bits
}

// arenaChunk is one chunk of the arena, seen as words (for the links,
// which are read and written atomically) and as bytes (keys and values).
type arenaChunk struct {
	w []uint64
	b []byte
}

// A node is at word i of its chunk:
//
//	w[i+nMeta]  sequence<<6 | height<<1 | deleted
//	w[i+nLens]  key length<<32 | value length
//	w[i+nPfx]   the key's first 8 bytes (keyPrefix)
//	w[i+nTower...] a link per level, 0 for none
//
// then the key and the value, padded to a word. A node reference is
// chunk<<32 | word; the head is at word 1 of chunk 0, so 0 is no node.
const (
	nMeta  = 0
	nLens  = 1
	nPfx   = 2
	nTower = 3

	headRef   = 1
	maxHeight = 16
)

// newMemtable makes an empty memtable feeding a store whose memtables
// hold about size bytes (the chunk size follows it: an eighth, so a full
// memtable wastes little of its last chunk; 1 MiB at the default 8 MiB).
func newMemtable(walNum uint64, size int64) *memtable {
	chunkB := min(max(size/8, 512), 1<<20)
	words := 64
	for int64(words)*memFilterRatio < size && words < 1<<26 {
		words *= 2
	}
	m := &memtable{rnd: 0x9e3779b97f4a7c15 ^ walNum, walNum: walNum, chunkW: int(chunkB / 8), filter: make([]atomic.Uint64, words)}
	chunks := make([]arenaChunk, 0, 16)
	m.chunks.Store(&chunks)
	m.cur = m.addChunk(m.chunkW)
	m.used = headRef + nTower + maxHeight
	w := (*m.chunks.Load())[0].w
	w[headRef+nMeta] = maxHeight << 1
	m.height.Store(1)
	return m
}

// addChunk adds a chunk of n words and returns its index; writer only.
func (m *memtable) addChunk(n int) int {
	w := make([]uint64, n)
	c := arenaChunk{w: w, b: unsafe.Slice((*byte)(unsafe.Pointer(&w[0])), n*8)}
	// Appending in place is safe: readers' lists end before the new
	// element and never see it until they load the new list.
	chunks := append(*m.chunks.Load(), c)
	m.chunks.Store(&chunks)
	m.bytes.Add(int64(n * 8))
	return len(chunks) - 1
}

// alloc returns room for a node of n words; writer only. A node larger
// than a quarter of a chunk gets a chunk of its own, so the chunk being
// filled is not left part empty.
func (m *memtable) alloc(n int) uint64 {
	if n > m.chunkW/4 {
		return uint64(m.addChunk(n)) << 32
	}
	if m.used+n > m.chunkW {
		m.cur, m.used = m.addChunk(m.chunkW), 0
	}
	ref := uint64(m.cur)<<32 | uint64(m.used)
	m.used += n
	return ref
}

// at returns the chunk of node ref and the node's word in it.
func (m *memtable) at(ref uint64) (*arenaChunk, int) {
	return &(*m.chunks.Load())[ref>>32], int(uint32(ref))
}

// next is node ref's link at level lvl.
func (m *memtable) next(ref uint64, lvl int) uint64 {
	c, i := m.at(ref)
	return atomic.LoadUint64(&c.w[i+nTower+lvl])
}

// entry returns node ref's key, value, sequence and deletion mark.
func (m *memtable) entry(ref uint64) (key, val []byte, seq uint64, del bool) {
	c, i := m.at(ref)
	meta, lens := c.w[i+nMeta], c.w[i+nLens]
	kl, vl := int(lens>>32), int(uint32(lens))
	off := (i + nTower + int(meta>>1&31)) * 8
	return c.b[off : off+kl : off+kl], c.b[off+kl : off+kl+vl : off+kl+vl], meta >> 6, meta&1 == 1
}

func (m *memtable) key(ref uint64) []byte {
	k, _, _, _ := m.entry(ref)
	return k
}

func (m *memtable) seqOf(ref uint64) uint64 {
	c, i := m.at(ref)
	return c.w[i+nMeta] >> 6
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

// before orders entries: key ascending, then newest first. Most
// comparisons end at the prefix, in the node's header.
func (m *memtable) before(ref uint64, key []byte, pfx, seq uint64) bool {
	c, i := m.at(ref)
	if p := c.w[i+nPfx]; p != pfx {
		return p < pfx
	}
	k, _, s, _ := m.entry(ref)
	cmp := bytes.Compare(k, key)
	return cmp < 0 || cmp == 0 && s > seq
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
	var prev [maxHeight]uint64
	pfx := keyPrefix(key)
	x := uint64(headRef)
	for lvl := int(m.height.Load()) - 1; lvl >= 0; lvl-- {
		for nx := m.next(x, lvl); nx != 0 && m.before(nx, key, pfx, seq); nx = m.next(x, lvl) {
			x = nx
		}
		prev[lvl] = x
	}
	h := m.randomHeight()
	if cur := int(m.height.Load()); h > cur {
		for lvl := cur; lvl < h; lvl++ {
			prev[lvl] = headRef
		}
		m.height.Store(int32(h))
	}
	n := nTower + h + (len(key)+len(val)+7)/8
	ref := m.alloc(n)
	c, i := m.at(ref)
	var d uint64
	if del {
		d = 1
	}
	c.w[i+nMeta] = seq<<6 | uint64(h)<<1 | d
	c.w[i+nLens] = uint64(len(key))<<32 | uint64(len(val))
	c.w[i+nPfx] = pfx
	off := (i + nTower + h) * 8
	copy(c.b[off:], key)
	copy(c.b[off+len(key):], val)
	kh := keyHash(key)
	m.filter[kh&uint64(len(m.filter)-1)].Or(memFilterWord(kh))
	for lvl := 0; lvl < h; lvl++ {
		atomic.StoreUint64(&c.w[i+nTower+lvl], m.next(prev[lvl], lvl))
	}
	for lvl := 0; lvl < h; lvl++ {
		pc, pi := m.at(prev[lvl])
		atomic.StoreUint64(&pc.w[pi+nTower+lvl], ref)
	}
}

// seek returns the first node at or after key visible at seq (0: none).
//
// It returns the link the level-0 walk stopped at, not x's link loaded
// again: the writer may link a node of a smaller key after x meanwhile,
// and get, seeing that key, reported a key just written as absent (or
// fell through to an older value in an older memtable or table).
func (m *memtable) seek(key []byte, seq uint64) uint64 {
	pfx := keyPrefix(key)
	x := uint64(headRef)
	var nx uint64
	for lvl := int(m.height.Load()) - 1; lvl >= 0; lvl-- {
		for nx = m.next(x, lvl); nx != 0 && m.before(nx, key, pfx, seq); nx = m.next(x, lvl) {
			x = nx
		}
	}
	if seekHook != nil {
		seekHook(m)
	}
	return nx
}

// seekHook, when set (tests), runs as a seek ends, for a test to insert
// a node where a concurrent writer could.
var seekHook func(m *memtable)

// get finds the newest entry of key, whose keyHash is h, visible at seq.
func (m *memtable) get(key []byte, h, seq uint64) (val []byte, del, ok bool) {
	if !m.mayHold(h) {
		return nil, false, false
	}
	n := m.seek(key, seq)
	if n == 0 {
		return nil, false, false
	}
	k, v, _, d := m.entry(n)
	if !bytes.Equal(k, key) {
		return nil, false, false
	}
	return v, d, true
}

// memIter walks a memtable in key order, one entry per key: the newest
// visible at seq.
type memIter struct {
	m    *memtable
	seq  uint64
	n    uint64
	k, v []byte
	del  bool
}

func (it *memIter) seek(key []byte) {
	it.n = it.m.seek(key, it.seq)
	it.skipInvisible()
	it.load()
}

// skipInvisible moves past entries newer than the iterator's sequence.
func (it *memIter) skipInvisible() {
	for it.n != 0 && it.m.seqOf(it.n) > it.seq {
		it.n = it.m.next(it.n, 0)
	}
}

func (it *memIter) load() {
	if it.n != 0 {
		it.k, it.v, _, it.del = it.m.entry(it.n)
	}
}

func (it *memIter) next() {
	k := it.k
	for it.n = it.m.next(it.n, 0); it.n != 0; it.n = it.m.next(it.n, 0) {
		nk, _, s, _ := it.m.entry(it.n)
		if s <= it.seq && !bytes.Equal(nk, k) {
			break
		}
	}
	it.load()
}

func (it *memIter) valid() bool   { return it.n != 0 }
func (it *memIter) key() []byte   { return it.k }
func (it *memIter) value() []byte { return it.v }
func (it *memIter) deleted() bool { return it.del }
func (it *memIter) err() error    { return nil }
