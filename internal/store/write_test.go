package store

import (
	"bytes"
	"fmt"
	"math/rand"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The memtable's arena holds entries of every size: empty keys and
// values, entries larger than a chunk (which get one of their own) and
// many chunks' worth, each read back in order, newest version first,
// while a reader walks it concurrently (run with -race).
func TestMemtableArena(t *testing.T) {
	m := newMemtable(1, 16<<10) // 2 KiB chunks
	model := map[string][]byte{}
	rng := rand.New(rand.NewSource(1))
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // a reader that checks the order it sees
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			it := &memIter{m: m, seq: 1 << 40}
			var prev []byte
			for it.seek(nil); it.valid(); it.next() {
				if prev != nil && bytes.Compare(prev, it.key()) >= 0 {
					t.Errorf("keys out of order: %x then %x", prev, it.key())
					return
				}
				prev = it.key()
			}
		}
	}()
	sizes := []int{0, 1, 7, 8, 9, 100, 1000, 3000, 5000, 20000}
	for seq := uint64(1); seq <= 3000; seq++ {
		k := []byte(fmt.Sprintf("k%04d", rng.Intn(1500)))
		if seq%97 == 0 {
			k = nil // the empty key
		}
		v := bytes.Repeat([]byte{byte(seq)}, sizes[rng.Intn(len(sizes))])
		m.add(k, v, seq, false)
		model[string(k)] = v
	}
	close(stop)
	wg.Wait()
	if n := len(*m.chunks.Load()); n < 10 {
		t.Fatalf("%d chunks: the test meant to fill many", n)
	}
	// The size a full memtable is judged by is the memory it holds.
	var held int64
	for _, c := range *m.chunks.Load() {
		held += int64(len(c.b))
	}
	if m.bytes.Load() != held {
		t.Fatalf("memtable counts %d bytes, its chunks hold %d", m.bytes.Load(), held)
	}
	var keys []string
	for k := range model {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	it := &memIter{m: m, seq: 1 << 40}
	it.seek(nil)
	for _, k := range keys {
		if !it.valid() || string(it.key()) != k || !bytes.Equal(it.value(), model[k]) {
			t.Fatalf("at key %q: got %q (%d bytes)", k, it.key(), len(it.value()))
		}
		if v, del, ok := m.get([]byte(k), keyHash([]byte(k)), 1<<40); !ok || del || !bytes.Equal(v, model[k]) {
			t.Fatalf("get %q: %d bytes, %v %v", k, len(v), del, ok)
		}
		it.next()
	}
	if it.valid() {
		t.Fatalf("extra key %q", it.key())
	}
	// A reader at an older sequence sees the older version.
	m.add([]byte("k0000"), []byte("new"), 5000, false)
	m.add([]byte("k0000"), nil, 5001, true)
	if v, del, ok := m.get([]byte("k0000"), keyHash([]byte("k0000")), 5000); !ok || del || string(v) != "new" {
		t.Fatalf("at 5000: %q %v %v", v, del, ok)
	}
	if _, del, ok := m.get([]byte("k0000"), keyHash([]byte("k0000")), 5001); !ok || !del {
		t.Fatalf("at 5001: %v %v, want the deletion", del, ok)
	}
}

// The memtable's filter holds every key added and turns away nearly
// every other: a read of a key the memtable lacks must not walk it.
func TestMemtableFilter(t *testing.T) {
	m := newMemtable(1, 1<<20)
	key := func(i int) []byte { return fmt.Appendf(nil, "n%032d", i) }
	const n = 1 << 20 / 128 // entries of ~128 bytes fill it
	for i := range n {
		m.add(key(i), make([]byte, 80), uint64(i+1), false)
	}
	for i := range n {
		if !m.mayHold(keyHash(key(i))) {
			t.Fatalf("key %d was added but the filter turns it away", i)
		}
	}
	passed := 0
	for i := n; i < 11*n; i++ {
		if m.mayHold(keyHash(key(i))) {
			passed++
		}
	}
	if rate := float64(passed) / (10 * n); rate > 0.03 {
		t.Fatalf("the filter lets %.1f%% of absent keys through, want under 3%%", 100*rate)
	}
}

