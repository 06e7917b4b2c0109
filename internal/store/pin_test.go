package store

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// readLogFS records the table reads made through it: file and offset.
type readLogFS struct {
	vfs
	mu    sync.Mutex
	reads map[string][]int64 // table file name -> offsets read
}

type readLogFile struct {
	file
	fs   *readLogFS
	name string
}

func (l *readLogFS) open(name string, create, write bool) (file, error) {
	f, err := l.vfs.open(name, create, write)
	if err != nil || write || !strings.HasSuffix(name, tableSuffix) {
		return f, err
	}
	return &readLogFile{file: f, fs: l, name: filepath.Base(name)}, nil
}

func (f *readLogFile) ReadAt(p []byte, off int64) (int, error) {
	f.fs.mu.Lock()
	f.fs.reads[f.name] = append(f.fs.reads[f.name], off)
	f.fs.mu.Unlock()
	return f.file.ReadAt(p, off)
}

func (l *readLogFS) take() map[string][]int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.reads
	l.reads = map[string][]int64{}
	return r
}

// waitPinned waits until the pinner has pinned every table of db.
func waitPinned(t *testing.T, db *DB) CacheStats {
	t.Helper()
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		s := db.CacheStats()
		if s.Tables > 0 && s.PinnedTables == s.Tables {
			return s
		}
		if time.Now().After(end) {
			t.Fatalf("pinned %d of %d tables after 10 s", s.PinnedTables, s.Tables)
		}
	}
}

// After open the pinner loads every table's index and filter, and reads
// then touch only data blocks: none of them reads an index or filter
// block from a table, which is what a node's first reads after a start
// paid (two large reads each before the one they wanted). The pinned
// bytes are taken from the block cache's budget.
func TestReadsAfterOpenLoadNoIndexOrFilter(t *testing.T) {
	lfs := &readLogFS{vfs: newMemFS(1), reads: map[string][]int64{}}
	o := Options{MemtableBytes: 32 << 10, TableBytes: 16 << 10, L1Bytes: 64 << 10, NoSync: true, CacheMiB: 1, fs: lfs}
	db := fill(t, "/db", o, 5000)
	waitIdle(db)
	db.Close()

	o.QuietStart = time.Hour // no compaction changes the tables
	db, err := OpenWith("/db", o)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st := waitPinned(t, db)
	if st.Tables < 5 {
		t.Fatalf("%d tables: the test needs several", st.Tables)
	}
	if st.PinnedBytes <= 0 || st.PinnedBytes > db.cache.capacity/2 {
		t.Fatalf("%d bytes pinned, budget %d", st.PinnedBytes, db.cache.capacity/2)
	}
	meta := map[string]map[int64]bool{} // table -> offsets of its index and filter
	v, _, _ := db.acquire()
	for _, lv := range v.levels {
		for _, tb := range lv {
			meta[tableName(tb.num)] = map[int64]bool{tb.index.off: true, tb.filter.off: true}
		}
	}
	v.unref()
	lfs.take()
	for i := 0; i < 5000; i += 7 {
		if _, err := db.Get([]byte(fmt.Sprintf("key-%06d", i))); err != nil {
			t.Fatal(err)
		}
		db.Get([]byte(fmt.Sprintf("absent-%06d", i)))
	}
	data := 0
	for name, offs := range lfs.take() {
		for _, off := range offs {
			if meta[name][off] {
				t.Fatalf("a read loaded table %s's block at %d, its index or filter", name, off)
			}
			data++
		}
	}
	if data == 0 {
		t.Fatal("the reads read no data block: the test checks nothing")
	}
	if st := db.CacheStats(); st.Misses == 0 || st.CacheBytes > db.cache.capacity-st.PinnedBytes {
		t.Fatalf("block cache: %+v, capacity %d", st, db.cache.capacity)
	}
}

// The budget bounds what is pinned: with room for only some tables, the
// others read their index and filter through the block cache, and reads
// are right either way; tables a compaction replaces give their budget
// back.
func TestPinBudget(t *testing.T) {
	o := Options{MemtableBytes: 32 << 10, TableBytes: 16 << 10, L1Bytes: 64 << 10, NoSync: true, CacheMiB: 1, fs: newMemFS(2)}
	db := fill(t, "/db", o, 8000)
	waitIdle(db)
	db.Close()
	o.QuietStart = time.Hour
	db, err := OpenWith("/db", o)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	full := waitPinned(t, db)
	db.Close()

	// A budget of a third of what all took.
	o.pinBytes = full.PinnedBytes / 3
	db, err = OpenWith("/db", o)
	if err != nil {
		t.Fatal(err)
	}
	st := settled(db)
	if st.PinnedTables == 0 || st.PinnedTables == st.Tables || st.PinnedBytes > o.pinBytes {
		t.Fatalf("budget %d: %+v", o.pinBytes, st)
	}
	for i := 0; i < 8000; i += 3 {
		k := fmt.Sprintf("key-%06d", i)
		if v, err := db.Get([]byte(k)); err != nil || len(v) != 100 || v[0] != byte(i) {
			t.Fatalf("%s = %x, %v", k, v, err)
		}
	}
	db.Close()
	if r := db.cache.reserved.Load(); r != 0 {
		t.Fatalf("%d bytes still reserved once every table was let go", r)
	}
}

// settled waits until the pinner has stopped pinning (its budget spent).
func settled(db *DB) CacheStats {
	last := db.CacheStats()
	for same := 0; same < 5; {
		time.Sleep(20 * time.Millisecond)
		s := db.CacheStats()
		if s.PinnedTables == last.PinnedTables && s.PinnedTables > 0 {
			same++
		} else {
			same = 0
		}
		last = s
	}
	return last
}

// In the quiet start a compaction no writer needs waits; one writers
// need (level 0 at l0SlowWrites) runs at once.
func TestQuietStart(t *testing.T) {
	o := Options{MemtableBytes: 32 << 10, TableBytes: 16 << 10, L1Bytes: 64 << 10, NoSync: true, fs: newMemFS(3)}
	var mu sync.Mutex
	var started []int
	o.compactHook = func(c *compaction) {
		mu.Lock()
		started = append(started, len(c.v.levels[0]))
		mu.Unlock()
	}
	o.QuietStart = time.Hour
	db, err := OpenWith("/db", o)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Level 0 fills, one memtable at a time, up to where writers would
	// begin to give way.
	i := 0
	write := func() {
		var b Batch
		for j := 0; j < 10; j++ {
			b.Put([]byte(fmt.Sprintf("key-%06d", i)), make([]byte, 100))
			i++
		}
		if err := db.Write(&b); err != nil {
			t.Fatal(err)
		}
	}
	// flushed waits for the flusher and returns level 0's tables: a write
	// rotates at most one memtable, so level 0 grows one table at a time.
	flushed := func() int {
		db.mu.Lock()
		defer db.mu.Unlock()
		for len(db.cur.imms) > 0 {
			db.changed.Wait()
		}
		return len(db.cur.levels[0])
	}
	for flushed() < l0SlowWrites-1 {
		write()
	}
	time.Sleep(50 * time.Millisecond)
	mu.Lock()
	n := len(started)
	mu.Unlock()
	if n != 0 {
		t.Fatalf("%d compactions started in the quiet start with %d level-0 tables", n, flushed())
	}
	for flushed() < l0SlowWrites {
		write()
	}
	for end := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		mu.Lock()
		n = len(started)
		mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(end) {
			t.Fatal("no compaction started with level 0 at l0SlowWrites tables")
		}
	}
}
