// Package twogen is a cache bounded in bytes, split into shards, each of
// which keeps two generations of entries: a new entry goes into the newer
// one, and when that is full the older is dropped whole and the newer
// takes its place. An entry read from the older moves to the newer, so
// what is read keeps its place while what is not ages out: an LRU
// approximation with no per-read bookkeeping (no list to relink, no
// timestamps), which is what the node's read caches want on their hot
// paths. At most twice a generation's bytes are held per shard.
//
// A read takes its shard's lock shared, never exclusive: the upper nodes
// of a trie are read by every walk of it, so their few shards are read by
// every reader at once, and with an exclusive lock each reader queued
// behind the others (at 10M accounts, 82% of the node's lock waits were
// this cache's). Moving an entry from the older generation to the newer
// needs the lock exclusive; a read only tries for it, and leaves the
// entry where it is when another holds it (a later read moves it).
//
// It is for values that never change under their key (content-addressed
// data: a trie node under its hash, code under its code hash, a read
// under the root that fixes it), so a Put of a key already held keeps the
// held value.
package twogen

import (
	"sync"
	"sync/atomic"
	"unsafe"
)

// Cache maps keys of type K to values of type V, bounded in bytes. It is
// safe for concurrent use; a nil *Cache holds nothing.
type Cache[K comparable, V any] struct {
	gen    int64 // bytes a generation of a shard holds before it turns over
	extra  int64 // what an entry costs beside its value: key, value header, the map's share
	hash   func(K) uint64
	cost   func(V) int64
	shards []shard[K, V]
}

type shard[K comparable, V any] struct {
	// mu is held shared to read the maps, exclusive to change them.
	mu           sync.RWMutex
	cur, old     map[K]V
	curBytes     int64 // charged for cur's entries
	oldBytes     int64 // and for old's
	hits, misses atomic.Uint64
	_            [32]byte // apart from the next shard's lock
}

// mapShare is what a map entry costs beside its key and value: the
// bucket's control byte and the room a map keeps free.
const mapShare = 40

// New returns a cache of about bytes (nil, which holds nothing, for
// bytes <= 0) in shards shards: at most half of it in the newer
// generations, as much in the older. hash picks a key's shard; it takes
// the key by value, since a pointer handed to a function value would move
// every looked-up key to the heap. cost is a value's size in bytes (a
// slice's length, say), to which the cache adds the entry's fixed cost. A
// value costing more than a generation is not kept.
func New[K comparable, V any](bytes int64, shards int, hash func(K) uint64, cost func(V) int64) *Cache[K, V] {
	if bytes <= 0 {
		return nil
	}
	shards = max(shards, 1)
	var k K
	var v V
	return &Cache[K, V]{
		gen:    max(bytes/2/int64(shards), 1),
		extra:  int64(unsafe.Sizeof(k)+unsafe.Sizeof(v)) + mapShare,
		hash:   hash,
		cost:   cost,
		shards: make([]shard[K, V], shards),
	}
}

func (c *Cache[K, V]) shard(k K) *shard[K, V] {
	return &c.shards[c.hash(k)%uint64(len(c.shards))]
}

// Get returns the value cached under k.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	if c == nil {
		var zero V
		return zero, false
	}
	sh := c.shard(k)
	sh.mu.RLock()
	v, ok := sh.cur[k]
	older := false
	if !ok {
		v, older = sh.old[k]
	}
	sh.mu.RUnlock()
	switch {
	case ok:
	case older:
		c.promote(sh, k)
	default:
		sh.misses.Add(1)
		var zero V
		return zero, false
	}
	sh.hits.Add(1)
	return v, true
}

// promote moves k from sh's older generation to the newer, if sh's lock
// is free and k is still there.
func (c *Cache[K, V]) promote(sh *shard[K, V], k K) {
	if !sh.mu.TryLock() {
		return
	}
	if v, ok := sh.old[k]; ok {
		cost := c.cost(v) + c.extra
		delete(sh.old, k)
		sh.oldBytes -= cost
		c.add(sh, k, v, cost)
	}
	sh.mu.Unlock()
}

// Put caches v under k unless k is held already; the cache keeps v (a
// slice's bytes are shared with every later Get: nobody may change them).
func (c *Cache[K, V]) Put(k K, v V) { c.put(k, v, false) }

// TryPut is Put when k's shard is free, and nothing otherwise: for a
// reader that caches what it just read, which would rather go on than
// wait behind the shard's other readers and writers (a read-write lock's
// writer waits for every reader in, and holds back every reader after
// it) for a value a later read can cache as well.
func (c *Cache[K, V]) TryPut(k K, v V) { c.put(k, v, true) }

func (c *Cache[K, V]) put(k K, v V, try bool) {
	if c == nil {
		return
	}
	cost := c.cost(v) + c.extra
	if cost > c.gen {
		return
	}
	sh := c.shard(k)
	if !try {
		sh.mu.Lock()
	} else if !sh.mu.TryLock() {
		return
	}
	if _, ok := sh.cur[k]; !ok {
		c.dropOld(sh, k)
		c.add(sh, k, v, cost)
	}
	sh.mu.Unlock()
}

// add puts k in sh's newer generation, turning the generations over
// first when it is full; sh.mu is held.
func (c *Cache[K, V]) add(sh *shard[K, V], k K, v V, cost int64) {
	if sh.cur == nil {
		// Grown as entries come: sized for a generation up front, a
		// node's many shards would cost its start zeroed pages for the
		// few entries it makes.
		sh.cur = map[K]V{}
	}
	if sh.curBytes+cost > c.gen {
		sh.old, sh.cur = sh.cur, make(map[K]V, len(sh.cur))
		sh.oldBytes, sh.curBytes = sh.curBytes, 0
	}
	sh.cur[k] = v
	sh.curBytes += cost
}

// Drop forgets k (data deleted from the store the cache fronts).
func (c *Cache[K, V]) Drop(k K) {
	if c == nil {
		return
	}
	sh := c.shard(k)
	sh.mu.Lock()
	if v, ok := sh.cur[k]; ok {
		sh.curBytes -= c.cost(v) + c.extra
		delete(sh.cur, k)
	}
	c.dropOld(sh, k)
	sh.mu.Unlock()
}

// dropOld removes k from sh's older generation; sh.mu is held.
func (c *Cache[K, V]) dropOld(sh *shard[K, V], k K) {
	if v, ok := sh.old[k]; ok {
		sh.oldBytes -= c.cost(v) + c.extra
		delete(sh.old, k)
	}
}

// Stats is what a cache holds and how it served since it was made.
type Stats struct {
	Hits, Misses uint64
	Entries      int
	Bytes        int64 // charged for the entries held, both generations
}

// Stats adds up the shards, taking each shard's lock in turn (briefly:
// no entry is visited).
func (c *Cache[K, V]) Stats() Stats {
	var s Stats
	if c == nil {
		return s
	}
	for i := range c.shards {
		sh := &c.shards[i]
		sh.mu.RLock()
		s.Hits += sh.hits.Load()
		s.Misses += sh.misses.Load()
		s.Entries += len(sh.cur) + len(sh.old)
		s.Bytes += sh.curBytes + sh.oldBytes
		sh.mu.RUnlock()
	}
	return s
}

// Bytes is the cost of a byte slice value: its length.
func Bytes(b []byte) int64 { return int64(len(b)) }
