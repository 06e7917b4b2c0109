package chain

import (
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/twogen"
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

// A nodeCache keeps the trie nodes and code the chain read last, by hash,
// bounded in bytes. A block's root is computed by walking the account
// trie from its root down to every account the block changed: in a state
// of millions of accounts most of those paths pass through nodes stored
// long ago, and the store's block cache is a poor place for them: a
// node's hash says nothing of where it sits, so each node held costs the
// whole 4 KiB block around it, where this holds the node alone (the upper
// five levels of a 10M-account trie, which blocks keep walking through,
// take some 40 MiB here and seven times that as blocks).
//
// Of the nodes a block writes only those of each trie's upper levels
// (writtenCacheDepth) are put here: every block rewrites the nodes on the
// paths it changes, so a cache of nodes read alone never held the upper
// levels' current nodes, and each block read them back from the store
// (at 10M accounts with 9,000 transfers a block, some 13,000 store reads
// a block of the levels 0-4); the nodes below are mostly not read again
// before blocks that pass there rewrite them.
//
// It is a twogen cache: two generations per shard, the older dropped
// when the newer fills, a node read from the older moving to the newer.
type nodeCache = twogen.Cache[[32]byte, []byte]

// nodeCacheShards is one shard per value of a hash's first byte. A shard
// is locked exclusive by every node put (a store read's result, a
// block's written upper nodes) and for a while when its newer generation
// turns over (a map of a generation's entries made, the older dropped):
// at 32 shards, over a 10M-account load, readers waited 3.3 s per 30 s
// on puts. Smaller shards turn over more often, in proportion, each
// turning over a smaller map.
const nodeCacheShards = 256

// writtenCacheDepth bounds the written nodes the node cache keeps: those
// less deep in their trie (the root is at 0): at most 69,905 nodes of a
// trie, some 37 MiB of full branch nodes.
const writtenCacheDepth = 5

// newNodeCache returns a cache of about bytes (nil for none).
func newNodeCache(bytes int64) *nodeCache {
	return twogen.New[[32]byte, []byte](bytes, nodeCacheShards, func(h [32]byte) uint64 { return uint64(h[0]) }, twogen.Bytes)
}

// CacheUse is how one of the caches the chain's reads go through served
// since the start, for the node's metrics.
type CacheUse struct {
	Name         string // trie_nodes, state_reads, code, store_blocks
	Hits, Misses uint64
	Bytes        int64 // held now
}

// Caches reports the chain's read caches and, when its store has one,
// the store's block cache; store is the store's pinned index and filter
// blocks (ok false for a store without them).
func (c *Chain) Caches() (caches []CacheUse, st store.CacheStats, ok bool) {
	use := func(name string, s twogen.Stats) {
		caches = append(caches, CacheUse{Name: name, Hits: s.Hits, Misses: s.Misses, Bytes: s.Bytes})
	}
	use("trie_nodes", c.db.clean.Stats())
	use("state_reads", c.reads.ReadStats())
	use("code", c.reads.CodeStats())
	if kv, is := c.db.kv.(interface{ CacheStats() store.CacheStats }); is {
		st, ok = kv.CacheStats(), true
		caches = append(caches, CacheUse{Name: "store_blocks", Hits: st.Hits, Misses: st.Misses, Bytes: st.CacheBytes})
	}
	return caches, st, ok
}
