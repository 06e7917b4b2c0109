package chain

import (
	"encoding/binary"
	"testing"

	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/trie"
)

func cacheKey(i int) [32]byte {
	var h [32]byte
	binary.BigEndian.PutUint64(h[:], uint64(i)*0x9e3779b97f4a7c15)
	binary.BigEndian.PutUint64(h[8:], uint64(i))
	return h
}

// The cache holds about its size in blobs and entries, keeps what is
// read while newer entries come in, and forgets what is dropped.
func TestNodeCacheBounded(t *testing.T) {
	const size = 4 << 20
	c := newNodeCache(size)
	blob := make([]byte, 200)
	hot := cacheKey(-1)
	c.put(hot, blob)
	for i := 0; i < 100_000; i++ { // 30 MB through a 4 MiB cache
		c.put(cacheKey(i), blob)
		if i%1000 == 0 {
			if _, ok := c.get(hot); !ok {
				t.Fatalf("a node read every 1,000 puts was dropped after %d", i)
			}
		}
	}
	var held int64
	for i := range c.shards {
		sh := &c.shards[i]
		for _, m := range []map[[32]byte][]byte{sh.cur, sh.old} {
			for _, b := range m {
				held += int64(len(b)) + nodeEntryCost
			}
		}
	}
	if held > size {
		t.Fatalf("the cache holds %d bytes, more than its %d", held, size)
	}
	if _, ok := c.get(cacheKey(99_999)); !ok {
		t.Fatal("the last node put is not cached")
	}
	if _, ok := c.get(cacheKey(0)); ok {
		t.Fatal("the first of 100,000 nodes is still cached")
	}
	c.drop(hot)
	if _, ok := c.get(hot); ok {
		t.Fatal("a dropped node is still cached")
	}
	var none *nodeCache
	none.put(hot, blob)
	if _, ok := none.get(hot); ok {
		t.Fatal("a nil cache returned a node")
	}
}

// A chain's DB serves nodes from the cache once read, and a node pruning
// deletes is no longer served.
func TestNodeCacheFollowsTheStore(t *testing.T) {
	kv := store.NewMem()
	db := NewDB(kv)
	db.clean = newNodeCache(1 << 20)
	a, b := cacheKey(1), cacheKey(2)
	var batch store.Batch
	batch.Put(key(prefixNode, a[:]), []byte("read"))
	if err := kv.Write(&batch); err != nil {
		t.Fatal(err)
	}
	if got, err := db.Node(a); err != nil || string(got) != "read" {
		t.Fatalf("Node: %q, %v", got, err)
	}
	if _, ok := db.clean.get(a); !ok {
		t.Fatal("a node read is not cached")
	}
	set := trie.NewNodeSet()
	set.Add(b, []byte("written"))
	if err := db.Update(set); err != nil {
		t.Fatal(err)
	}
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	if _, ok := db.clean.get(b); ok {
		t.Fatal("a node written is cached before anyone read it")
	}
	if got, err := db.Node(b); err != nil || string(got) != "written" {
		t.Fatalf("Node: %q, %v", got, err)
	}
	if got, ok := db.clean.get(b); !ok || string(got) != "written" {
		t.Fatalf("a node written and read is not cached: %q", got)
	}
	if n, _, err := db.deleteNodes([][32]byte{a, b}, nil, nil); err != nil || n != 2 {
		t.Fatalf("deleteNodes: %d, %v", n, err)
	}
	for _, h := range [][32]byte{a, b} {
		if _, err := db.Node(h); err == nil {
			t.Fatalf("node %x still served after its delete", h[:2])
		}
	}
}
