package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"path/filepath"
)

// The tip file records where the last write began: which log and where in
// it. Every write is fsync'd before the next one starts, so only the record
// written last can be torn by a crash; damage anywhere before it is damage
// to data that was durably committed, and guessing past it would silently
// drop blocks. The tip is written before the record it points to and is
// never larger than the synced data, so a crash at any moment leaves it
// pointing at or before the only record that may be torn.
const tipName = "data.tip"

// ErrDamaged is matched (with errors.Is) by the error Open returns when a
// log is damaged before its last write, or a table or the manifest fails
// its checksum.
var ErrDamaged = errors.New("store: data file damaged")

// DamageError describes damage Open refuses to cut.
type DamageError struct {
	Path   string // the damaged file
	Offset int64  // where the first bad record starts
	Size   int64  // the file's size
	// LastWrite is where the last write began (-1 when not recorded or
	// in another file); damage before it is damage to committed data.
	LastWrite int64
	Reason    string
}

func (e *DamageError) Error() string {
	why := "a valid record follows the damaged one"
	switch {
	case e.Offset < e.LastWrite:
		why = fmt.Sprintf("the last write began at offset %d", e.LastWrite)
	case e.LastWrite == -2:
		why = "a later log follows it"
	}
	return fmt.Sprintf("store: %s is damaged at offset %d of %d (%s); %s, so this is not a torn last write and cutting it would lose committed data; run `chaind repair --datadir %s` to move everything from offset %d aside into a side file",
		e.Path, e.Offset, e.Size, e.Reason, why, filepath.Dir(e.Path), e.Offset)
}

func (e *DamageError) Is(target error) bool { return target == ErrDamaged }

// tipFile keeps the tip file open for cheap rewrites: mapped into memory
// where the file system allows it, so pointing the tip at a record is a
// store to memory, not a system call, and an unsynced write makes one
// system call (its record) and a synced one two (the record and an
// fdatasync). The mapping is the file's page cache, which a killed process
// leaves behind as it does what a write put there.
type tipFile struct {
	f file
	m []byte // the file mapped, or nil: set writes it
}

const tipSize = 20

// mapper is a file that can be mapped into memory, shared.
type mapper interface {
	mmap(n int) ([]byte, error)
	munmap(b []byte) error
}

func openTip(fs vfs, dir string) (*tipFile, error) {
	f, err := fs.open(path(dir, tipName), true, true)
	if err != nil {
		return nil, err
	}
	t := &tipFile{f: f}
	mf, ok := f.(mapper)
	if !ok {
		return t, nil
	}
	// A mapping reaches only as far as the file: a new (or a 12-byte
	// single-log) tip is given its full size first. It reads as no tip
	// until set, as it would anyway: the open has read it already.
	n, err := f.size()
	if err == nil && n != tipSize {
		err = f.Truncate(tipSize)
	}
	if err != nil {
		return t, nil // set writes it then, as without a mapping
	}
	if m, err := mf.mmap(tipSize); err == nil {
		t.m = m
	}
	return t, nil
}

// readTip returns the log number and the recorded start of the last write
// in it, or off -1 when there is no usable record (a torn tip, or a
// directory from before the tip file). A tip of the single-log format
// (12 bytes, no log number) is log 0, the legacy data.log.
func readTip(fs vfs, dir string) (num uint64, off int64) {
	f, err := fs.open(path(dir, tipName), false, false)
	if err != nil {
		return 0, -1
	}
	defer f.Close()
	var b [20]byte
	n, _ := f.ReadAt(b[:], 0)
	var v uint64
	switch n {
	case 12:
		if crc32.Checksum(b[:8], castagnoli) != binary.LittleEndian.Uint32(b[8:12]) {
			return 0, -1
		}
		v = binary.LittleEndian.Uint64(b[:8])
	case 20:
		if crc32.Checksum(b[:16], castagnoli) != binary.LittleEndian.Uint32(b[16:20]) {
			return 0, -1
		}
		num, v = binary.LittleEndian.Uint64(b[:8]), binary.LittleEndian.Uint64(b[8:16])
	default:
		return 0, -1
	}
	if v > 1<<62 {
		return 0, -1
	}
	return num, int64(v)
}

// set records where a write to log num begins. It is not fsync'd here:
// the page cache survives a killed process, and after a power loss a
// stale tip is only smaller, which weakens the check to the
// record-following test but never makes Open refuse good data.
func (t *tipFile) set(num uint64, off int64) error {
	if t == nil {
		return nil
	}
	var b [tipSize]byte
	binary.LittleEndian.PutUint64(b[:8], num)
	binary.LittleEndian.PutUint64(b[8:16], uint64(off))
	binary.LittleEndian.PutUint32(b[16:], crc32.Checksum(b[:16], castagnoli))
	if t.m != nil {
		copy(t.m, b[:])
		return nil
	}
	_, err := t.f.WriteAt(b[:], 0)
	return err
}

// close unmaps and closes the tip, syncing it first when sync is set
// (fsync writes the pages a mapping dirtied as it does written ones).
func (t *tipFile) close(sync bool) error {
	if t == nil {
		return nil
	}
	if t.m != nil {
		t.f.(mapper).munmap(t.m)
		t.m = nil
	}
	if sync {
		if err := t.f.Sync(); err != nil {
			t.f.Close()
			return err
		}
	}
	return t.f.Close()
}
