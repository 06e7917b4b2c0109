package store

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestPutGetDeleteReopen(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b Batch
	b.Put([]byte("a"), []byte("1"))
	b.Put([]byte("b"), []byte("2"))
	b.Put([]byte("a"), []byte("3")) // later op wins
	b.Delete([]byte("b"))
	b.Put([]byte("c"), nil)
	if err := db.Write(&b); err != nil {
		t.Fatal(err)
	}
	check := func(db KV) {
		t.Helper()
		if v, err := db.Get([]byte("a")); err != nil || string(v) != "3" {
			t.Fatalf("a = %q, %v", v, err)
		}
		if _, err := db.Get([]byte("b")); !errors.Is(err, ErrNotFound) {
			t.Fatalf("b: %v", err)
		}
		if v, err := db.Get([]byte("c")); err != nil || len(v) != 0 {
			t.Fatalf("c = %q, %v", v, err)
		}
	}
	check(db)
	db.Close()
	if _, err := db.Get([]byte("a")); !errors.Is(err, ErrClosed) {
		t.Fatalf("after close: %v", err)
	}
	db, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	check(db)
	if db.Recover.CutBytes != 0 {
		t.Fatalf("clean log was cut: %+v", db.Recover)
	}
}

func TestMemMatchesDisk(t *testing.T) {
	dir := t.TempDir()
	disk, err := OpenWith(dir, Options{MemtableBytes: 4 << 10, TableBytes: 4 << 10, L1Bytes: 16 << 10})
	if err != nil {
		t.Fatal(err)
	}
	disk.NoSync = true
	defer disk.Close()
	mem := NewMem()
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 300; i++ {
		var b Batch
		for j := rng.Intn(5); j >= 0; j-- {
			k := []byte(fmt.Sprintf("k%02d", rng.Intn(40)))
			if rng.Intn(4) == 0 {
				b.Delete(k)
			} else {
				b.Put(k, bytes.Repeat([]byte{byte(i)}, rng.Intn(100)))
			}
		}
		if err := disk.Write(&b); err != nil {
			t.Fatal(err)
		}
		mem.Write(&b)
	}
	if a, b := dumpKeys(disk), dumpKeys(mem); a != b {
		t.Fatalf("disk and memory differ:\n%s\n%s", a, b)
	}
	disk.Close()
	again, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if a, b := dumpKeys(again), dumpKeys(mem); a != b {
		t.Fatal("reopened store differs from memory")
	}
}

// writeN writes n single-key batches k0..k{n-1} and returns the file size
// after each one.
func writeN(t *testing.T, dir string, n int) []int64 {
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var sizes []int64
	for i := 0; i < n; i++ {
		if err := db.Put([]byte(fmt.Sprintf("k%d", i)), bytes.Repeat([]byte{'v'}, 40)); err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, db.log.size)
	}
	return sizes
}

// currentLog is the path of the log being written in dir.
func currentLog(t *testing.T, dir string) string {
	t.Helper()
	logs, _ := filepath.Glob(filepath.Join(dir, "*"+logSuffix))
	if len(logs) == 0 {
		t.Fatal("no log")
	}
	return logs[len(logs)-1]
}

