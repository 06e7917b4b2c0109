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
	if _, ok := db.clean.Get(a); !ok {
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
	if _, ok := db.clean.Get(b); ok {
		t.Fatal("a node written is cached before anyone read it")
	}
	if got, err := db.Node(b); err != nil || string(got) != "written" {
		t.Fatalf("Node: %q, %v", got, err)
	}
	if got, ok := db.clean.Get(b); !ok || string(got) != "written" {
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

// The nodes of a trie's upper levels a commit writes are cached as they
// are written (every block rewrites them and the next reads them again);
// those below are cached only once read.
func TestUpperWrittenNodesCached(t *testing.T) {
	db := NewDB(store.NewMem())
	db.clean = newNodeCache(64 << 20)
	tr, err := trie.New(trie.EmptyRoot, db)
	if err != nil {
		t.Fatal(err)
	}
	// 70,000 keys: leaves 4 and 5 deep, so some lie below the
	// cached levels.
	for i := range 70_000 {
		k := cacheKey(i)
		if err := tr.Update(k[:], k[:8]); err != nil {
			t.Fatal(err)
		}
	}
	_, set := tr.Commit()
	if err := db.Update(set); err != nil {
		t.Fatal(err)
	}
	upper := map[[32]byte]bool{}
	set.ForEachUpper(writtenCacheDepth, func(h [32]byte, _ []byte) { upper[h] = true })
	if len(upper) == 0 || len(upper) == set.Len() {
		t.Fatalf("%d of %d nodes in the upper levels: the test shows no difference", len(upper), set.Len())
	}
	set.ForEach(func(h [32]byte, blob []byte) {
		got, ok := db.clean.Get(h)
		if ok != upper[h] || ok && string(got) != string(blob) {
			t.Fatalf("node %x (upper %v) cached %v", h[:4], upper[h], ok)
		}
	})
}

// The nodes of the last write stay in memory until the next one (the
// pruner walks that block's state right after its commit), and no longer:
// the write before's are read from the store again.
func TestLastWrittenNodesKept(t *testing.T) {
	kv := store.NewMem()
	db := NewDB(kv)
	write := func(h [32]byte, blob string) {
		t.Helper()
		set := trie.NewNodeSet()
		set.Add(h, []byte(blob))
		if err := db.Update(set); err != nil {
			t.Fatal(err)
		}
		if err := db.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	older, last := cacheKey(1), cacheKey(2)
	write(older, "older")
	write(last, "last")
	db.kv = store.NewMem() // from here on, the store has nothing
	if got, err := db.Node(last); err != nil || string(got) != "last" {
		t.Fatalf("the last write's node: %q, %v", got, err)
	}
	if got, err := db.Node(older); err == nil {
		t.Fatalf("the write before's node still held in memory: %q", got)
	}
	db.kv = kv
	if n, _, err := db.deleteNodes([][32]byte{last}, nil, nil); err != nil || n != 1 {
		t.Fatalf("deleteNodes: %d, %v", n, err)
	}
	if got, err := db.Node(last); err == nil {
		t.Fatalf("a node pruning deleted is still served: %q", got)
	}
}
