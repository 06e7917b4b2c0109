package trie

import (
	"math/rand"
	"sync"
	"testing"
)

func randPairs(n int, seed int64) (keys, vals [][]byte) {
	rng := rand.New(rand.NewSource(seed))
	keys, vals = make([][]byte, n), make([][]byte, n)
	for i := range keys {
		keys[i], vals[i] = make([]byte, 32), make([]byte, 32)
		rng.Read(keys[i])
		rng.Read(vals[i])
	}
	return keys, vals
}

// BenchmarkRoot100k: root of 100,000 random 32-byte keys and values,
// starting from an empty trie.
func BenchmarkRoot100k(b *testing.B) {
	keys, vals := randPairs(100_000, 1)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tr := NewEmpty()
		for j := range keys {
			tr.Update(keys[j], vals[j])
		}
		tr.Hash()
	}
}

// BenchmarkCommit100k: the same, committed into a node set.
func BenchmarkCommit100k(b *testing.B) {
	keys, vals := randPairs(100_000, 1)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tr := NewEmpty()
		for j := range keys {
			tr.Update(keys[j], vals[j])
		}
		tr.Commit()
	}
}

func txLikeItems(n int) [][]byte {
	rng := rand.New(rand.NewSource(2))
	items := make([][]byte, n)
	for i := range items {
		items[i] = make([]byte, 100)
		rng.Read(items[i])
	}
	return items
}

// BenchmarkListRoot1000: transactions root of 1,000 items of 100 bytes.
func BenchmarkListRoot1000(b *testing.B) {
	items := txLikeItems(1000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ListRoot(len(items), func(i int) []byte { return items[i] })
	}
}

var (
	bigTrieOnce sync.Once
	bigTrie     *Trie
	bigKeys     [][]byte
)

// BenchmarkProve1M: proofs of random present keys in a 1,000,000-key
// trie loaded from a database (setup takes a few seconds, done once).
func BenchmarkProve1M(b *testing.B) {
	bigTrieOnce.Do(func() {
		keys, vals := randPairs(1_000_000, 3)
		tr := NewEmpty()
		for j := range keys {
			tr.Update(keys[j], vals[j])
		}
		db := NewMemoryDB()
		root, set := tr.Commit()
		db.Update(set)
		bigTrie, _ = New(root, db)
		bigKeys = keys
	})
	rng := rand.New(rand.NewSource(4))
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := bigTrie.Prove(bigKeys[rng.Intn(len(bigKeys))]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGet100k: lookups in a fully loaded 100,000-key trie.
func BenchmarkGet100k(b *testing.B) {
	keys, vals := randPairs(100_000, 1)
	tr := NewEmpty()
	for j := range keys {
		tr.Update(keys[j], vals[j])
	}
	tr.Hash()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tr.Get(keys[i%len(keys)])
	}
}
