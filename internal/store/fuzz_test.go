package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"testing"
)

// FuzzOpen replays arbitrary log files: Open must never panic, must either
// cut what does not checksum or refuse with ErrDamaged (after which Repair
// keeps every byte: log plus side file equal the input), and a second Open
// must find nothing more to cut and the same keys.
func FuzzOpen(f *testing.F) {
	var good []byte
	{
		dir := f.TempDir()
		db, err := Open(dir)
		if err != nil {
			f.Fatal(err)
		}
		var b Batch
		b.Put([]byte("a"), []byte("1"))
		b.Delete([]byte("b"))
		db.Write(&b)
		db.Put([]byte("c"), bytes.Repeat([]byte{7}, 100))
		name := db.log.f.(osFile).Name()
		db.Close()
		good, _ = os.ReadFile(name)
	}
	f.Add(good)
	f.Add(good[:len(good)-3])
	f.Add([]byte{})
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0, 1})
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)/2] ^= 1
	f.Add(flipped)
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		db, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		logPath := db.log.f.(osFile).Name()
		db.Close()
		if err := os.WriteFile(logPath, data, 0o644); err != nil {
			t.Fatal(err)
		}
		db, err = Open(dir)
		if errors.Is(err, ErrDamaged) {
			info, rerr := Repair(dir)
			if rerr != nil {
				t.Fatalf("repair after %v: %v", err, rerr)
			}
			kept, _ := os.ReadFile(logPath)
			side, _ := os.ReadFile(info.SideFile)
			if !bytes.Equal(append(kept, side...), data) {
				t.Fatalf("repair lost bytes: %d kept + %d aside, had %d", len(kept), len(side), len(data))
			}
			db, err = Open(dir)
		}
		if err != nil {
			t.Fatal(err)
		}
		n := countKeys(t, db)
		if db.Recover.CutBytes < 0 || db.Recover.CutBytes > int64(len(data)) {
			t.Fatalf("cut %d of %d bytes", db.Recover.CutBytes, len(data))
		}
		db.Close()
		db, err = Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if db.Recover.CutBytes != 0 || countKeys(t, db) != n {
			t.Fatalf("second open cut %d bytes and has %d keys, first had %d", db.Recover.CutBytes, countKeys(t, db), n)
		}
	})
}

// FuzzBlock decodes arbitrary table blocks: a block that fails its
// checksum is never decoded, and decoding one that passes (the fuzzer can
// forge a checksum) never panics: every lookup ends in an entry or an
// error.
func FuzzBlock(f *testing.F) {
	var bb blockBuilder
	bb.add(kindPut, []byte("a"), []byte("1"))
	bb.add(kindDel, []byte("b"), nil)
	bb.add(kindPut, []byte("c"), bytes.Repeat([]byte{9}, 40))
	good := bb.finish()
	f.Add(good, false)
	f.Add(good[:len(good)-blockTrailer], true)
	f.Add([]byte{0, 0, 0, 0}, true)
	f.Add([]byte{1, 0, 0, 0, 0, 0, 0, 0}, true)
	f.Fuzz(func(t *testing.T, data []byte, forge bool) {
		if forge {
			data = binary.LittleEndian.AppendUint32(append([]byte(nil), data...), crc32.Checksum(data, castagnoli))
		}
		content, ok := checkBlock(data)
		if !ok {
			return
		}
		blk, err := parseBlock(content)
		if err != nil {
			return
		}
		for i := range blk.n {
			blk.entry(i)
		}
		for _, k := range [][]byte{nil, []byte("a"), []byte("b"), []byte("zz")} {
			i, err := blk.search(k)
			if err == nil && (i < 0 || i > blk.n) {
				t.Fatalf("search %q = %d of %d", k, i, blk.n)
			}
		}
	})
}

// FuzzManifest decodes arbitrary manifests: no panic, and a manifest that
// decodes encodes to the same bytes.
func FuzzManifest(f *testing.F) {
	m := &manifest{nextFile: 9, logNum: 7}
	m.levels[0] = []tableMeta{{5, 100, []byte("a"), []byte("z")}}
	m.levels[2] = []tableMeta{{3, 1000, []byte(""), []byte("q")}}
	f.Add(m.encode())
	f.Add([]byte(manifestMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := decodeManifest(data)
		if err != nil {
			return
		}
		if !bytes.Equal(m.encode(), data) {
			t.Fatal("a decoded manifest encodes differently")
		}
	})
}
