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

// tipFile keeps the tip file open for cheap rewrites.
type tipFile struct{ f file }

func openTip(fs vfs, dir string) (*tipFile, error) {
	f, err := fs.open(path(dir, tipName), true, true)
	if err != nil {
		return nil, err
	}
	return &tipFile{f: f}, nil
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
	var b [20]byte
	binary.LittleEndian.PutUint64(b[:8], num)
	binary.LittleEndian.PutUint64(b[8:16], uint64(off))
	binary.LittleEndian.PutUint32(b[16:], crc32.Checksum(b[:16], castagnoli))
	_, err := t.f.WriteAt(b[:], 0)
	return err
}

func (t *tipFile) close(sync bool) error {
	if t == nil {
		return nil
	}
	if sync {
		if err := t.f.Sync(); err != nil {
			t.f.Close()
			return err
		}
	}
	return t.f.Close()
}
