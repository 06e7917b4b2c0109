package store

import (
	"container/list"
	"sync"
)

// blockCache keeps recently read table blocks (checked and parsed, ready
// to search) in memory, up to a configured number of bytes: it is the only
// memory of the store that grows with use, and its bound is the --cache
// flag. It is split into shards by block so readers on different blocks
// rarely wait for each other.
type blockCache struct {
	shards [cacheShards]cacheShard
}

const cacheShards = 16

type cacheKey struct {
	table uint64
	off   int64
}

type cacheShard struct {
	mu    sync.Mutex
	cap   int64
	used  int64
	items map[cacheKey]*list.Element
	lru   list.List // front: most recently used
}

type cacheEntry struct {
	key cacheKey
	blk block
}

// cost is what a block is charged in the cache.
func (b block) cost() int64 { return int64(len(b.data)+len(b.restarts)) + 96 }

func newBlockCache(capacity int64) *blockCache {
	c := &blockCache{}
	for i := range c.shards {
		c.shards[i].cap = capacity / cacheShards
		c.shards[i].items = make(map[cacheKey]*list.Element)
	}
	return c
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
		return block{}, false
	}
	s.lru.MoveToFront(e)
	return e.Value.(*cacheEntry).blk, true
}

// put adds a block, evicting the least recently used ones beyond the
// shard's share; a block larger than the share is not kept.
func (c *blockCache) put(k cacheKey, blk block) {
	s := c.shard(k)
	cost := blk.cost()
	if cost > s.cap {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.items[k]; ok {
		return
	}
	s.items[k] = s.lru.PushFront(&cacheEntry{key: k, blk: blk})
	s.used += cost
	for s.used > s.cap {
		e := s.lru.Back()
		ce := e.Value.(*cacheEntry)
		s.lru.Remove(e)
		delete(s.items, ce.key)
		s.used -= ce.blk.cost()
	}
}
