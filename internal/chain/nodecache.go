package chain

import (
	"sync"

	"github.com/chaind/chaind/internal/store"
)

// NodeCacheMiB is the part of a node's cache budget (--cache, MiB) the
// chain keeps trie nodes in: half, since the store's block cache serves
// random reads (flat accounts, nodes) only as well as a block holds one
// wanted entry; the store takes the rest.
func NodeCacheMiB(cacheMiB int) int { return cacheMiB / 2 }

// OpenCached is Open with a node cache of nodeMiB (NodeCacheMiB).
func OpenCached(g *Genesis, kv store.KV, e Engine, nodeMiB int) (*Chain, error) {
	c, err := Open(g, kv, e)
	if err != nil {
		return nil, err
	}
	c.db.clean = newNodeCache(int64(nodeMiB) << 20)
	return c, nil
}

// nodeCache keeps the trie nodes and code the chain read last, by hash,
// bounded in bytes. A block's root is computed by walking the account
// trie from its root down to every account the block changed: in a state
// of millions of accounts most of those paths pass through nodes stored
// long ago, and the store's block cache is a poor place for them: a
// node's hash says nothing of where it sits, so each node held costs the
// whole 4 KiB block around it, where this holds the node alone (the upper
// five levels of a 10M-account trie, which blocks keep walking through,
// take some 40 MiB here and seven times that as blocks). Nodes a block
// wrote are not put here: the next block reads them from the store's
// memtable, and most are never read again.
//
// Each shard keeps two generations and drops the older when the newer
// fills (an LRU approximation with no per-read bookkeeping): a node read
// from the older moves to the newer.
type nodeCache struct {
	perShard int64 // bytes a generation of a shard holds before it turns over
	shards   [nodeCacheShards]nodeShard
}

const nodeCacheShards = 32

type nodeShard struct {
	mu       sync.Mutex
	cur, old map[[32]byte][]byte
	curBytes int64
}

// nodeEntryCost is what an entry costs beside its blob: the key, the
// slice header and the map's share.
const nodeEntryCost = 32 + 24 + 40

// newNodeCache returns a cache of about bytes (nil for none): at most
// that many in the newer generations, as many again in the older.
func newNodeCache(bytes int64) *nodeCache {
	if bytes <= 0 {
		return nil
	}
	return &nodeCache{perShard: max(bytes/2/nodeCacheShards, 64<<10)}
}

func (c *nodeCache) shard(h *[32]byte) *nodeShard {
	return &c.shards[h[0]%nodeCacheShards]
}

// get returns the cached blob of h; the blob is shared and must not be
// changed.
func (c *nodeCache) get(h [32]byte) ([]byte, bool) {
	if c == nil {
		return nil, false
	}
	sh := c.shard(&h)
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if b, ok := sh.cur[h]; ok {
		return b, true
	}
	if b, ok := sh.old[h]; ok {
		delete(sh.old, h)
		sh.add(h, b, c.perShard)
		return b, true
	}
	return nil, false
}

// put caches blob (which the cache keeps: the caller must not change it).
func (c *nodeCache) put(h [32]byte, blob []byte) {
	if c == nil {
		return
	}
	sh := c.shard(&h)
	sh.mu.Lock()
	if _, ok := sh.cur[h]; !ok {
		sh.add(h, blob, c.perShard)
	}
	sh.mu.Unlock()
}

func (sh *nodeShard) add(h [32]byte, blob []byte, limit int64) {
	cost := int64(len(blob)) + nodeEntryCost
	if sh.curBytes+cost > limit {
		sh.old, sh.cur, sh.curBytes = sh.cur, make(map[[32]byte][]byte, len(sh.cur)), 0
	}
	if sh.cur == nil {
		sh.cur = map[[32]byte][]byte{}
	}
	sh.cur[h] = blob
	sh.curBytes += cost
}

// drop forgets h (a node pruning deleted).
func (c *nodeCache) drop(h [32]byte) {
	if c == nil {
		return
	}
	sh := c.shard(&h)
	sh.mu.Lock()
	if b, ok := sh.cur[h]; ok {
		sh.curBytes -= int64(len(b)) + nodeEntryCost
		delete(sh.cur, h)
	}
	delete(sh.old, h)
	sh.mu.Unlock()
}
