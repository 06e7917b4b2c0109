package chain

import (
	"testing"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
	"github.com/chaind/chaind/trie"
)

// Warming an account loads every node on its path into the node cache:
// once the store is gone, the warmed accounts still read from the cache
// alone, and one not warmed does not.
func TestWarmAccountsFillsTheNodeCache(t *testing.T) {
	db := NewDB(store.NewMem())
	tr, err := trie.New(trie.EmptyRoot, db)
	if err != nil {
		t.Fatal(err)
	}
	addr := func(i int) types.Address {
		k := cacheKey(i)
		return types.Address(k[:20])
	}
	var hk [32]byte
	for i := range 20_000 { // leaves 4-5 deep: below the upper levels a commit caches
		a := addr(i)
		crypto.HashInto(&hk, a[:])
		if err := tr.Update(hk[:], []byte{byte(i), 1}); err != nil {
			t.Fatal(err)
		}
	}
	root, set := tr.Commit()
	if err := db.Update(set); err != nil {
		t.Fatal(err)
	}
	if err := db.Flush(); err != nil {
		t.Fatal(err)
	}
	db.clean = newNodeCache(64 << 20)                                     // empty: nothing read yet
	db.written = nil                                                      // let go, as the next block's write does
	warmed := []types.Address{addr(3), addr(7_777), addr(19_999), {0xfe}} // the last one absent: its path up to where it would be
	state.WarmAccountPaths(db, root, warmed)
	db.kv = store.NewMem() // from here on, only the cache answers
	cached, err := trie.New(root, db)
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range warmed {
		crypto.HashInto(&hk, a[:])
		v, err := cached.Get(hk[:])
		if err != nil {
			t.Fatalf("warmed account %d: %v", i, err)
		}
		if absent := i == len(warmed)-1; absent != (v == nil) {
			t.Fatalf("warmed account %d: value %x", i, v)
		}
	}
	cold := addr(12_345)
	crypto.HashInto(&hk, cold[:])
	if _, err := cached.Get(hk[:]); err == nil {
		t.Fatal("an account not warmed read without the store: the test reads nothing from it")
	}
}
