package store

import (
	"container/list"
	"runtime"
	"sync"
	"testing"

	"github.com/chaind/chaind/internal/benchpar"
)

// blockOf is a block of n bytes whose first byte names it.
func blockOf(id byte, n int) block {
	d := make([]byte, n)
	d[0] = id
	return block{data: d}
}

// held adds up what a cache's shards hold, block by block, to check the
// running counts.
func (c *blockCache) held() (n int64) {
	for i := range c.shards {
		for _, l := range []*list.List{&c.shards[i].probation, &c.shards[i].protected} {
			for e := l.Front(); e != nil; e = e.Next() {
				n += e.Value.(*cacheEntry).blk.cost()
			}
		}
	}
	return n
}

// The cache holds at most its size; a block read again and again
// survives a stream of blocks read once (a cold walk) many times the
// cache's size, which an LRU would let push it out whenever the stream
// passes more than the cache between two of its reads.
func TestBlockCacheBoundAndScans(t *testing.T) {
	const size = cacheShards << 12 // 4 KiB a shard
	c := newBlockCache(size)
	hot := cacheKey{table: 1, off: 0}
	c.put(hot, blockOf(7, 500))
	const every = 12 * cacheShards
	for i := range 400 * cacheShards { // 80 times the cache
		c.put(cacheKey{table: 2, off: int64(i) * 4096}, blockOf(1, 300))
		// Read every 12×cacheShards puts: between two reads some 12
		// blocks pass through the hot block's shard, more than it holds
		// (4 KiB of 396-byte blocks: 10).
		if i%every == 0 {
			if b, ok := c.get(hot); !ok || b.data[0] != 7 {
				t.Fatalf("after %d one-off blocks the block read every %d is gone", i, every)
			}
		}
	}
	if got := c.held(); got > size {
		t.Fatalf("the cache holds %d bytes, more than its %d", got, size)
	}
	var used int64
	for i := range c.shards {
		used += c.shards[i].used
	}
	if used != c.held() {
		t.Fatalf("shards count %d bytes, hold %d", used, c.held())
	}
	if st := (&DB{cache: c}).cacheStats(); st.Hits != 400/12+1 || st.Misses != 0 {
		t.Fatalf("stats %+v, want %d hits, no misses", st, 400/12+1)
	}
	c.drop(hot)
	if _, ok := c.get(hot); ok {
		t.Fatal("a dropped block is still cached")
	}
}

// Readers and writers at once (run with -race): every block read is the
// one put under its key, and the counts match what is held.
func TestBlockCacheConcurrent(t *testing.T) {
	c := newBlockCache(cacheShards << 11)
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20_000 {
				id := byte(i*7%250 + 1)
				k := cacheKey{table: uint64(id), off: int64(id) * 4096}
				if g >= 4 {
					c.put(k, blockOf(id, 200+int(id)))
					if i%101 == 0 {
						c.drop(k)
					}
					continue
				}
				if b, ok := c.get(k); ok && (b.data[0] != id || len(b.data) != 200+int(id)) {
					t.Errorf("block %d read as block %d of %d bytes", id, b.data[0], len(b.data))
					return
				}
			}
		}()
	}
	wg.Wait()
	var used int64
	for i := range c.shards {
		used += c.shards[i].used
	}
	if used != c.held() || used > cacheShards<<11 {
		t.Fatalf("shards count %d bytes, hold %d, size %d", used, c.held(), cacheShards<<11)
	}
}

// BenchmarkBlockCacheGetHot is eight readers of a few hot blocks beside a
// writer adding blocks as misses do; run it with -cpu 2 for the node's
// two cores.
func BenchmarkBlockCacheGetHot(b *testing.B) {
	c := newBlockCache(64 << 20)
	for i := range 16 {
		c.put(cacheKey{table: uint64(i), off: 0}, blockOf(byte(i), 4096))
	}
	benchpar.ReadersBesideWriter(b, 8, func(i int) {
		c.put(cacheKey{table: 100, off: int64(i) * 4096}, blockOf(1, 4096))
		if i%64 == 0 {
			runtime.Gosched()
		}
	}, func(_, i int) {
		c.get(cacheKey{table: uint64(i % 16), off: 0})
	})
}
