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
type blockCache struct {
	capacity int64
	// reserved is taken from the capacity by the pinned blocks; a shard
	// gives its part of it back as it next takes a block.
	reserved atomic.Int64
	shards   [cacheShards]cacheShard
}

const cacheShards = 16

type cacheKey struct {
	table uint64
	off   int64
}

type cacheShard struct {
	mu           sync.Mutex
	used         int64
	hits, misses uint64
	items        map[cacheKey]*list.Element
	lru          list.List // front: most recently used
}

type cacheEntry struct {
	key cacheKey
	blk block
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
	defer s.mu.Unlock()
	e, ok := s.items[k]
	if !ok {
		s.misses++
		return block{}, false
	}
	s.hits++
	s.lru.MoveToFront(e)
	return e.Value.(*cacheEntry).blk, true
}

// put adds a block, evicting the least recently used ones beyond the
// shard's share; a block larger than the share is not kept.
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
	s.items[k] = s.lru.PushFront(&cacheEntry{key: k, blk: blk})
	s.used += cost
	for s.used > limit {
		s.removeLocked(s.lru.Back())
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
	s.lru.Remove(e)
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
	var s CacheStats
	for i := range db.cache.shards {
		sh := &db.cache.shards[i]
		sh.mu.Lock()
		s.Hits += sh.hits
		s.Misses += sh.misses
		s.CacheBytes += sh.used
		sh.mu.Unlock()
	}
	s.PinnedBytes = db.cache.reserved.Load()
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
