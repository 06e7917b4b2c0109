package store

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
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
		db.Close()
		good, _ = os.ReadFile(filepath.Join(dir, logName))
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
		if err := os.WriteFile(filepath.Join(dir, logName), data, 0o644); err != nil {
			t.Fatal(err)
		}
		db, err := Open(dir)
		if errors.Is(err, ErrDamaged) {
			info, rerr := Repair(dir)
			if rerr != nil {
				t.Fatalf("repair after %v: %v", err, rerr)
			}
			kept, _ := os.ReadFile(filepath.Join(dir, logName))
			side, _ := os.ReadFile(info.SideFile)
			if !bytes.Equal(append(kept, side...), data) {
				t.Fatalf("repair lost bytes: %d kept + %d aside, had %d", len(kept), len(side), len(data))
			}
			db, err = Open(dir)
		}
		if err != nil {
			t.Fatal(err)
		}
		n := db.Len()
		if db.Recover.CutBytes < 0 || db.Recover.CutBytes > int64(len(data)) {
			t.Fatalf("cut %d of %d bytes", db.Recover.CutBytes, len(data))
		}
		db.Close()
		db, err = Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if db.Recover.CutBytes != 0 || db.Len() != n {
			t.Fatalf("second open cut %d bytes and has %d keys, first had %d", db.Recover.CutBytes, db.Len(), n)
		}
	})
}
