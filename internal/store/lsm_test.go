package store

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// fill writes n keys of 100-byte values in batches of 10 and returns the
// store open.
func fill(t *testing.T, dir string, o Options, n int) *DB {
	t.Helper()
	db, err := OpenWith(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i += 10 {
		var b Batch
		for j := i; j < i+10 && j < n; j++ {
			b.Put([]byte(fmt.Sprintf("key-%06d", j)), bytes.Repeat([]byte{byte(j)}, 100))
		}
		if err := db.Write(&b); err != nil {
			t.Fatal(err)
		}
	}
	return db
}

// waitIdle waits for the flusher and compactor to have nothing to do.
func waitIdle(db *DB) {
	db.mu.Lock()
	defer db.mu.Unlock()
	for len(db.cur.imms) > 0 || len(db.cur.levels[0]) >= l0CompactTrigger {
		db.changed.Wait()
	}
}

// Open replays only the logs written since the last flush, however much
// the store holds: the rest is in tables the manifest names.
func TestOpenReplaysOnlyTheUnflushedLog(t *testing.T) {
	dir := t.TempDir()
	o := Options{MemtableBytes: 32 << 10, TableBytes: 16 << 10, L1Bytes: 64 << 10, NoSync: true}
	db := fill(t, dir, o, 5000)
	waitIdle(db)
	db.Close()
	db, err := OpenWith(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// 500 batches were written; a memtable holds about 25 of them.
	if db.Recover.Batches > 60 {
		t.Fatalf("open replayed %d batches of 500", db.Recover.Batches)
	}
	if n := countKeys(t, db); n != 5000 {
		t.Fatalf("%d keys after reopening, want 5000", n)
	}
	for _, i := range []int{0, 1234, 4999} {
		v, err := db.Get([]byte(fmt.Sprintf("key-%06d", i)))
		if err != nil || !bytes.Equal(v, bytes.Repeat([]byte{byte(i)}, 100)) {
			t.Fatalf("key %d: %v", i, err)
		}
	}
}

// A flipped bit in a table is detected when the block is read and never
// served; Repair sets the table aside and the store opens again.
func TestTableDamageDetectedAndSetAside(t *testing.T) {
	dir := t.TempDir()
	o := Options{MemtableBytes: 32 << 10, TableBytes: 16 << 10, L1Bytes: 1 << 30, NoSync: true}
	db := fill(t, dir, o, 3000)
	waitIdle(db)
	db.Close()
	tables, _ := filepath.Glob(filepath.Join(dir, "*"+tableSuffix))
	if len(tables) == 0 {
		t.Fatal("no table was written")
	}
	victim := tables[0]
	data, _ := os.ReadFile(victim)
	data[100] ^= 0x08 // inside the first data block
	os.WriteFile(victim, data, 0o644)

	db, err := OpenWith(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	var damaged bool
	for i := range 3000 {
		v, err := db.Get([]byte(fmt.Sprintf("key-%06d", i)))
		if errors.Is(err, ErrDamaged) {
			damaged = true
			if !strings.Contains(err.Error(), "chaind repair") {
				t.Fatalf("error does not say how to repair: %v", err)
			}
			continue
		}
		if err != nil || !bytes.Equal(v, bytes.Repeat([]byte{byte(i)}, 100)) {
			t.Fatalf("key %d served wrong: %q %v", i, v, err)
		}
	}
	if !damaged {
		t.Fatal("no read hit the damaged block")
	}
	if err := db.Iterate(nil, func(k, v []byte) bool { return true }); !errors.Is(err, ErrDamaged) {
		t.Fatalf("a scan over the damaged block: %v", err)
	}
	db.Close()

	info, err := Repair(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Tables) != 1 || info.Tables[0] != victim {
		t.Fatalf("repair set aside %v, want %s", info.Tables, victim)
	}
	if aside, _ := os.ReadFile(victim + ".damaged"); !bytes.Equal(aside, data) {
		t.Fatal("the damaged table was not kept aside whole")
	}
	db, err = OpenWith(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Iterate(nil, func(k, v []byte) bool { return true }); err != nil {
		t.Fatalf("scan after repair: %v", err)
	}
}

// A damaged manifest is refused, not guessed around.
func TestManifestDamageRefused(t *testing.T) {
	dir := t.TempDir()
	db := fill(t, dir, Options{}, 10)
	db.Close()
	p := filepath.Join(dir, manifestName)
	data, _ := os.ReadFile(p)
	data[len(data)-1] ^= 1
	os.WriteFile(p, data, 0o644)
	if _, err := Open(dir); !errors.Is(err, ErrDamaged) {
		t.Fatalf("open with a damaged manifest: %v", err)
	}
}

// A full disk fails the write that meets it with the reason (in the log,
// or in a flush the write has to wait for), nothing acknowledged is lost,
// and the store goes on once there is room again.
func TestDiskFullIsClearAndRecovers(t *testing.T) {
	fs := newMemFS(3)
	db, err := OpenWith("/db", smallOpts(fs))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	model := map[string]string{}
	put := func(i int) error {
		k, v := fmt.Sprintf("k%04d", i), strings.Repeat("v", 100)
		err := db.Put([]byte(k), []byte(v))
		if err == nil {
			model[k] = v
		}
		return err
	}
	for i := range 50 {
		if err := put(i); err != nil {
			t.Fatal(err)
		}
	}
	fs.setFull(true)
	failed := 0
	for i := 50; i < 150; i++ {
		if err := put(i); err != nil {
			if !errors.Is(err, syscall.ENOSPC) || !strings.HasPrefix(err.Error(), "store: ") {
				t.Fatalf("write on a full disk: %v", err)
			}
			failed++
		}
	}
	if failed == 0 {
		t.Fatal("no write failed on a full disk")
	}
	fs.setFull(false)
	for i := 150; i < 400; i++ {
		if err := put(i); err != nil {
			t.Fatalf("write once there is room: %v", err)
		}
	}
	if got, want := dumpKeys(db), dumpModel(model); got != want {
		t.Fatalf("after the full disk the store holds\n%s\nwant\n%s", got, want)
	}
	db.Close()
	db, err = OpenWith("/db", smallOpts(fs))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := dumpKeys(db), dumpModel(model); got != want {
		t.Fatal("after reopening, the store differs from what was acknowledged")
	}
}

// The log is written ahead with zeros: zeros after the last record are
// its end (what a kill leaves), not damage; zeros where committed records
// were (the tip points past them) are damage.
func TestLogZeroTail(t *testing.T) {
	dir := t.TempDir()
	sizes := writeN(t, dir, 5)
	p := currentLog(t, dir)
	data, _ := os.ReadFile(p)
	if int64(len(data)) != sizes[4] {
		t.Fatalf("a closed log holds %d bytes, want its %d bytes of records", len(data), sizes[4])
	}
	os.WriteFile(p, append(data, make([]byte, 5000)...), 0o644)
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if db.Recover.CutBytes != 0 || countKeys(t, db) != 5 {
		t.Fatalf("zeros after the last record: recover %+v, %d keys", db.Recover, countKeys(t, db))
	}
	db.Put([]byte("k5"), []byte("after"))
	db.Close()
	if db, err = Open(dir); err != nil || countKeys(t, db) != 6 {
		t.Fatalf("reopen: %v", err)
	}
	db.Close()

	data, _ = os.ReadFile(p)
	copy(data[sizes[1]:sizes[3]], make([]byte, sizes[3]-sizes[1]))
	os.WriteFile(p, data, 0o644)
	if _, err := Open(dir); !errors.Is(err, ErrDamaged) {
		t.Fatalf("committed records zeroed: %v", err)
	}
}

// The log is written ahead a page per write, so no page-cache folio
// spans more than a page of it and a commit's sync writes back only the
// pages it touched; a log reopened after a kill has the zeros replay read
// cut from the page after its end, and they are written again the same
// way.
func TestLogWrittenAheadByPage(t *testing.T) {
	fs := &recordFS{memFS: newMemFS(7)}
	o := Options{MemtableBytes: 4 << 20, fs: fs}
	db, err := OpenWith("/db", o)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if err := db.Put([]byte(fmt.Sprintf("k%d", i)), make([]byte, 3000)); err != nil {
			t.Fatal(err)
		}
	}
	ahead := fs.checkZeroWrites(t)
	if ahead < walChunk {
		t.Fatalf("%d bytes written ahead, want at least %d", ahead, walChunk)
	}
	end := db.log.size
	fs.memFS = fs.memFS.restart() // killed: the zeros stay
	db, err = OpenWith("/db", o)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if want := (end + walPage - 1) / walPage * walPage; db.log.alloc != want {
		t.Fatalf("reopened log keeps %d bytes, want %d (its %d bytes of records to the page)", db.log.alloc, want, end)
	}
	fs.writes = nil
	if err := db.Put([]byte("k10"), make([]byte, 3000)); err != nil {
		t.Fatal(err)
	}
	if ahead := fs.checkZeroWrites(t); ahead < walChunk {
		t.Fatalf("%d bytes written ahead after the reopen, want at least %d", ahead, walChunk)
	}
	if countKeys(t, db) != 11 {
		t.Fatal("keys lost across the reopen")
	}
}

// Unsynced writes (NoSync) write no zeros ahead: the zeros only make a
// later fdatasync cheap, and cost the writer a page write each. A synced
// write after them writes ahead from the end of the log, over none of
// its records.
func TestUnsyncedWritesWriteNoZerosAhead(t *testing.T) {
	fs := &recordFS{memFS: newMemFS(8)}
	db, err := OpenWith("/db", Options{MemtableBytes: 4 << 20, fs: fs, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if err := db.Put([]byte(fmt.Sprintf("k%d", i)), make([]byte, 3000)); err != nil {
			t.Fatal(err)
		}
	}
	if ahead := fs.checkZeroWrites(t); ahead != 0 {
		t.Fatalf("%d bytes of zeros written ahead by unsynced writes", ahead)
	}
	db.NoSync = false
	if err := db.Put([]byte("k10"), make([]byte, 3000)); err != nil {
		t.Fatal(err)
	}
	if ahead := fs.checkZeroWrites(t); ahead < walChunk {
		t.Fatalf("%d bytes written ahead by a synced write, want at least %d", ahead, walChunk)
	}
	fs.memFS = fs.memFS.restart()
	db, err = OpenWith("/db", Options{MemtableBytes: 4 << 20, fs: fs})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if countKeys(t, db) != 11 {
		t.Fatal("keys lost across the reopen")
	}
}

// recordFS is a memFS that records the writes made to logs.
type recordFS struct {
	*memFS
	writes []recordedWrite
}

type recordedWrite struct {
	off  int64
	n    int
	zero bool
}

func (fs *recordFS) open(name string, create, write bool) (file, error) {
	f, err := fs.memFS.open(name, create, write)
	if err != nil || !strings.HasSuffix(name, logSuffix) {
		return f, err
	}
	return &recordFile{file: f, fs: fs}, nil
}

type recordFile struct {
	file
	fs *recordFS
}

func (f *recordFile) WriteAt(p []byte, off int64) (int, error) {
	f.fs.writes = append(f.fs.writes, recordedWrite{off, len(p), !slices.ContainsFunc(p, func(c byte) bool { return c != 0 })})
	return f.file.WriteAt(p, off)
}

// checkZeroWrites fails unless every write of zeros stays within a page,
// and returns how many zeros were written.
func (fs *recordFS) checkZeroWrites(t *testing.T) (n int64) {
	t.Helper()
	for _, w := range fs.writes {
		if !w.zero {
			continue
		}
		if w.off/walPage != (w.off+int64(w.n)-1)/walPage {
			t.Fatalf("zeros written at %d..%d cross a page boundary", w.off, w.off+int64(w.n))
		}
		n += int64(w.n)
	}
	return n
}

// Reads never wait on a write's fsync: while a commit's log record is
// being synced (held here), Get answers with the value before it, and the
// commit's value once Write returns.
func TestReadsDuringWriteSync(t *testing.T) {
	fs := newMemFS(4)
	db, err := OpenWith("/db", smallOpts(fs))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Put([]byte("k"), []byte("1")); err != nil {
		t.Fatal(err)
	}
	syncing, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	fs.mu.Lock()
	fs.onSync = func() {
		once.Do(func() {
			close(syncing)
			<-release
		})
	}
	fs.mu.Unlock()
	done := make(chan error, 1)
	go func() { done <- db.Put([]byte("k"), []byte("2")) }()
	<-syncing
	var releaseOnce sync.Once
	defer releaseOnce.Do(func() { close(release) }) // a failure lets the write finish too
	read := make(chan string)
	go func() {
		v, err := db.Get([]byte("k"))
		if err != nil {
			v = []byte(err.Error())
		}
		read <- string(v)
	}()
	select {
	case v := <-read:
		if v != "1" {
			t.Fatalf("read during the sync: %q, want 1", v)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a read waits on the write's fsync")
	}
	releaseOnce.Do(func() { close(release) })
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if v, err := db.Get([]byte("k")); err != nil || string(v) != "2" {
		t.Fatalf("after the write: %q %v", v, err)
	}
}

// A clean close writes a memtable of more than closeFlushBytes to a
// table: the next open replays no log, and every key is there.
func TestCloseFlushesALargeMemtable(t *testing.T) {
	fs := newMemFS(5)
	o := smallOpts(fs)
	o.MemtableBytes = 64 << 20 // no flush before the close
	o.FlushOnClose = true
	db, err := OpenWith("/db", o)
	if err != nil {
		t.Fatal(err)
	}
	var b Batch
	for i := range 20_000 {
		b.Put([]byte(fmt.Sprintf("key%06d", i)), bytes.Repeat([]byte{byte(i)}, 100))
	}
	if err := db.Write(&b); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = OpenWith("/db", o)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.Recover.Batches != 0 {
		t.Fatalf("the open replayed %d batches of the log", db.Recover.Batches)
	}
	for _, i := range []int{0, 7777, 19_999} {
		v, err := db.Get([]byte(fmt.Sprintf("key%06d", i)))
		if err != nil || !bytes.Equal(v, bytes.Repeat([]byte{byte(i)}, 100)) {
			t.Fatalf("key %d after the reopen: %v", i, err)
		}
	}
}

// A clean close also writes the immutable memtable the flusher had not
// written because the close cut its flush short, with the small current
// one: chaind init's close left a 17 MiB log that every first start
// replayed.
func TestCloseFlushesAPendingImmutableMemtable(t *testing.T) {
	fs := newMemFS(6)
	o := smallOpts(fs)
	o.MemtableBytes = 64 << 20
	o.FlushOnClose = true
	db, err := OpenWith("/db", o)
	if err != nil {
		t.Fatal(err)
	}
	put := func(from, to int) {
		var b Batch
		for i := from; i < to; i++ {
			b.Put([]byte(fmt.Sprintf("key%06d", i)), bytes.Repeat([]byte{byte(i)}, 100))
		}
		if err := db.Write(&b); err != nil {
			t.Fatal(err)
		}
	}
	put(0, 20_000)
	// Rotate as makeRoom does but without waking the flusher, which
	// waits for a wake or the close: the memtable stays immutable and
	// unwritten until Close, with the error the flusher records when a
	// close cuts its flush short.
	db.mu.Lock()
	db.flushErr = errClosing
	old := db.log
	mem, err := db.newLog()
	if err != nil {
		db.mu.Unlock()
		t.Fatal(err)
	}
	old.finish()
	old.f.Close()
	nv := db.cur.clone()
	nv.imms, nv.mem = append(nv.imms, db.cur.mem), mem
	db.install(nv)
	db.mu.Unlock()
	put(20_000, 20_010) // far below closeFlushBytes
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err = OpenWith("/db", o)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.Recover.Batches != 0 {
		t.Fatalf("the open replayed %d batches of the log", db.Recover.Batches)
	}
	for _, i := range []int{0, 19_999, 20_009} {
		v, err := db.Get([]byte(fmt.Sprintf("key%06d", i)))
		if err != nil || !bytes.Equal(v, bytes.Repeat([]byte{byte(i)}, 100)) {
			t.Fatalf("key %d after the reopen: %v", i, err)
		}
	}
}

// Level 0 never waits for a compaction of the levels below: while a
// merge of level 1 into level 2 is held (a long one on a real disk),
// level 0's tables keep being merged (into one, as the level-1 tables
// they overlap are taken), so writes never stop at l0StopWrites; they
// only give way a moment each from l0SlowWrites on. Once the deeper
// compaction goes on, the store holds what was written, before and after
// a reopen.
func TestLevelZeroDoesNotWaitForDeeperCompactions(t *testing.T) {
	fs := newMemFS(11)
	o := Options{MemtableBytes: 32 << 10, TableBytes: 16 << 10, L1Bytes: 64 << 10, CacheMiB: 1, fs: fs}
	held, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	var intra atomic.Int32
	o.compactHook = func(c *compaction) {
		switch {
		case c.intra:
			intra.Add(1)
		case c.level >= 1:
			once.Do(func() { close(held) })
			<-release
		}
	}
	db, err := OpenWith("/db", o)
	if err != nil {
		t.Fatal(err)
	}
	model := map[string]string{}
	rng := rand.New(rand.NewSource(11))
	// Keys from a space larger than level 1 holds, so it overflows.
	write := func(i int) {
		var b Batch
		for range 4 {
			k, v := fmt.Sprintf("k%05d", rng.Intn(20000)), fmt.Sprintf("%0100d", i)
			b.Put([]byte(k), []byte(v))
			model[k] = v
		}
		if err := db.Write(&b); err != nil {
			t.Error(err)
		}
	}
	i := 0
	for ; ; i++ {
		write(i)
		select {
		case <-held:
		default:
			if i > 20_000 {
				t.Fatal("no compaction of level 1 began")
			}
			continue
		}
		break
	}
	// Writes go on, in a goroutine so a stop shows as a failure, not a
	// hung test.
	done := make(chan struct{})
	go func() {
		defer close(done)
		for j := range 3000 {
			write(i + 1 + j)
		}
	}()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("writes stopped behind a held compaction of level 1")
	}
	db.mu.Lock()
	stallL0, l0 := db.stallL0, len(db.cur.levels[0])
	db.mu.Unlock()
	if intra.Load() == 0 || stallL0 != 0 || l0 >= l0StopWrites {
		t.Fatalf("with level 1's compaction held: %d merges within level 0, writers stopped %v, %d level-0 tables", intra.Load(), stallL0, l0)
	}
	close(release)
	waitIdle(db)
	if got, want := dumpKeys(db), dumpModel(model); got != want {
		t.Fatal("the store differs from what was written")
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	o.compactHook = nil
	if db, err = OpenWith("/db", o); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got, want := dumpKeys(db), dumpModel(model); got != want {
		t.Fatal("after a reopen the store differs from what was written")
	}
}

// Writes give way to the compactions a moment each once level 0 holds
// l0SlowWrites tables, before it holds l0StopWrites and they stop.
func TestWritesSlowDownBeforeTheyStop(t *testing.T) {
	fs := newMemFS(12)
	o := smallOpts(fs)
	release := make(chan struct{})
	o.compactHook = func(*compaction) { <-release } // no compaction ends
	db, err := OpenWith("/db", o)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	defer close(release)
	rng := rand.New(rand.NewSource(12))
	for i := 0; ; i++ {
		db.mu.Lock()
		l0, slow, stop := len(db.cur.levels[0]), db.stallSlow.Load(), db.stallL0
		db.mu.Unlock()
		if stop != 0 {
			t.Fatal("writes stopped")
		}
		b, _ := randomBatch(rng, i)
		if err := db.Write(b); err != nil {
			t.Fatal(err)
		}
		// No compaction ends, so level 0 only grows: a write that began
		// with l0SlowWrites tables there must have given way. (Checking
		// at one table more raced: a write that saw one table fewer could
		// fill the next memtable while the flush before it installed.)
		if l0 >= l0SlowWrites {
			if s := db.stallSlow.Load(); s == slow {
				t.Fatalf("a write began with %d level-0 tables and did not slow down", l0)
			}
			return
		}
	}
}
