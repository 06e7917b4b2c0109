package twogen

import (
	"encoding/binary"
	"runtime"
	"sync"
	"testing"

	"github.com/chaind/chaind/internal/benchpar"
)

func key(i int) [32]byte {
	var h [32]byte
	binary.BigEndian.PutUint64(h[:], uint64(i)*0x9e3779b97f4a7c15)
	binary.BigEndian.PutUint64(h[8:], uint64(i))
	return h
}

func byFirst(k [32]byte) uint64 { return uint64(k[0]) }

func newBlobs(bytes int64, shards int) *Cache[[32]byte, []byte] {
	return New[[32]byte, []byte](bytes, shards, byFirst, Bytes)
}

// held adds up what every shard's two generations hold, entry by entry,
// to check the running counts Stats reports.
func held(c *Cache[[32]byte, []byte]) (n int64) {
	for i := range c.shards {
		for _, m := range []map[[32]byte][]byte{c.shards[i].cur, c.shards[i].old} {
			for _, v := range m {
				n += c.cost(v) + c.extra
			}
		}
	}
	return n
}

// The cache holds at most its size, keeps an entry that is read while
// newer ones come in, lets unread ones age out, and forgets what is
// dropped; Stats counts what it holds and how it served.
func TestBounded(t *testing.T) {
	const size = 4 << 20
	for _, shards := range []int{1, 16, 32} {
		c := newBlobs(size, shards)
		blob := make([]byte, 200)
		hot := key(-1)
		c.Put(hot, blob)
		for i := 0; i < 100_000; i++ { // 30 MB through a 4 MiB cache
			c.Put(key(i), blob)
			if i%1000 == 0 {
				if _, ok := c.Get(hot); !ok {
					t.Fatalf("%d shards: an entry read every 1,000 puts was dropped after %d", shards, i)
				}
			}
		}
		got := held(c)
		if got > size {
			t.Fatalf("%d shards: the cache holds %d bytes, more than its %d", shards, got, size)
		}
		if st := c.Stats(); st.Bytes != got || st.Hits != 100 || st.Misses != 0 {
			t.Fatalf("%d shards: stats %+v, want %d bytes, 100 hits, no misses", shards, st, got)
		}
		if _, ok := c.Get(key(99_999)); !ok {
			t.Fatalf("%d shards: the last entry put is not cached", shards)
		}
		if _, ok := c.Get(key(0)); ok {
			t.Fatalf("%d shards: the first of 100,000 entries is still cached", shards)
		}
		c.Drop(hot)
		if _, ok := c.Get(hot); ok {
			t.Fatalf("%d shards: a dropped entry is still cached", shards)
		}
		if st := c.Stats(); st.Bytes != held(c) || st.Misses != 2 {
			t.Fatalf("%d shards: after a drop, stats %+v, held %d", shards, st, held(c))
		}
	}
}

// A value larger than a generation is not kept; a key held keeps its
// first value; moving an entry between generations keeps the counts.
func TestPutRules(t *testing.T) {
	c := newBlobs(1000, 1) // generations of 500 bytes
	if c.Put(key(1), make([]byte, 500)); c.Stats().Entries != 0 {
		t.Fatal("a value larger than a generation was kept")
	}
	c.Put(key(2), []byte("first"))
	c.Put(key(2), []byte("second"))
	if v, _ := c.Get(key(2)); string(v) != "first" {
		t.Fatalf("a second Put replaced the value: %q", v)
	}
	for i := 10; c.shards[0].old == nil || len(c.shards[0].old) == 0; i++ {
		c.Put(key(i), make([]byte, 50))
	}
	if _, ok := c.shards[0].old[key(2)]; !ok {
		t.Fatal("the first entry did not age into the older generation")
	}
	c.Put(key(2), []byte("third")) // from old into cur, not in both
	if _, ok := c.shards[0].old[key(2)]; ok {
		t.Fatal("an entry put again stayed in the older generation too")
	}
	if st := c.Stats(); st.Bytes != held(c) {
		t.Fatalf("stats say %d bytes, the maps hold %d", st.Bytes, held(c))
	}
}

