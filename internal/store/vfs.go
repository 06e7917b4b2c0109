package store

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// vfs is the file system the store works through: the operating system's
// in production, a fault-injecting one in the crash tests, so a crash can
// be placed between any two writes the store makes.
type vfs interface {
	// open opens name; create makes it if missing, write opens it for
	// writing too.
	open(name string, create, write bool) (file, error)
	remove(name string) error
	rename(from, to string) error
	list(dir string) ([]string, error)
	syncDir(dir string) error
	mkdirAll(dir string) error
	removeAll(dir string) error
}

// file is an open file of a vfs.
type file interface {
	ReadAt(p []byte, off int64) (int, error)
	WriteAt(p []byte, off int64) (int, error)
	Sync() error
	// datasync makes written data durable without the metadata a read
	// does not need (fdatasync where there is one).
	datasync() error
	// writeback starts writing n bytes from off to the disk without
	// waiting (sync_file_range where there is one, else nothing).
	writeback(off, n int64)
	Truncate(size int64) error
	Close() error
	size() (int64, error)
}

// osFS is the operating system's file system.
type osFS struct{}

type osFile struct{ *os.File }

func (f osFile) size() (int64, error) {
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

func (osFS) open(name string, create, write bool) (file, error) {
	flag := os.O_RDONLY
	if write {
		flag = os.O_RDWR
	}
	if create {
		flag |= os.O_CREATE
	}
	f, err := os.OpenFile(name, flag, 0o644)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

func (osFS) remove(name string) error     { return os.Remove(name) }
func (osFS) rename(from, to string) error { return os.Rename(from, to) }
func (osFS) mkdirAll(dir string) error    { return os.MkdirAll(dir, 0o755) }
func (osFS) removeAll(dir string) error   { return os.RemoveAll(dir) }
func (osFS) list(dir string) ([]string, error) {
	es, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(es))
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names, nil
}

// syncDir makes renames, creations and removals in dir durable.
func (osFS) syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	return joinClose(err, d)
}

func joinClose(err error, c interface{ Close() error }) error {
	if cerr := c.Close(); err == nil {
		err = cerr
	}
	return err
}

// path joins a directory and a file name.
func path(dir, name string) string { return filepath.Join(dir, name) }

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }
