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
	disk, err := Open(dir)
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
		if i%50 == 0 {
			if err := disk.Compact(); err != nil {
				t.Fatal(err)
			}
		}
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
		sizes = append(sizes, db.size)
	}
	return sizes
}

func TestTornTailIsCut(t *testing.T) {
	for cut := 1; cut < 50; cut += 7 {
		dir := t.TempDir()
		sizes := writeN(t, dir, 5)
		path := filepath.Join(dir, logName)
		if err := os.Truncate(path, sizes[4]-int64(cut)); err != nil {
			t.Fatal(err)
		}
		db, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		if db.Recover.CutBytes == 0 || db.Len() != 4 {
			t.Fatalf("cut %d: recover %+v, %d keys", cut, db.Recover, db.Len())
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
		time.Sleep(time.Duration(5+rand.Intn(40)) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()
		acked := next - 1
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
	db, err := Open(dir)
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
	path := filepath.Join(dir, logName)
	if err := os.Truncate(path, sizes[2]-3); err != nil {
		t.Fatal(err)
	}
	ro, err := OpenReadOnly(dir)
	if err != nil {
		t.Fatal(err)
	}
	if ro.Recover.CutBytes == 0 || ro.Len() != 2 {
		t.Fatalf("read-only open: recover %+v, %d keys", ro.Recover, ro.Len())
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
			path := filepath.Join(dir, logName)
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
	path := filepath.Join(dir, logName)
	data, _ := os.ReadFile(path)
	data[sizes[3]+recordHeader+5] ^= 0x01
	os.WriteFile(path, data, 0o644)
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.Recover.CutBytes != sizes[4]-sizes[3] || db.Len() != 4 {
		t.Fatalf("recover %+v, %d keys", db.Recover, db.Len())
	}
}

// A file cut short before its last write began lost committed data too.
func TestTruncatedBeforeLastWriteRefused(t *testing.T) {
	dir := t.TempDir()
	sizes := writeN(t, dir, 5)
	if err := os.Truncate(filepath.Join(dir, logName), sizes[2]); err != nil {
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

// After Compact the tip points into the new log: a reopen finds nothing
// to cut, and damage before the new log's last write is still refused.
func TestCompactKeepsTip(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 50; i++ {
		db.Put([]byte(fmt.Sprintf("k%d", i%5)), bytes.Repeat([]byte{byte(i)}, 100))
	}
	if err := db.Compact(); err != nil {
		t.Fatal(err)
	}
	db.Put([]byte("after"), []byte("compact"))
	db.Put([]byte("after2"), []byte("compact"))
	db.Close()
	if db, err = Open(dir); err != nil || db.Recover.CutBytes != 0 || db.Len() != 7 {
		t.Fatalf("reopen after compact: %v %+v", err, db.Recover)
	}
	db.Close()
	path := filepath.Join(dir, logName)
	data, _ := os.ReadFile(path)
	data[recordHeader+3] ^= 1 // inside the compacted record, before the last write
	os.WriteFile(path, data, 0o644)
	if _, err := Open(dir); !errors.Is(err, ErrDamaged) {
		t.Fatalf("damage in the compacted log: %v", err)
	}
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

// Writes that land while Compact copies (puts, overwrites and deletes of
// keys in its snapshot and new keys) are all in the compacted log, and
// the store stays readable and writable meanwhile.
func TestCompactKeepsWritesMeanwhile(t *testing.T) {
	dir := t.TempDir()
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	mem := NewMem()
	write := func(b *Batch) {
		if err := db.Write(b); err != nil {
			t.Fatal(err)
		}
		mem.Write(b)
	}
	rng := rand.New(rand.NewSource(7))
	random := func(round int) {
		var b Batch
		for j := rng.Intn(6); j >= 0; j-- {
			k := []byte(fmt.Sprintf("k%03d", rng.Intn(120)))
			if rng.Intn(3) == 0 {
				b.Delete(k)
			} else {
				b.Put(k, bytes.Repeat([]byte{byte(round)}, 1+rng.Intn(200)))
			}
		}
		write(&b)
	}
	for i := range 400 {
		random(i)
	}
	second := make(chan error, 1)
	compactCopied = func() {
		for i := range 50 {
			random(1000 + i)
		}
		second <- db.Compact()
	}
	defer func() { compactCopied = nil }()
	if err := db.Compact(); err != nil {
		t.Fatal(err)
	}
	if err := <-second; !errors.Is(err, ErrCompacting) {
		t.Fatalf("a second compaction meanwhile: %v", err)
	}
	want := dumpKeys(mem)
	if got := dumpKeys(db); got != want {
		t.Fatal("after compacting, the store differs from what was written")
	}
	random(2000)
	want = dumpKeys(mem)
	db.Close()
	if db, err = Open(dir); err != nil || db.Recover.CutBytes != 0 {
		t.Fatalf("reopen: %v %+v", err, db.Recover)
	}
	defer db.Close()
	if got := dumpKeys(db); got != want {
		t.Fatal("after reopening, the store differs from what was written")
	}
}

// Readers and writers run while compactions do (for the race detector).
func TestCompactConcurrent(t *testing.T) {
	db, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.NoSync = true
	done := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-done:
					return
				default:
				}
				k := []byte(fmt.Sprintf("w%d-%d", w, i%50))
				if err := db.Put(k, []byte(fmt.Sprint(i))); err != nil {
					t.Error(err)
					return
				}
				if v, err := db.Get(k); err != nil || string(v) != fmt.Sprint(i) {
					t.Errorf("read back %s: %q %v", k, v, err)
					return
				}
			}
		}()
	}
	for range 20 {
		if err := db.Compact(); err != nil {
			t.Fatal(err)
		}
	}
	close(done)
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
