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
	dump := func(db KV) string {
		var sb strings.Builder
		db.Iterate([]byte("k"), func(k, v []byte) bool {
			fmt.Fprintf(&sb, "%s=%x;", k, v)
			return true
		})
		return sb.String()
	}
	if a, b := dump(disk), dump(mem); a != b {
		t.Fatalf("disk and memory differ:\n%s\n%s", a, b)
	}
	disk.Close()
	again, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if a, b := dump(again), dump(mem); a != b {
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

func TestBitFlipDetected(t *testing.T) {
	dir := t.TempDir()
	sizes := writeN(t, dir, 5)
	path := filepath.Join(dir, logName)
	data, _ := os.ReadFile(path)
	// Flip one bit inside the value of the third batch.
	data[sizes[1]+recordHeader+10] ^= 0x04
	os.WriteFile(path, data, 0o644)
	db, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if !strings.Contains(db.Recover.Reason, "checksum") {
		t.Fatalf("flip not detected: %+v", db.Recover)
	}
	if db.Len() != 2 {
		t.Fatalf("kept %d keys, want the 2 before the damage", db.Len())
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
