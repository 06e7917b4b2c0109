package store

import (
	"crypto/sha256"
	"fmt"
	"testing"
	"time"
)

// bulkLoad writes n hashed keys (a state's trie nodes and flat entries
// are hashes: every table spans the whole key space) into a store opened
// with o, with its background compactions held back as a node's quiet
// start holds them, and returns what it wrote.
func bulkLoad(t *testing.T, o Options, n int) map[string]string {
	t.Helper()
	o.QuietStart = time.Hour
	db, err := OpenWith("/db", o)
	if err != nil {
		t.Fatal(err)
	}
	model := map[string]string{}
	for i := 0; i < n; i += 50 {
		var b Batch
		for j := i; j < i+50 && j < n; j++ {
			k := sha256.Sum256([]byte(fmt.Sprint(j)))
			v := fmt.Sprintf("%080d", j)
			b.Put(k[:], []byte(v))
			model[string(k[:])] = v
		}
		if err := db.Write(&b); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return model
}

// A close with CompactOnClose leaves no compaction for the next open:
// chaind init's bulk load of a 10M-account genesis left 11 level-0 tables
// and 2.3 GB in a level 1 of 64 MiB, which the node merged beside its
// first blocks. Without the option the same load leaves that backlog (so
// the test sees the difference).
func TestCompactOnCloseLeavesNoDebt(t *testing.T) {
	for _, compact := range []bool{false, true} {
		t.Run(fmt.Sprint("compact=", compact), func(t *testing.T) {
			fs := newMemFS(3)
			o := Options{MemtableBytes: 16 << 10, TableBytes: 8 << 10, L1Bytes: 32 << 10, CacheMiB: 1, NoSync: true, fs: fs, FlushOnClose: true, CompactOnClose: compact}
			model := bulkLoad(t, o, 8000)
			o.CompactOnClose = false
			db, err := OpenWith("/db", o) // no quiet start: nothing runs before Levels
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			levels := db.Levels()
			if Settled(levels) != compact {
				t.Fatalf("CompactOnClose %v: levels after the reopen %+v", compact, levels)
			}
			if got, want := dumpKeys(db), dumpModel(model); got != want {
				t.Fatal("the store differs from what was written")
			}
		})
	}
}

// Level 0's compactor leaves a level 1 of twice its size or more to the
// deeper compactor while writers do not wait for level 0: with hashed
// keys each level-0 table overlaps all of level 1, so a merge into it
// rewrites it all, and a level 1 the deeper compactor never got grew
// without bound. Once writers give way (l0SlowWrites) level 0 merges into
// level 1 whatever its size.
func TestLevelZeroYieldsAnOversizedLevelOne(t *testing.T) {
	const tb = 1 << 10
	mk := func(num uint64, lo, hi byte, size int64) *table {
		return &table{num: num, size: size, smallest: []byte{lo}, largest: []byte{hi}}
	}
	for _, tc := range []struct {
		name         string
		l0, l1Tables int
		want0        string // level 0's pick: "", "intra" or "l1"
		wantDeeper   bool
	}{
		{"l1 within its size", 4, 2, "l1", false},
		{"l1 over its size, under twice", 4, 3, "l1", false},
		{"l1 twice its size", 4, 4, "", true},
		{"l1 twice its size, level 0 merges within", l0IntraTrigger, 4, "intra", true},
		{"l1 twice its size, writers give way", l0SlowWrites, 4, "l1", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := &DB{opts: Options{L1Bytes: 2 * tb}.withDefaults()}
			v := &version{}
			var num uint64
			for range tc.l0 {
				num++
				v.levels[0] = append(v.levels[0], mk(num, 0, 255, tb))
			}
			for i := range tc.l1Tables {
				num++
				v.levels[1] = append(v.levels[1], mk(num, byte(i*50), byte(i*50+49), tb))
			}
			db.cur = v
			got := ""
			if c := db.pickLocked(true, l0CompactTrigger); c != nil {
				got = "l1"
				if c.intra {
					got = "intra"
				}
			}
			if got != tc.want0 {
				t.Fatalf("level 0's compactor picked %q, want %q", got, tc.want0)
			}
			c := db.pickLocked(false, l0CompactTrigger)
			if (c != nil) != tc.wantDeeper || c != nil && c.level != 1 {
				t.Fatalf("the deeper compactor picked %+v, want a level-1 table: %v", c, tc.wantDeeper)
			}
		})
	}
}
