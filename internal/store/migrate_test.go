package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeLegacy builds a data directory of the single-log format, as the
// store before the sorted tables left it: every batch one record of
// data.log, and data.tip the 12-byte start of the last one. It returns the
// offset of each record.
func writeLegacy(t *testing.T, dir string, batches []*Batch) []int64 {
	t.Helper()
	var log []byte
	var offs []int64
	for _, b := range batches {
		offs = append(offs, int64(len(log)))
		log = append(log, frame(b.ops)...)
	}
	if err := os.WriteFile(filepath.Join(dir, legacyLogName), log, 0o644); err != nil {
		t.Fatal(err)
	}
	var tip [12]byte
	binary.LittleEndian.PutUint64(tip[:8], uint64(offs[len(offs)-1]))
	binary.LittleEndian.PutUint32(tip[8:], crc32.Checksum(tip[:8], castagnoli))
	if err := os.WriteFile(filepath.Join(dir, tipName), tip[:], 0o644); err != nil {
		t.Fatal(err)
	}
	return offs
}

// legacyBatches writes n keys, overwrites every third and deletes every
// fifth, and returns the batches with the state they leave.
func legacyBatches(n int) ([]*Batch, map[string]string) {
	var bs []*Batch
	want := map[string]string{}
	for i := range n {
		var b Batch
		k := fmt.Sprintf("k%05d", i)
		b.Put([]byte(k), []byte(strings.Repeat("x", i%300)))
		want[k] = strings.Repeat("x", i%300)
		if i%3 == 0 && i > 0 {
			o := fmt.Sprintf("k%05d", i-1)
			b.Put([]byte(o), []byte("over"))
			want[o] = "over"
		}
		if i%5 == 0 && i > 0 {
			d := fmt.Sprintf("k%05d", i-2)
			b.Delete([]byte(d))
			delete(want, d)
		}
		bs = append(bs, &b)
	}
	return bs, want
}

// An old-format directory is converted on its first writable open: every
// key comes through, the old log is gone, the next open replays no more
// than the new log, and a read-only open before the conversion is
// refused with ErrNeedsMigration rather than served partly.
func TestMigrateLegacyDirectory(t *testing.T) {
	dir := t.TempDir()
	bs, want := legacyBatches(3000)
	writeLegacy(t, dir, bs)
	if !Exists(dir) {
		t.Fatal("Exists misses an old-format directory")
	}
	if _, err := OpenReadOnly(dir); !errors.Is(err, ErrNeedsMigration) {
		t.Fatalf("read-only open of an old-format directory: %v", err)
	}
	// A leftover of an interrupted conversion is cleared, not trusted.
	os.MkdirAll(filepath.Join(dir, migrateDir), 0o755)
	os.WriteFile(filepath.Join(dir, migrateDir, "000001.log"), []byte("junk"), 0o644)
	os.WriteFile(filepath.Join(dir, "000007.sst"), []byte("junk"), 0o644)

	db, err := OpenWith(dir, Options{MemtableBytes: 64 << 10, TableBytes: 32 << 10, L1Bytes: 128 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if !db.Recover.Migrated || db.Recover.CutBytes != 0 {
		t.Fatalf("recover %+v", db.Recover)
	}
	check := func(db *DB) {
		t.Helper()
		if got, w := dumpKeys(db), dumpModel(want); got != w {
			t.Fatal("the converted store differs from the old one")
		}
	}
	check(db)
	db.Close()
	for _, gone := range []string{legacyLogName, migrateDir, "000007.sst"} {
		if _, err := os.Stat(filepath.Join(dir, gone)); err == nil {
			t.Fatalf("%s is still there after the conversion", gone)
		}
	}
	db, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if db.Recover.Migrated || db.Recover.Batches >= len(bs) {
		t.Fatalf("second open: %+v", db.Recover)
	}
	check(db)
}

// A torn last record of an old log is left out and reported, as the old
// store did; damage before the last write is refused, Repair moves it
// aside in the old log, and the conversion then goes through.
func TestMigrateDamagedLegacyLog(t *testing.T) {
	t.Run("torn", func(t *testing.T) {
		dir := t.TempDir()
		bs, _ := legacyBatches(50)
		writeLegacy(t, dir, bs)
		p := filepath.Join(dir, legacyLogName)
		st, _ := os.Stat(p)
		os.Truncate(p, st.Size()-3)
		db, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if db.Recover.CutBytes == 0 || db.Recover.Batches != 49 || !db.Recover.Migrated {
			t.Fatalf("recover %+v", db.Recover)
		}
		if ok, _ := db.Has([]byte("k00049")); ok {
			t.Fatal("the torn batch was converted")
		}
	})
	t.Run("flipped", func(t *testing.T) {
		dir := t.TempDir()
		bs, want := legacyBatches(50)
		offs := writeLegacy(t, dir, bs)
		p := filepath.Join(dir, legacyLogName)
		data, _ := os.ReadFile(p)
		data[offs[20]+recordHeader+2] ^= 1
		os.WriteFile(p, data, 0o644)
		_, err := Open(dir)
		var de *DamageError
		if !errors.As(err, &de) || de.Offset != offs[20] {
			t.Fatalf("open of a damaged old log: %v", err)
		}
		info, err := Repair(dir)
		if err != nil {
			t.Fatal(err)
		}
		side, _ := os.ReadFile(info.SideFile)
		if info.Offset != offs[20] || !bytes.Equal(side, data[offs[20]:]) {
			t.Fatalf("repair %+v", info)
		}
		db, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if v, err := db.Get([]byte("k00019")); err != nil || string(v) != want["k00019"] && string(v) != "over" {
			t.Fatalf("k00019 after repair and conversion: %q %v", v, err)
		}
		if ok, _ := db.Has([]byte("k00020")); ok {
			t.Fatal("a batch from the damaged part was converted")
		}
	})
}
