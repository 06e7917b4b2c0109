package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

const lockName = "LOCK"

var errLocked = errors.New("locked")

// ErrLocked is matched (with errors.Is) by the error Open returns when
// another process holds the data directory.
var ErrLocked = errors.New("store: data directory in use")

// LockedError says which directory is held and, when it could be read,
// by which process.
type LockedError struct {
	Dir string
	PID int // 0 when the holder did not record one
}

func (e *LockedError) Error() string {
	if e.PID > 0 {
		return fmt.Sprintf("store: data directory %s is in use by process %d (one process per data directory)", e.Dir, e.PID)
	}
	return fmt.Sprintf("store: data directory %s is in use by another process (one process per data directory)", e.Dir)
}

func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// dirLock holds the LOCK file of a data directory open and locked.
type dirLock struct{ f *os.File }

// lockDir locks dir: exclusively for a writer, which then records its PID
// in the file so a refused second process can name the holder; shared for
// a reader, which may sit beside other readers but never beside a writer.
func lockDir(dir string, exclusive bool) (*dirLock, error) {
	f, err := os.OpenFile(filepath.Join(dir, lockName), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	if err := flock(f.Fd(), exclusive); err != nil {
		defer f.Close()
		if errors.Is(err, errLocked) {
			le := &LockedError{Dir: dir}
			buf := make([]byte, 32)
			n, _ := f.ReadAt(buf, 0)
			le.PID, _ = strconv.Atoi(strings.TrimSpace(string(buf[:n])))
			return nil, le
		}
		return nil, fmt.Errorf("store: lock %s: %w", dir, err)
	}
	if exclusive {
		pid := []byte(strconv.Itoa(os.Getpid()) + "\n")
		if err := f.Truncate(0); err == nil {
			f.WriteAt(pid, 0)
		}
	}
	return &dirLock{f: f}, nil
}

// release drops the lock. The PID is left in the file: it is only read
// while the lock is held, so a stale one is harmless.
func (l *dirLock) release() error {
	if l == nil {
		return nil
	}
	return l.f.Close()
}