// countKeys counts the live keys.
func countKeys(t *testing.T, db KV) int {
	t.Helper()
	n := 0
	if err := db.IterateKeys(nil, func([]byte) bool { n++; return true }); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestTornTailIsCut(t *testing.T) {
	for cut := 1; cut < 50; cut += 7 {
		dir := t.TempDir()
		sizes := writeN(t, dir, 5)
		path := currentLog(t, dir)
		if err := os.Truncate(path, sizes[4]-int64(cut)); err != nil {
			t.Fatal(err)
		}
		db, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if db.Recover.CutBytes == 0 || countKeys(t, db) != 4 {
			t.Fatalf("cut %d: recover %+v, %d keys", cut, db.Recover, countKeys(t, db))
		}
		if _, err := db.Get([]byte("k4")); !errors.Is(err, ErrNotFound) {
			t.Fatalf("torn batch served: %v", err)
		}
		// The store stays writable after the cut.
		if err := db.Put([]byte("k4"), []byte("again")); err != nil {
			t.Fatal(err)
		}
		db.Close()
		db, _ = Open(dir)
		if v, _ := db.Get([]byte("k4")); string(v) != "again" || db.Recover.CutBytes != 0 {
			t.Fatalf("rewrite after cut: %q %+v", v, db.Recover)
		}
		db.Close()
	}
}

// TestCrashDurability kills a writer process with SIGKILL at random moments;
// every batch the writer reported as written must be there after reopening.
func TestCrashDurability(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns child processes")
	}
	dir := t.TempDir()
	next := 0
	for round := 0; round < 20; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=TestHelperWriter")
		cmd.Env = append(os.Environ(), "STORE_HELPER_DIR="+dir, "STORE_HELPER_START="+strconv.Itoa(next))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(out)
		lines := make(chan int, 1<<16)
		go func() {
			for sc.Scan() {
				if n, err := strconv.Atoi(sc.Text()); err == nil {
					lines <- n
				}
			}
			close(lines)
		}()
		// The kill comes at a random moment once the writer is writing
		// (a slow start on a loaded machine would otherwise eat the round).
		acked := next - 1
		select {
		case n, ok := <-lines:
			if ok {
				acked = n
			}
		case <-time.After(30 * time.Second):
		}
		time.Sleep(time.Duration(5+rand.Intn(40)) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()
		for n := range lines {
			acked = n
		}
		db, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i <= acked; i++ {
			v, err := db.Get([]byte(fmt.Sprintf("key-%08d", i)))
			if err != nil || string(v) != fmt.Sprint(i) {
				t.Fatalf("round %d: acknowledged batch %d lost: %q %v (recover %+v)", round, i, v, err, db.Recover)
			}
		}
		// Resume after the last batch that made it to disk, acked or not.
		for {
			if ok, _ := db.Has([]byte(fmt.Sprintf("key-%08d", acked+1))); !ok {
				break
			}
			acked++
		}
		next = acked + 1
		db.Close()
	}
	if next < 20 {
		t.Fatalf("writer made almost no progress (%d batches)", next)
	}
}

func TestHelperWriter(t *testing.T) {
	dir := os.Getenv("STORE_HELPER_DIR")
	if dir == "" {
		t.Skip("helper process for TestCrashDurability")
	}
	start, _ := strconv.Atoi(os.Getenv("STORE_HELPER_START"))
	// Small memtables and tables: the kill lands in flushes and
	// compactions too.
	db, err := OpenWith(dir, Options{MemtableBytes: 64 << 10, TableBytes: 32 << 10, L1Bytes: 256 << 10})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	w := bufio.NewWriter(os.Stdout)
	for i := start; ; i++ {
		var b Batch
		b.Put([]byte(fmt.Sprintf("key-%08d", i)), []byte(fmt.Sprint(i)))
		b.Put([]byte("filler"), bytes.Repeat([]byte{byte(i)}, 1000))
		if err := db.Write(&b); err != nil {
			os.Exit(1)
		}
		fmt.Fprintln(w, i) // acknowledged only after Write returned
		w.Flush()
	}
}

func BenchmarkWriteNoSync(b *testing.B) {
	db, _ := Open(b.TempDir())
	db.NoSync = true
	defer db.Close()
	v := make([]byte, 100)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		var bt Batch
		bt.Put([]byte(fmt.Sprintf("k%d", i)), v)
		db.Write(&bt)
	}
}

// A read-only open sees the damage but leaves it for the next writer to cut
// and report.
func TestReadOnlyLeavesDamage(t *testing.T) {
	dir := t.TempDir()
	sizes := writeN(t, dir, 3)
	path := currentLog(t, dir)
	if err := os.Truncate(path, sizes[2]-3); err != nil {
		t.Fatal(err)
	}
	ro, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	if ro.Recover.CutBytes == 0 || countKeys(t, ro) != 2 {
		t.Fatalf("read-only open: recover %+v, %d keys", ro.Recover, countKeys(t, ro))
	}
	if err := ro.Put([]byte("x"), []byte("y")); !errors.Is(err, ErrReadOnly) {
		t.Fatalf("write to a read-only store: %v", err)
	}
	ro.Close()
	if st, _ := os.Stat(path); st.Size() != sizes[2]-3 {
		t.Fatalf("read-only open changed the file to %d bytes", st.Size())
	}
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.Recover.CutBytes == 0 {
		t.Fatal("the writer did not see the damage the read-only open left")
	}
}