// Writes do not allocate per key: the memtable keeps its entries in its
// arena, and the log record is built in a reused buffer.
// TestMemtableGetDuringInsert links a node, as the writer may, while a
// reader's seek is ending: a node of a smaller key linked after the one
// the walk stopped behind must not hide the key sought. Get read it in
// TestConcurrentReadWrite as absent, or as the previous value from an
// older memtable, right after the same goroutine's Put.
func TestMemtableGetDuringInsert(t *testing.T) {
	for _, tc := range []struct {
		name, inserted string
	}{
		{"smaller key between", "b"},
		{"key sharing its first byte between", "cb"},
		{"larger key after", "d"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMemtable(1, 8<<10)
			m.add([]byte("a"), []byte("1"), 1, false)
			m.add([]byte("cc"), []byte("2"), 2, false)
			seq := uint64(2) // the reader's
			done := false
			seekHook = func(hm *memtable) {
				if hm == m && !done {
					done = true
					m.add([]byte(tc.inserted), []byte("3"), 3, false)
				}
			}
			defer func() { seekHook = nil }()
			if v, del, ok := m.get([]byte("cc"), keyHash([]byte("cc")), seq); !ok || del || string(v) != "2" {
				t.Errorf("get during an insert of %q: %q %v %v, want \"2\"", tc.inserted, v, del, ok)
			}
			done = false
			m2 := newMemtable(2, 8<<10)
			m2.add([]byte("a"), []byte("1"), 1, false)
			m2.add([]byte("cc"), []byte("2"), 2, false)
			m = m2
			it := &memIter{m: m2, seq: seq}
			it.seek([]byte("cc"))
			if !it.valid() || string(it.key()) != "cc" || string(it.value()) != "2" {
				t.Errorf("iterator seek during an insert of %q: at %q", tc.inserted, it.key())
			}
		})
	}
}

