package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
)

// The tip file records where the last write began. Every write is fsync'd
// before the next one starts, so only the record written last can be torn
// by a crash; damage anywhere before it is damage to data that was durably
// committed, and guessing past it would silently drop blocks. The tip is
// written before the record it points to and is never larger than the
// synced data, so a crash at any moment leaves it pointing at or before the
// only record that may be torn.
const tipName = "data.tip"

// ErrDamaged is matched (with errors.Is) by the error Open returns when the
// log is damaged before its last write.
var ErrDamaged = errors.New("store: data file damaged")

// DamageError describes damage Open refuses to cut.
type DamageError struct {
	Path   string // the data file
	Offset int64  // where the first bad record starts
	Size   int64  // the file's size
	// LastWrite is where the last write began (-1 when not recorded);
	// damage before it is damage to durably committed data.
	LastWrite int64
	Reason    string
}

func (e *DamageError) Error() string {
	why := "a valid record follows the damaged one"
	if e.Offset < e.LastWrite {
		why = fmt.Sprintf("the last write began at offset %d", e.LastWrite)
	}
	return fmt.Sprintf("store: %s is damaged at offset %d of %d (%s); %s, so this is not a torn last write and cutting it would lose committed data; run `chaind repair --datadir %s` to move everything from offset %d aside into a side file",
		e.Path, e.Offset, e.Size, e.Reason, why, filepath.Dir(e.Path), e.Offset)
}

func (e *DamageError) Is(target error) bool { return target == ErrDamaged }

// tipFile keeps the tip file open for cheap rewrites.
type tipFile struct{ f *os.File }

func openTip(dir string) (*tipFile, error) {
	f, err := os.OpenFile(filepath.Join(dir, tipName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	return &tipFile{f: f}, nil
}

// readTip returns the recorded start of the last write, or -1 when there is
// no usable record (a directory from before the tip file, or a torn tip).
func readTip(dir string) int64 {
	b, err := os.ReadFile(filepath.Join(dir, tipName))
	if err != nil || len(b) != 12 {
		return -1
	}
	if crc32.Checksum(b[:8], castagnoli) != binary.LittleEndian.Uint32(b[8:]) {
		return -1
	}
	v := binary.LittleEndian.Uint64(b[:8])
	if v > 1<<62 {
		return -1
	}
	return int64(v)
}

// set records off. It is not fsync'd here: the page cache survives a
// killed process, and after a power loss a stale tip is only smaller,
// which weakens the check to the record-following test but never makes
// Open refuse good data.
func (t *tipFile) set(off int64) error {
	if t == nil {
		return nil
	}
	var b [12]byte
	binary.LittleEndian.PutUint64(b[:8], uint64(off))
	binary.LittleEndian.PutUint32(b[8:], crc32.Checksum(b[:8], castagnoli))
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