// A flipped bit in any record but the last is damage to committed data:
// Open refuses, naming the offset, and Repair moves the damaged part aside
// without losing a byte; the store then opens with everything before it.
func TestDamageBeforeLastWriteRefused(t *testing.T) {
	for _, tc := range []struct {
		name   string
		at     func(sizes []int64) int64 // byte to flip
		noTip  bool                      // a directory from before the tip file
		wantAt func(sizes []int64) int64 // offset the error names
	}{
		{"payload", func(s []int64) int64 { return s[1] + recordHeader + 10 }, false, func(s []int64) int64 { return s[1] }},
		{"length", func(s []int64) int64 { return s[1] + 1 }, false, func(s []int64) int64 { return s[1] }},
		{"checksum", func(s []int64) int64 { return s[0] + 5 }, false, func(s []int64) int64 { return s[0] }},
		{"payload without tip", func(s []int64) int64 { return s[2] + recordHeader + 3 }, true, func(s []int64) int64 { return s[2] }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			sizes := writeN(t, dir, 5)
			path := currentLog(t, dir)
			data, _ := os.ReadFile(path)
			data[tc.at(sizes)] ^= 0x04
			os.WriteFile(path, data, 0o644)
			if tc.noTip {
				os.Remove(filepath.Join(dir, tipName))
			}
			_, err := Open(dir)
			var de *DamageError
			if !errors.As(err, &de) || !errors.Is(err, ErrDamaged) {
				t.Fatalf("open of a file damaged before its last write: %v", err)
			}
			want := tc.wantAt(sizes)
			if de.Offset != want || !strings.Contains(err.Error(), fmt.Sprintf("offset %d", want)) || !strings.Contains(err.Error(), "chaind repair") {
				t.Fatalf("error %q, want offset %d and how to repair", err, want)
			}
			if got, _ := os.ReadFile(path); !bytes.Equal(got, data) {
				t.Fatal("the refused open changed the file")
			}
			info, err := Repair(dir)
			if err != nil {
				t.Fatal(err)
			}
			side, _ := os.ReadFile(info.SideFile)
			if info.Offset != want || !bytes.Equal(side, data[want:]) {
				t.Fatalf("repair %+v: side file holds %d bytes, want the %d from offset %d", info, len(side), len(data)-int(want), want)
			}
			db, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if db.Recover.CutBytes != 0 {
				t.Fatalf("open after repair cut %+v", db.Recover)
			}
			// Every key written before the damage is intact.
			for i := 0; sizes[i] <= want; i++ {
				if v, err := db.Get([]byte(fmt.Sprintf("k%d", i))); err != nil || !bytes.Equal(v, bytes.Repeat([]byte{'v'}, 40)) {
					t.Fatalf("k%d after repair: %q %v", i, v, err)
				}
			}
		})
	}
}

// Damage inside the last record is what a crash mid-write leaves: it is cut
// and reported, not refused.
func TestDamageInLastWriteCut(t *testing.T) {
	dir := t.TempDir()
	sizes := writeN(t, dir, 5)
	path := currentLog(t, dir)
	data, _ := os.ReadFile(path)
	data[sizes[3]+recordHeader+5] ^= 0x01
	os.WriteFile(path, data, 0o644)
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.Recover.CutBytes != sizes[4]-sizes[3] || countKeys(t, db) != 4 {
		t.Fatalf("recover %+v, %d keys", db.Recover, countKeys(t, db))
	}
}

// A file cut short before its last write began lost committed data too.
func TestTruncatedBeforeLastWriteRefused(t *testing.T) {
	dir := t.TempDir()
	sizes := writeN(t, dir, 5)
	if err := os.Truncate(currentLog(t, dir), sizes[2]); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); !errors.Is(err, ErrDamaged) {
		t.Fatalf("open of a file cut at a record boundary before its last write: %v", err)
	}
}

// One process owns a directory: a second writer or a reader is refused
// with the holder's PID while it is open, and welcome once it is closed.
func TestDirectoryLock(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(dir)
	var le *LockedError
	if !errors.As(err, &le) || !errors.Is(err, ErrLocked) || le.PID != os.Getpid() {
		t.Fatalf("second open: %v", err)
	}
	if !strings.Contains(err.Error(), fmt.Sprint(os.Getpid())) {
		t.Fatalf("error does not name the holder: %v", err)
	}
	if _, err := OpenReadOnly(dir); !errors.Is(err, ErrLocked) {
		t.Fatalf("read-only open beside a writer: %v", err)
	}
	if _, err := Repair(dir); !errors.Is(err, ErrLocked) {
		t.Fatalf("repair beside a writer: %v", err)
	}
	db.Close()
	r1, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatalf("two readers: %v", err)
	}
	if _, err := Open(dir); !errors.Is(err, ErrLocked) {
		t.Fatalf("writer beside readers: %v", err)
	}
	r1.Close()
	r2.Close()
	db, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
}

