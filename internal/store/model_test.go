package store

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand"
	"strings"
	"testing"
)

// smallOpts makes flushes and compactions happen every few writes.
func smallOpts(fs vfs) Options {
	return Options{MemtableBytes: 2 << 10, TableBytes: 3 << 10, L1Bytes: 12 << 10, CacheMiB: 1, fs: fs}
}

func randomBatch(rng *rand.Rand, round int) (*Batch, map[string]*string) {
	var b Batch
	ops := map[string]*string{}
	for j := rng.Intn(5); j >= 0; j-- {
		k := fmt.Sprintf("k%03d", rng.Intn(150))
		if rng.Intn(4) == 0 {
			b.Delete([]byte(k))
			ops[k] = nil
		} else {
			v := strings.Repeat(string(rune('a'+round%26)), rng.Intn(120))
			b.Put([]byte(k), []byte(v))
			ops[k] = &v
		}
	}
	return &b, ops
}

func applyOps(m map[string]string, ops map[string]*string) map[string]string {
	m = maps.Clone(m)
	for k, v := range ops {
		if v == nil {
			delete(m, k)
		} else {
			m[k] = *v
		}
	}
	return m
}

func dumpModel(m map[string]string) string {
	db := NewMem()
	var b Batch
	for k, v := range m {
		b.Put([]byte(k), []byte(v))
	}
	db.Write(&b)
	return dumpKeys(db)
}

// TestModelWithCrashes runs random batches against the store and an
// in-memory map, crashing the store at a random mutating file operation
// (in a log write, a flush, a compaction, a manifest swap...), then
// reopening it: the store must open without complaint and hold exactly
// every acknowledged batch, plus the one in flight wholly or not at all.
func TestModelWithCrashes(t *testing.T) {
	rounds := 60
	if testing.Short() {
		rounds = 10
	}
	for round := range rounds {
		rng := rand.New(rand.NewSource(int64(round)))
		fs := newMemFS(int64(round))
		model := map[string]string{}
		for life := range 6 {
			fs.crashIn(rng.Intn(300))
			db, err := OpenWith("/db", smallOpts(fs))
			if err != nil {
				if !fs.isDead() {
					t.Fatalf("round %d life %d: open: %v", round, life, err)
				}
				fs = fs.restart()
				continue
			}
			var inflight map[string]*string
			for i := 0; i < 400 && inflight == nil; i++ {
				b, ops := randomBatch(rng, i)
				if err := db.Write(b); err != nil {
					if !fs.isDead() {
						t.Fatalf("round %d: write failed without a crash: %v", round, err)
					}
					inflight = ops
					break
				}
				model = applyOps(model, ops)
				if i%25 == 0 {
					k := fmt.Sprintf("k%03d", rng.Intn(150))
					v, err := db.Get([]byte(k))
					want, ok := model[k]
					if err != nil && fs.isDead() {
						break
					}
					if ok != (err == nil) || ok && string(v) != want {
						t.Fatalf("round %d: %s = %q %v, want %q", round, k, v, err, want)
					}
				}
			}
			db.Close()
			fs = fs.restart()
			db, err = OpenWith("/db", smallOpts(fs))
			if err != nil {
				t.Fatalf("round %d life %d: reopen after a crash: %v", round, life, err)
			}
			got := dumpKeys(db)
			if err := db.Close(); err != nil {
				t.Fatal(err)
			}
			switch {
			case got == dumpModel(model):
			case inflight != nil && got == dumpModel(applyOps(model, inflight)):
				model = applyOps(model, inflight)
			default:
				t.Fatalf("round %d life %d: after the crash the store holds\n%s\nwant\n%s", round, life, got, dumpModel(model))
			}
		}
	}
}

// TestModelNoCrash checks long random runs, with flushes and compactions
// in the background and point reads, scans and reopenings, against a map.
func TestModelNoCrash(t *testing.T) {
	fs := newMemFS(1)
	rng := rand.New(rand.NewSource(2))
	db, err := OpenWith("/db", smallOpts(fs))
	if err != nil {
		t.Fatal(err)
	}
	model := map[string]string{}
	for i := range 3000 {
		b, ops := randomBatch(rng, i)
		if err := db.Write(b); err != nil {
			t.Fatal(err)
		}
		model = applyOps(model, ops)
		if i%97 == 0 {
			if got, want := dumpKeys(db), dumpModel(model); got != want {
				t.Fatalf("after %d batches:\n%s\nwant\n%s", i, got, want)
			}
		}
		for range 2 {
			k := fmt.Sprintf("k%03d", rng.Intn(150))
			v, err := db.Get([]byte(k))
			want, ok := model[k]
			if ok != (err == nil) || ok && !bytes.Equal(v, []byte(want)) {
				t.Fatalf("batch %d: %s = %q %v, want %q", i, k, v, err, want)
			}
		}
		if i%700 == 0 {
			db.Close()
			if db, err = OpenWith("/db", smallOpts(fs)); err != nil {
				t.Fatal(err)
			}
		}
	}
	db.mu.RLock()
	var tables int
	for lv := 1; lv < numLevels; lv++ {
		tables += len(db.cur.levels[lv])
	}
	db.mu.RUnlock()
	if tables == 0 {
		t.Fatal("nothing was compacted below level 0: the test exercised no compaction")
	}
	db.Close()
}
