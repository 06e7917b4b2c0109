package main

import (
	"math/rand"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/rawdb"
	"github.com/ethereum/go-ethereum/ethdb/memorydb"
	"github.com/ethereum/go-ethereum/trie/trienode"
	"github.com/ethereum/go-ethereum/triedb"

	"github.com/chaind/chaind/rlp"
	"github.com/chaind/chaind/trie"
	gtrie "github.com/ethereum/go-ethereum/trie"
)

func trieRandPairs(n int, seed int64) (keys, vals [][]byte) {
	rng := rand.New(rand.NewSource(seed))
	keys, vals = make([][]byte, n), make([][]byte, n)
	for i := range keys {
		keys[i], vals[i] = make([]byte, 32), make([]byte, 32)
		rng.Read(keys[i])
		rng.Read(vals[i])
	}
	return keys, vals
}

// listOrder is the insertion order of rlp(i) keys for an n-item list root:
// 1..127, then 0, then 128 on (byte order of the keys).
func listOrder(n int) []int {
	var order []int
	for i := 1; i < n && i < 0x80; i++ {
		order = append(order, i)
	}
	if n > 0 {
		order = append(order, 0)
	}
	for i := 0x80; i < n; i++ {
		order = append(order, i)
	}
	return order
}

func init() {
	keys, vals := trieRandPairs(100_000, 1)
	rng := rand.New(rand.NewSource(2))
	items := make([][]byte, 1000)
	for i := range items {
		items[i] = make([]byte, 100)
		rng.Read(items[i])
	}
	order := listOrder(len(items))

	register(Case{
		Area: "trie", Name: "root of 100k random 32B pairs",
		Ours: func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				t := trie.NewEmpty()
				for j := range keys {
					t.Update(keys[j], vals[j])
				}
				t.Hash()
			}
		},
		Geth: func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				t := gtrie.NewEmpty(nil)
				for j := range keys {
					t.Update(keys[j], vals[j])
				}
				t.Hash()
			}
		},
	})
	register(Case{
		Area: "trie", Name: "list root 1000 x 100B (stack trie)",
		Ours: func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				trie.ListRoot(len(items), func(i int) []byte { return items[i] })
			}
		},
		Geth: func(b *testing.B) {
			// What types.DeriveSha does with a StackTrie.
			st := gtrie.NewStackTrie(nil)
			var kb []byte
			for i := 0; i < b.N; i++ {
				st.Reset()
				for _, j := range order {
					kb = rlp.AppendUint64(kb[:0], uint64(j))
					st.Update(kb, items[j])
				}
				st.Hash()
			}
		},
	})
	register(Case{
		Area: "trie", Name: "stack trie 1000 x 100B (Update/Hash)",
		Ours: func(b *testing.B) {
			st := trie.NewStackTrie()
			var kb []byte
			for i := 0; i < b.N; i++ {
				st.Reset()
				for _, j := range order {
					kb = rlp.AppendUint64(kb[:0], uint64(j))
					st.Update(kb, items[j])
				}
				st.Hash()
			}
		},
		Geth: func(b *testing.B) {
			st := gtrie.NewStackTrie(nil)
			var kb []byte
			for i := 0; i < b.N; i++ {
				st.Reset()
				for _, j := range order {
					kb = rlp.AppendUint64(kb[:0], uint64(j))
					st.Update(kb, items[j])
				}
				st.Hash()
			}
		},
	})

	// Proofs of random keys in a 100k-key trie freshly opened from each
	// side's in-memory node store (what eth_getProof does per request).
	var once sync.Once
	var ourDB *trie.MemoryDB
	var ourRoot [32]byte
	var gethDB *triedb.Database
	setup := func() {
		t := trie.NewEmpty()
		g := gtrie.NewEmpty(nil)
		for j := range keys {
			t.Update(keys[j], vals[j])
			g.Update(keys[j], vals[j])
		}
		ourDB = trie.NewMemoryDB()
		root, set := t.Commit()
		ourDB.Update(set)
		ourRoot = root
		gethDB = triedb.NewDatabase(rawdb.NewMemoryDatabase(), triedb.HashDefaults)
		groot, gset := g.Commit(false)
		gethDB.Update(groot, common.Hash{}, 0, trienode.NewWithNodeSet(gset), nil)
		gethDB.Commit(groot, false)
	}
	register(Case{
		Area: "trie", Name: "prove random key, 100k trie",
		Ours: func(b *testing.B) {
			once.Do(setup)
			rng := rand.New(rand.NewSource(5))
			for i := 0; i < b.N; i++ {
				t, _ := trie.New(ourRoot, ourDB)
				if _, err := t.Prove(keys[rng.Intn(len(keys))]); err != nil {
					b.Fatal(err)
				}
			}
		},
		Geth: func(b *testing.B) {
			once.Do(setup)
			rng := rand.New(rand.NewSource(5))
			for i := 0; i < b.N; i++ {
				t, err := gtrie.New(gtrie.TrieID(common.Hash(ourRoot)), gethDB)
				if err != nil {
					b.Fatal(err)
				}
				proof := memorydb.New()
				if err := t.Prove(keys[rng.Intn(len(keys))], proof); err != nil {
					b.Fatal(err)
				}
			}
		},
	})
	register(Case{
		Area: "trie", Name: "get random key, 100k trie, fresh open",
		Ours: func(b *testing.B) {
			once.Do(setup)
			rng := rand.New(rand.NewSource(6))
			for i := 0; i < b.N; i++ {
				t, _ := trie.New(ourRoot, ourDB)
				if v, err := t.Get(keys[rng.Intn(len(keys))]); err != nil || len(v) == 0 {
					b.Fatal(err)
				}
			}
		},
		Geth: func(b *testing.B) {
			once.Do(setup)
			rng := rand.New(rand.NewSource(6))
			for i := 0; i < b.N; i++ {
				t, _ := gtrie.New(gtrie.TrieID(common.Hash(ourRoot)), gethDB)
				if v, err := t.Get(keys[rng.Intn(len(keys))]); err != nil || len(v) == 0 {
					b.Fatal(err)
				}
			}
		},
	})
	register(Case{
		Area: "trie", Name: "commit 100k random 32B pairs",
		Ours: func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				t := trie.NewEmpty()
				for j := range keys {
					t.Update(keys[j], vals[j])
				}
				t.Commit()
			}
		},
		Geth: func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				t := gtrie.NewEmpty(nil)
				for j := range keys {
					t.Update(keys[j], vals[j])
				}
				t.Commit(false)
			}
		},
	})
}