func TestWriteAllocations(t *testing.T) {
	db, err := OpenWith("/db", Options{fs: newMemFS(1), NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var b Batch
	k, v := make([]byte, 32), make([]byte, 100)
	for i := range 100 {
		k[0], k[1] = byte(i), byte(i>>8)
		b.Put(k, v)
	}
	db.Write(&b)
	allocs := testing.AllocsPerRun(50, func() {
		if err := db.Write(&b); err != nil {
			t.Fatal(err)
		}
	})
	// The queue entry and the memfs's bookkeeping; not one per key.
	if allocs > 10 {
		t.Fatalf("%v allocations per write of 100 keys", allocs)
	}
}

// Concurrent writers share fsyncs: while one commit's fsync is under way,
// the batches that arrive meanwhile are written after it as one record
// with one fsync, each applied whole, and all of them are there after a
// reopen.
func TestGroupCommit(t *testing.T) {
	fs := newMemFS(8)
	o := Options{fs: fs}
	db, err := OpenWith("/db", o)
	if err != nil {
		t.Fatal(err)
	}
	// The log's first record syncs the file whole (its size and the
	// zeros written ahead); the ones after it only their data.
	if err := db.Put([]byte("warm"), []byte("1")); err != nil {
		t.Fatal(err)
	}
	syncing, release := make(chan struct{}), make(chan struct{})
	var syncs atomic.Int32
	var once sync.Once
	fs.mu.Lock()
	fs.onSync = func() {
		syncs.Add(1)
		once.Do(func() {
			close(syncing)
			<-release
		})
	}
	fs.mu.Unlock()
	const writers = 20
	errs := make(chan error, writers+1)
	go func() { errs <- db.Put([]byte("first"), []byte("1")) }()
	<-syncing
	for w := range writers {
		go func() {
			var b Batch
			for i := range 10 {
				b.Put([]byte(fmt.Sprintf("w%02d-%d", w, i)), []byte{byte(w)})
			}
			errs <- db.Write(&b)
		}()
	}
	// Wait until every writer is queued behind the held sync.
	for {
		db.qmu.Lock()
		n := len(db.queue)
		db.qmu.Unlock()
		if n == writers+1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	close(release)
	for range writers + 1 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if n := syncs.Load(); n != 2 {
		t.Fatalf("%d fsyncs for %d concurrent commits, want 2 (the first, then one for the group)", n, writers+1)
	}
	db.Close()
	db, err = OpenWith("/db", Options{fs: fs.restart()})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for w := range writers {
		for i := range 10 {
			if v, err := db.Get([]byte(fmt.Sprintf("w%02d-%d", w, i))); err != nil || v[0] != byte(w) {
				t.Fatalf("writer %d key %d after the reopen: %v", w, i, err)
			}
		}
	}
}

// Writes go on while flushes are held up, until maxImmutable full
// memtables wait for the flusher: one slow flush no longer stops every
// commit as soon as the next memtable fills.
func TestWritesContinueWhileAFlushIsSlow(t *testing.T) {
	fs := &holdFS{memFS: newMemFS(9), held: make(chan struct{})}
	o := Options{MemtableBytes: 8 << 10, fs: fs, NoSync: true}
	db, err := OpenWith("/db", o)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		fs.release()
		db.Close()
	}()
	rotations := func() int {
		db.mu.RLock()
		defer db.mu.RUnlock()
		return len(db.cur.imms)
	}
	wrote := make(chan int)
	go func() {
		i := 0
		for ; rotations() < maxImmutable; i++ {
			if err := db.Put([]byte(fmt.Sprintf("k%05d", i)), make([]byte, 200)); err != nil {
				t.Error(err)
				break
			}
		}
		wrote <- i
	}()
	select {
	case n := <-wrote:
		if n == 0 {
			t.Fatal("nothing written")
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("writes stopped with %d memtable(s) waiting for a held flush, want them to go on until %d wait", rotations(), maxImmutable)
	}
}

// holdFS holds every table write until released.
type holdFS struct {
	*memFS
	held chan struct{}
	once sync.Once
}

func (fs *holdFS) release() { fs.once.Do(func() { close(fs.held) }) }

func (fs *holdFS) open(name string, create, write bool) (file, error) {
	f, err := fs.memFS.open(name, create, write)
	if err != nil || !write || len(name) < 4 || name[len(name)-4:] != tableSuffix {
		return f, err
	}
	<-fs.held
	return f, nil
}

// A write makes the system calls Pebble's commit makes: an unsynced one
// writes its log record and nothing else (the tip is a store to mapped
// memory), a synced one writes it and calls fdatasync, which writes data
// only (the log was written ahead with zeros and synced whole once per
// walChunk, so its size and block map do not change).
func TestSystemCallsPerWrite(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the tip is mapped into memory on Linux only")
	}
	fs := &syscallFS{}
	db, err := OpenWith(t.TempDir(), Options{MemtableBytes: 64 << 20, fs: fs})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	v := make([]byte, 100)
	put := func(i int) {
		var b Batch
		for j := range 10 {
			b.Put([]byte(fmt.Sprintf("key-%06d-%d", i, j)), v)
		}
		if err := db.Write(&b); err != nil {
			t.Fatal(err)
		}
	}
	put(0) // the log's first synced record writes it ahead
	const n = 50
	for _, sync := range []bool{true, false} {
		db.NoSync = !sync
		w0, s0, d0 := fs.writes.Load(), fs.syncs.Load(), fs.datasyncs.Load()
		for i := range n {
			put(1 + i)
		}
		w, s, d := fs.writes.Load()-w0, fs.syncs.Load()-s0, fs.datasyncs.Load()-d0
		wantD := int64(0)
		if sync {
			wantD = n
		}
		if w != n || s != 0 || d != wantD {
			t.Errorf("%d writes (synced %v): %d writes, %d fsyncs, %d fdatasyncs; want %d, 0, %d", n, sync, w, s, d, n, wantD)
		}
	}
}

// syscallFS is the operating system's file system, counting the calls that
// write or sync.
type syscallFS struct {
	osFS
	writes, syncs, datasyncs atomic.Int64
}

func (fs *syscallFS) open(name string, create, write bool) (file, error) {
	f, err := fs.osFS.open(name, create, write)
	if err != nil {
		return nil, err
	}
	return &syscallFile{osFile: f.(osFile), fs: fs}, nil
}

func (fs *syscallFS) syncDir(dir string) error {
	fs.syncs.Add(1)
	return fs.osFS.syncDir(dir)
}

type syscallFile struct {
	osFile
	fs *syscallFS
}

func (f *syscallFile) WriteAt(p []byte, off int64) (int, error) {
	f.fs.writes.Add(1)
	return f.osFile.WriteAt(p, off)
}

func (f *syscallFile) Truncate(n int64) error {
	f.fs.writes.Add(1)
	return f.osFile.Truncate(n)
}

func (f *syscallFile) Sync() error {
	f.fs.syncs.Add(1)
	return f.osFile.Sync()
}

func (f *syscallFile) datasync() error {
	f.fs.datasyncs.Add(1)
	return f.osFile.datasync()
}
