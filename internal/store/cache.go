package store

import (
	"container/list"
	"sync"
	"sync/atomic"
)

// blockCache keeps recently read table blocks (checked and parsed, ready
// to search) in memory, up to a configured number of bytes: with the
// pinned index and filter blocks (pin.go), which it makes room for, it is
// the only memory of the store that grows with use, and its bound is the
// --cache flag. It is split into shards by block so readers on different
// blocks rarely wait for each other.
//
// A hit only marks its block referenced, so a shard's lock is held for a
// map lookup and no more (an LRU moves the block to the front on every
// hit: at 10M accounts the readers of a node's block waited 6.4 s per
// 30 s on these locks). The lock is a plain mutex, not a read-write one:
// half the lookups miss and insert, and a writer waiting on a read-write
// lock holds back every reader that comes after it until the readers
// before it are done, so one reader the machine preempts stalls the
// shard (tried: on a loaded node the waits in this cache doubled).
//
// A shard is a segmented cache: a block enters probation, and moves to
// the protected segment (protectedShare of the shard) only if it is read
// again before it comes up for eviction; the protected segment gives its
// oldest unread blocks back to probation when it is full. A run of blocks
// read once (a walk to cold accounts, whose nodes the chain's node cache
// keeps once read) passes through probation without pushing out the
// blocks that keep being read, which a plain LRU lets it do whenever the
// run is longer than the cache.
type blockCache struct {
	capacity int64
	// reserved is taken from the capacity by the pinned blocks; a shard
	// gives its part of it back as it next takes a block.
	reserved atomic.Int64
	shards   [cacheShards]cacheShard
}

// cacheShards is many, for a node's two cores: a lock holder the machine
// preempts (a loaded one) keeps every reader of its shard waiting, and
// the more shards the fewer readers that is.
const cacheShards = 128

type cacheKey struct {
	table uint64
	off   int64
}

type cacheShard struct {
	mu           sync.Mutex
	used         int64 // by both segments
	protBytes    int64 // by the protected segment
	hits, misses atomic.Uint64
	items        map[cacheKey]*list.Element
	// probation and protected hold *cacheEntry; front: newest.
	probation, protected list.List
	_                    [24]byte // apart from the next shard's lock
}

// protectedShare is the part of a shard (out of 8) blocks read more than
// once may keep.
const protectedShare = 6

type cacheEntry struct {
	key cacheKey
	blk block
	// ref is set by a hit and cleared when the block moves between the
	// segments or is spared at the end of the protected one.
	ref       bool
	protected bool // in the protected segment
}

// cost is what a block is charged in the cache.
func (b block) cost() int64 { return int64(len(b.data)+len(b.restarts)) + 96 }

func newBlockCache(capacity int64) *blockCache {
	c := &blockCache{capacity: capacity}
	for i := range c.shards {
		c.shards[i].items = make(map[cacheKey]*list.Element)
	}
	return c
}

// shardCap is a shard's share of what the pinned blocks leave.
func (c *blockCache) shardCap() int64 {
	return max(c.capacity-c.reserved.Load(), 0) / cacheShards
}

func (c *blockCache) shard(k cacheKey) *cacheShard {
	h := k.table*0x9e3779b97f4a7c15 ^ uint64(k.off)*0xbf58476d1ce4e5b9
	return &c.shards[(h>>32)%cacheShards]
}

func (c *blockCache) get(k cacheKey) (block, bool) {
	s := c.shard(k)
	s.mu.Lock()
	e, ok := s.items[k]
	var ce *cacheEntry
	if ok {
		ce = e.Value.(*cacheEntry)
		ce.ref = true
	}
	s.mu.Unlock()
	if !ok {
		s.misses.Add(1)
		return block{}, false
	}
	s.hits.Add(1)
	return ce.blk, true
}

// put adds a block, evicting beyond the shard's share; a block larger
// than the share is not kept.
func (c *blockCache) put(k cacheKey, blk block) {
	s := c.shard(k)
	cost, limit := blk.cost(), c.shardCap()
	if cost > limit {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.items[k]; ok {
		return
	}
	s.items[k] = s.probation.PushFront(&cacheEntry{key: k, blk: blk})
	s.used += cost
	// Every turn of the loop evicts a block or clears a block's ref, and
	// no ref is set meanwhile (the lock is held): the loop ends.
	for s.used > limit {
		if e := s.probation.Back(); e != nil {
			ce := e.Value.(*cacheEntry)
			if !ce.ref {
				s.removeLocked(e)
				continue
			}
			ce.ref = false
			s.probation.Remove(e)
			ce.protected = true
			s.items[ce.key] = s.protected.PushFront(ce)
			s.protBytes += ce.blk.cost()
			for s.protBytes > limit/8*protectedShare {
				old := s.protected.Back().Value.(*cacheEntry)
				s.protected.Remove(s.protected.Back())
				old.protected = false
				old.ref = false
				s.protBytes -= old.blk.cost()
				s.items[old.key] = s.probation.PushFront(old)
			}
			continue
		}
		e := s.protected.Back()
		if ce := e.Value.(*cacheEntry); ce.ref {
			ce.ref = false
			s.protected.MoveToFront(e)
			continue
		}
		s.removeLocked(e)
	}
}

// drop forgets a block (one now pinned).
func (c *blockCache) drop(k cacheKey) {
	s := c.shard(k)
	s.mu.Lock()
	if e, ok := s.items[k]; ok {
		s.removeLocked(e)
	}
	s.mu.Unlock()
}

func (s *cacheShard) removeLocked(e *list.Element) {
	ce := e.Value.(*cacheEntry)
	if ce.protected {
		s.protected.Remove(e)
		s.protBytes -= ce.blk.cost()
	} else {
		s.probation.Remove(e)
	}
	delete(s.items, ce.key)
	s.used -= ce.blk.cost()
}

// CacheStats is how the store's memory for reads is used and how its
// block cache served since the store was opened.
type CacheStats struct {
	Hits, Misses uint64 // block cache lookups (blocks not pinned)
	CacheBytes   int64  // held in the block cache
	// PinnedBytes is held by the pinned index and filter blocks of
	// PinnedTables of the Tables tables.
	PinnedBytes          int64
	PinnedTables, Tables int
}

// CacheStats reports the block cache's and the pinned blocks' use.
func (db *DB) CacheStats() CacheStats {
	s := db.cacheStats()
	v, _, err := db.acquire()
	if err != nil {
		return s
	}
	defer v.unref()
	for _, lv := range v.levels {
		for _, t := range lv {
			s.Tables++
			if t.pinned.Load() != nil {
				s.PinnedTables++
			}
		}
	}
	return s
}

// cacheStats is the block cache's part of CacheStats.
func (db *DB) cacheStats() CacheStats {
	var s CacheStats
	for i := range db.cache.shards {
		sh := &db.cache.shards[i]
		sh.mu.Lock()
		s.Hits += sh.hits.Load()
		s.Misses += sh.misses.Load()
		s.CacheBytes += sh.used
		sh.mu.Unlock()
	}
	s.PinnedBytes = db.cache.reserved.Load()
	return s
}