// TryPut puts when the shard is free and gives up, putting nothing, when
// a reader or writer holds it.
func TestTryPut(t *testing.T) {
	c := newBlobs(1<<20, 1)
	c.TryPut(key(1), []byte("a"))
	if v, ok := c.Get(key(1)); !ok || string(v) != "a" {
		t.Fatalf("TryPut on a free cache: %q %v", v, ok)
	}
	c.shards[0].mu.RLock() // a reader in the shard
	c.TryPut(key(2), []byte("b"))
	c.shards[0].mu.RUnlock()
	if _, ok := c.Get(key(2)); ok {
		t.Fatal("TryPut waited for a busy shard")
	}
	if st := c.Stats(); st.Entries != 1 || st.Bytes != held(c) {
		t.Fatalf("stats %+v, held %d", st, held(c))
	}
}

// A nil cache (size 0) holds nothing and needs no checks by its callers.
func TestNil(t *testing.T) {
	c := newBlobs(0, 4)
	if c != nil {
		t.Fatal("a cache of 0 bytes is not nil")
	}
	c.Put(key(1), []byte("x"))
	c.Drop(key(1))
	if _, ok := c.Get(key(1)); ok {
		t.Fatal("a nil cache returned a value")
	}
	if st := c.Stats(); st != (Stats{}) {
		t.Fatalf("a nil cache has stats %+v", st)
	}
}

// Readers and writers on many keys at once (run with -race).
func TestConcurrent(t *testing.T) {
	c := newBlobs(64<<10, 8)
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 5000; i++ {
				k := key(i % 700)
				if v, ok := c.Get(k); ok && len(v) != i%700%50 {
					t.Errorf("key %d: value of %d bytes", i%700, len(v))
					return
				}
				c.Put(k, make([]byte, i%700%50))
				if i%97 == g {
					c.Drop(k)
				}
			}
		}(g)
	}
	wg.Wait()
	if st := c.Stats(); st.Bytes != held(c) || st.Bytes > 64<<10 {
		t.Fatalf("stats %+v, held %d", st, held(c))
	}
}

// Readers that move entries from the older generation to the newer while
// writers turn the generations over: every value read is the one put
// under its key, and the counts match what the maps hold (run with -race).
func TestConcurrentPromote(t *testing.T) {
	const size = 16 << 10
	c := newBlobs(size, 2)
	val := func(i int) []byte { return binary.BigEndian.AppendUint64(make([]byte, 0, 64), uint64(i)) }
	var wg sync.WaitGroup
	var hits [6]int
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20_000 {
				k := i*7%300 + g%2*1000
				if g >= 4 { // writers
					c.Put(key(k), val(k))
					continue
				}
				if v, ok := c.Get(key(k)); ok {
					hits[g]++
					if got := binary.BigEndian.Uint64(v); got != uint64(k) {
						t.Errorf("key %d read the value of %d", k, got)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	if st := c.Stats(); st.Bytes != held(c) || st.Bytes > size {
		t.Fatalf("stats %+v, held %d, size %d", st, held(c), size)
	}
	if hits[0]+hits[1]+hits[2]+hits[3] == 0 {
		t.Fatal("no reader found anything the writers put")
	}
}

// BenchmarkGetHot is eight readers on the few hot entries every trie walk
// reads first (a trie's upper nodes: few keys, so few shards), beside a
// writer adding entries as misses would; run it with -cpu 2 for the
// node's two cores.
func BenchmarkGetHot(b *testing.B) {
	c := newBlobs(64<<20, 32)
	blob := make([]byte, 500)
	for i := range 16 {
		c.Put(key(i), blob)
	}
	benchpar.ReadersBesideWriter(b, 8, func(i int) {
		c.Put(key(1000+i), blob)
		if i%64 == 0 {
			runtime.Gosched()
		}
	}, func(_, i int) {
		c.Get(key(i % 16))
	})
}

func BenchmarkGetHit(b *testing.B) {
	c := newBlobs(64<<20, 32)
	blob := make([]byte, 500)
	for i := 0; i < 1000; i++ {
		c.Put(key(i), blob)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c.Get(key(i % 1000))
	}
}
