package store

import (
	"crypto/rand"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/benchpar"
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
	v := make([]byte, 100)
	keys := loadRandomKeys(b, db, 100_000, 32, v)
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

// BenchmarkCommitLatencyUnderCompaction measures what the store's
// background work costs the node's block commits: one writer commits
// 10-key batches (a block's writes, in small) and a reader Gets, while a
// loader commits 1000-key batches without pause, so memtables are flushed
// and tables compacted the whole time. It reports the commits' and
// reads' p50, p99 and longest latency: a flush or compaction holding a
// lock the writer or the reader needs shows in p99 and max.
func BenchmarkCommitLatencyUnderCompaction(b *testing.B) {
	db, err := OpenWith(b.TempDir(), Options{MemtableBytes: 1 << 20, TableBytes: 1 << 20, L1Bytes: 4 << 20})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	stop := make(chan struct{})
	var bg sync.WaitGroup
	var reads []time.Duration
	db.mu.RLock()
	flushes0, stallL00, stallFlush0, stallSlow0 := db.flushTries, db.stallL0, db.stallFlush, db.stallSlow.Load()
	db.mu.RUnlock()
	bg.Add(2)
	go func() { // the loader
		defer bg.Done()
		var bt Batch
		k, v := make([]byte, 32), make([]byte, 100)
		for {
			select {
			case <-stop:
				return
			default:
			}
			bt.Reset()
			for range 1000 {
				rand.Read(k)
				bt.Put(k, v)
			}
			if err := db.Write(&bt); err != nil {
				b.Error(err)
				return
			}
		}
	}()
	go func() { // the reader
		defer bg.Done()
		k := []byte("block-0000")
		for {
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
			t := time.Now()
			if _, err := db.Get(k); err != nil && !errors.Is(err, ErrNotFound) {
				b.Error(err)
				return
			}
			reads = append(reads, time.Since(t))
		}
	}()
	k, v := make([]byte, 32), make([]byte, 100)
	commits := make([]time.Duration, 0, b.N)
	var bt Batch
	b.ResetTimer()
	for i := range b.N {
		bt.Reset()
		bt.Put([]byte(fmt.Sprintf("block-%04d", i%10000)), v)
		for range 9 {
			rand.Read(k)
			bt.Put(k, v)
		}
		t := time.Now()
		if err := db.Write(&bt); err != nil {
			b.Fatal(err)
		}
		commits = append(commits, time.Since(t))
	}
	b.StopTimer()
	close(stop)
	bg.Wait()
	db.mu.RLock()
	flushes := db.flushTries - flushes0
	stallL0, stallFlush := db.stallL0-stallL00, db.stallFlush-stallFlush0
	stallSlow := time.Duration(db.stallSlow.Load() - stallSlow0)
	db.mu.RUnlock()
	report := func(name string, ds []time.Duration) {
		if len(ds) == 0 {
			return
		}
		slices.Sort(ds)
		b.ReportMetric(float64(ds[len(ds)/2].Microseconds())/1000, name+"-p50-ms")
		b.ReportMetric(float64(ds[len(ds)*99/100].Microseconds())/1000, name+"-p99-ms")
		b.ReportMetric(float64(ds[len(ds)-1].Microseconds())/1000, name+"-max-ms")
	}
	report("commit", commits)
	report("read", reads)
	b.ReportMetric(float64(flushes), "flushes")
	b.ReportMetric(float64(stallL0.Milliseconds()), "stall-L0-ms")
	b.ReportMetric(float64(stallFlush.Milliseconds()), "stall-flush-ms")
	b.ReportMetric(float64(stallSlow.Milliseconds()), "slowdown-ms")
}

// BenchmarkParallelColdReads is a node's trie reads at scale in small:
// eight readers (run it with -cpu 2) of random hashed keys in a store
// some fifteen times its block cache, so most reads miss the cache and
// read a block, beside a writer adding batches as blocks commit.
func BenchmarkParallelColdReads(b *testing.B) {
	db, err := OpenWith(b.TempDir(), Options{NoSync: true, CacheMiB: 4})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	v := make([]byte, 200)
	keys := loadRandomKeys(b, db, 300_000, 33, v)
	waitIdle(db)
	const readers = 8
	rngs := make([]*mrand.Rand, readers)
	for r := range rngs {
		rngs[r] = mrand.New(mrand.NewPCG(uint64(r), 1))
	}
	k := make([]byte, 33)
	var wb Batch
	benchpar.ReadersBesideWriter(b, readers, func(int) {
		time.Sleep(time.Millisecond)
		for range 100 {
			rand.Read(k)
			wb.Put(k, v)
		}
		db.Write(&wb)
		wb.Reset()
	}, func(r, _ int) {
		if b.Failed() {
			return
		}
		if _, err := db.Get(keys[rngs[r].IntN(len(keys))]); err != nil {
			b.Error(err)
		}
	})
}

// BenchmarkBatchBuild builds a block's batch from empty: 50,000 trie
// nodes of ~300 bytes under 33-byte keys, some 17 MB (its B/op is the
// growth's copying).
func BenchmarkBatchBuild(b *testing.B) {
	k, v := make([]byte, 33), make([]byte, 300)
	b.ReportAllocs()
	for range b.N {
		var bt Batch
		for i := range 50_000 {
			k[1], k[2] = byte(i), byte(i>>8)
			bt.Put(k, v)
		}
	}
}

// loadRandomKeys writes n random keys of keyLen bytes, each with value v,
// in batches of 1,000, and returns the keys.
func loadRandomKeys(b *testing.B, db *DB, n, keyLen int, v []byte) [][]byte {
	keys := make([][]byte, n)
	var bt Batch
	for i := range keys {
		keys[i] = make([]byte, keyLen)
		rand.Read(keys[i])
		bt.Put(keys[i], v)
		if bt.Len() == 1000 {
			if err := db.Write(&bt); err != nil {
				b.Fatal(err)
			}
			bt.Reset()
		}
	}
	if err := db.Write(&bt); err != nil {
		b.Fatal(err)
	}
	return keys
}
