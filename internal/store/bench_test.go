package store

import (
	"crypto/rand"
	mrand "math/rand/v2"
	"testing"
)

// The workloads of make storebench, for profiling the store alone.

func BenchmarkRandomWrites(b *testing.B) {
	db, err := OpenWith(b.TempDir(), Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	k, v := make([]byte, 32), make([]byte, 100)
	b.ReportAllocs()
	var bt Batch
	for i := 0; i < b.N; i++ {
		rand.Read(k)
		bt.Put(k, v)
		if bt.Len() == 100 {
			if err := db.Write(&bt); err != nil {
				b.Fatal(err)
			}
			bt.Reset()
		}
	}
	waitIdle(db) // the compaction debt is part of the cost
}

func BenchmarkRandomReadsAndScans(b *testing.B) {
	db, err := OpenWith(b.TempDir(), Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	keys := make([][]byte, 100_000)
	v := make([]byte, 100)
	var bt Batch
	for i := range keys {
		keys[i] = make([]byte, 32)
		rand.Read(keys[i])
		bt.Put(keys[i], v)
		if bt.Len() == 1000 {
			db.Write(&bt)
			bt.Reset()
		}
	}
	db.Write(&bt)
	b.Run("get", func(b *testing.B) {
		for range b.N {
			if _, err := db.Get(keys[mrand.IntN(len(keys))]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("scan100", func(b *testing.B) {
		for range b.N {
			start := keys[mrand.IntN(len(keys))]
			n := 0
			db.Iterate(start[:1], func(k, v []byte) bool {
				if string(k) < string(start) {
					return true
				}
				n++
				return n < 100
			})
		}
	})
}

func BenchmarkCommitSync(b *testing.B) {
	db, err := OpenWith(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	k, v := make([]byte, 32), make([]byte, 100)
	var bt Batch
	for range b.N {
		bt.Reset()
		for range 10 {
			rand.Read(k)
			bt.Put(k, v)
		}
		if err := db.Write(&bt); err != nil {
			b.Fatal(err)
		}
	}
}
