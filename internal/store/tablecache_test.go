package store

import (
	"bytes"
	"fmt"
	"math/rand"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// countFS counts the table files open for reading through it: the
// descriptors the store's bound on open tables is about.
type countFS struct {
	vfs
	nopen, peak atomic.Int32
}

type countFile struct {
	file
	fs     *countFS
	closed atomic.Bool
}

func (c *countFS) open(name string, create, write bool) (file, error) {
	f, err := c.vfs.open(name, create, write)
	if err != nil || write || !strings.HasSuffix(name, tableSuffix) {
		return f, err
	}
	n := c.nopen.Add(1)
	for p := c.peak.Load(); n > p && !c.peak.CompareAndSwap(p, n); p = c.peak.Load() {
	}
	return &countFile{file: f, fs: c}, nil
}

func (f *countFile) Close() error {
	if !f.closed.Swap(true) {
		f.fs.nopen.Add(-1)
	}
	return f.file.Close()
}

// TestMaxOpenTables runs random batches against the model with point
// reads and scans from other goroutines while flushes and compactions
// run, with far more tables than files it may hold open: the store must
// never hold more than MaxOpenTables open, must still read right, and
// must have closed them all once closed.
func TestMaxOpenTables(t *testing.T) {
	const maxOpen = 8
	fs := &countFS{vfs: newMemFS(7)}
	opts := smallOpts(fs)
	opts.MaxOpenTables = maxOpen
	db, err := OpenWith("/db", opts)
	if err != nil {
		t.Fatal(err)
	}
	// Keys the readers check, written once and never changed, enough of
	// them to fill many tables.
	base := map[string]string{}
	for i := range 600 {
		k, v := fmt.Sprintf("b%04d", i), strings.Repeat(fmt.Sprint(i%10), 40+i%50)
		base[k] = v
		if err := db.Put([]byte(k), []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for r := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewSource(int64(r)))
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				if i%20 == 19 {
					n := 0
					err := db.Iterate([]byte("b"), func(k, v []byte) bool {
						if base[string(k)] != string(v) {
							errs <- fmt.Errorf("scan: %s = %q", k, v)
							return false
						}
						n++
						return true
					})
					if err != nil || n != len(base) {
						errs <- fmt.Errorf("scan: %d of %d keys, %v", n, len(base), err)
						return
					}
					continue
				}
				k := fmt.Sprintf("b%04d", rng.Intn(len(base)))
				if v, err := db.Get([]byte(k)); err != nil || string(v) != base[k] {
					errs <- fmt.Errorf("get %s = %q, %v", k, v, err)
					return
				}
			}
		}()
	}
	rng := rand.New(rand.NewSource(3))
	model := map[string]string{}
	mostTables := 0
	for i := range 600 {
		b, ops := randomBatch(rng, i)
		if err := db.Write(b); err != nil {
			t.Fatal(err)
		}
		model = applyOps(model, ops)
		k := fmt.Sprintf("k%03d", rng.Intn(150))
		v, err := db.Get([]byte(k))
		if want, ok := model[k]; ok != (err == nil) || ok && !bytes.Equal(v, []byte(want)) {
			t.Fatalf("batch %d: %s = %q %v, want %q", i, k, v, err, want)
		}
		if i%101 == 0 {
			if got, want := dumpKeys(db), dumpModel(model); got != want {
				t.Fatalf("after %d batches:\n%s\nwant\n%s", i, got, want)
			}
		}
		db.mu.RLock()
		n := 0
		for _, lv := range db.cur.levels {
			n += len(lv)
		}
		db.mu.RUnlock()
		mostTables = max(mostTables, n)
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if mostTables <= 2*maxOpen {
		t.Fatalf("at most %d tables: the test needs many more than %d", mostTables, maxOpen)
	}
	if p := fs.peak.Load(); p > maxOpen || p == 0 {
		t.Fatalf("%d table files open at once, want 1 to %d (tables: up to %d)", p, maxOpen, mostTables)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if n := fs.nopen.Load(); n != 0 {
		t.Fatalf("%d table files still open after Close", n)
	}
	t.Logf("tables up to %d, table files open at most %d", mostTables, fs.peak.Load())
}