// MemDB keeps key and value in one buffer: overwriting, deleting and
// writing into a value read back through Iterate must leave every key
// intact.
func TestMemDBSharedBuffers(t *testing.T) {
	db := NewMem()
	put := func(k, v string) {
		var b Batch
		b.Put([]byte(k), []byte(v))
		if err := db.Write(&b); err != nil {
			t.Fatal(err)
		}
	}
	put("k1", "first")
	put("k1", "second, longer")
	put("k2", "")
	put("", "empty key")
	if err := db.Iterate(nil, func(k, v []byte) bool {
		if len(v) > 0 {
			v[0] = '!'
		}
		_ = append(v, "xxxxxxxx"...) // must not land in any key's bytes
		return true
	}); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{"k1": "!econd, longer", "k2": "", "": "!mpty key"} {
		got, err := db.Get([]byte(k))
		if err != nil || string(got) != want {
			t.Fatalf("%q = %q, %v; want %q", k, got, err, want)
		}
	}
	var b Batch
	b.Delete([]byte("k1"))
	if err := db.Write(&b); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Get([]byte("k1")); err != ErrNotFound {
		t.Fatalf("deleted key: %v", err)
	}
	var keys []string
	db.IterateKeys(nil, func(k []byte) bool { keys = append(keys, string(k)); return true })
	if len(keys) != 2 {
		t.Fatalf("keys %q", keys)
	}
}

// Iterate sees the store as it was when it began: writes meanwhile (from
// fn itself, which may write) are not seen, and a batch is seen whole.
func TestIterateSnapshot(t *testing.T) {
	db, err := OpenWith(t.TempDir(), Options{MemtableBytes: 4 << 10, TableBytes: 4 << 10, L1Bytes: 16 << 10, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for i := range 300 {
		db.Put([]byte(fmt.Sprintf("k%04d", i)), bytes.Repeat([]byte{1}, 50))
	}
	seen := 0
	err = db.Iterate([]byte("k"), func(k, v []byte) bool {
		seen++
		var b Batch
		b.Put([]byte(fmt.Sprintf("k%04d", 1000+seen)), v) // after every key: would be seen
		b.Delete([]byte("k0299"))
		if err := db.Write(&b); err != nil {
			t.Fatal(err)
		}
		return true
	})
	if err != nil || seen != 300 {
		t.Fatalf("iterate saw %d keys (%v), want the 300 there were when it began", seen, err)
	}
	if n := countKeys(t, db); n != 599 {
		t.Fatalf("%d keys after, want 599", n)
	}
}

// Readers and writers run while flushes and compactions do (for the race
// detector), and every read sees the last value written.
func TestConcurrentReadWrite(t *testing.T) {
	db, err := OpenWith(t.TempDir(), Options{MemtableBytes: 8 << 10, TableBytes: 8 << 10, L1Bytes: 32 << 10, NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var wg sync.WaitGroup
	for w := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 3000 {
				k := []byte(fmt.Sprintf("w%d-%d", w, i%200))
				if err := db.Put(k, []byte(fmt.Sprint(i))); err != nil {
					t.Error(err)
					return
				}
				if v, err := db.Get(k); err != nil || string(v) != fmt.Sprint(i) {
					t.Errorf("read back %s: %q %v", k, v, err)
					return
				}
				if i%500 == 0 {
					n := 0
					db.IterateKeys([]byte(fmt.Sprintf("w%d-", w)), func([]byte) bool { n++; return true })
					if n != min(i+1, 200) {
						t.Errorf("writer %d at %d sees %d keys", w, i, n)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
}

// dumpKeys renders every key under "k" with its value, in key order.
func dumpKeys(db KV) string {
	var sb strings.Builder
	db.Iterate([]byte("k"), func(k, v []byte) bool {
		fmt.Fprintf(&sb, "%s=%x;", k, v)
		return true
	})
	return sb.String()
}
