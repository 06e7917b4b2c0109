package store

import (
	"errors"
	"io"
	iofs "io/fs"
	"math/rand"
	"sort"
	"strings"
	"sync"
	"syscall"
)

// memFS is an in-memory file system that crashes on command: after budget
// mutating operations (writes, truncations, creations, renames, removals)
// the next one is torn (a write lands partly) and every operation after
// it fails, as if the process had been killed. restart then gives the
// files as a new process would find them: what was written stays, as the
// page cache keeps it across a kill -9.
type memFS struct {
	mu     sync.Mutex
	files  map[string]*memData
	budget int // mutating operations left; negative: no crash planned
	dead   bool
	full   bool // writes that need space fail with ENOSPC
	rng    *rand.Rand
	// onSync, when set, runs in every datasync (a slow disk's fsync).
	onSync func()
}

type memData struct{ b []byte }

var errCrashed = errors.New("memfs: crashed")

func newMemFS(seed int64) *memFS {
	return &memFS{files: map[string]*memData{}, budget: -1, rng: rand.New(rand.NewSource(seed))}
}

// restart returns the files as the next process finds them.
func (fs *memFS) restart() *memFS {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	n := newMemFS(fs.rng.Int63())
	for k, d := range fs.files {
		n.files[k] = &memData{b: append([]byte(nil), d.b...)}
	}
	return n
}

// crashIn plans a crash at the n-th mutating operation from now.
func (fs *memFS) crashIn(n int) {
	fs.mu.Lock()
	fs.budget = n
	fs.mu.Unlock()
}

func (fs *memFS) setFull(full bool) {
	fs.mu.Lock()
	fs.full = full
	fs.mu.Unlock()
}

func (fs *memFS) isDead() bool {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	return fs.dead
}

// mutate accounts for one mutating operation: torn is set when it is the
// one the crash lands in.
func (fs *memFS) mutate() (torn bool, err error) {
	if fs.dead {
		return false, errCrashed
	}
	if fs.budget < 0 {
		return false, nil
	}
	if fs.budget == 0 {
		fs.dead = true
		return true, errCrashed
	}
	fs.budget--
	return false, nil
}

func (fs *memFS) open(name string, create, write bool) (file, error) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.dead {
		return nil, errCrashed
	}
	d, ok := fs.files[name]
	if !ok {
		if !create {
			return nil, &notExist{name}
		}
		if _, err := fs.mutate(); err != nil {
			return nil, err
		}
		if fs.full {
			return nil, syscall.ENOSPC
		}
		d = &memData{}
		fs.files[name] = d
	}
	return &memFile{fs: fs, d: d}, nil
}

type notExist struct{ name string }

func (e *notExist) Error() string { return e.name + ": file does not exist" }
func (e *notExist) Unwrap() error { return errNotExist }

func (fs *memFS) remove(name string) error {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if _, err := fs.mutate(); err != nil {
		return err
	}
	if _, ok := fs.files[name]; !ok {
		return &notExist{name}
	}
	delete(fs.files, name)
	return nil
}

func (fs *memFS) rename(from, to string) error {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if _, err := fs.mutate(); err != nil {
		return err
	}
	d, ok := fs.files[from]
	if !ok {
		return &notExist{from}
	}
	delete(fs.files, from)
	fs.files[to] = d
	return nil
}

func (fs *memFS) list(dir string) ([]string, error) {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.dead {
		return nil, errCrashed
	}
	var out []string
	for k := range fs.files {
		if rest, ok := strings.CutPrefix(k, dir+"/"); ok && !strings.Contains(rest, "/") {
			out = append(out, rest)
		}
	}
	sort.Strings(out)
	return out, nil
}

func (fs *memFS) syncDir(string) error  { return fs.alive() }
func (fs *memFS) mkdirAll(string) error { return fs.alive() }

func (fs *memFS) removeAll(dir string) error {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for k := range fs.files {
		if strings.HasPrefix(k, dir+"/") {
			if _, err := fs.mutate(); err != nil {
				return err
			}
			delete(fs.files, k)
		}
	}
	return nil
}

func (fs *memFS) alive() error {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	if fs.dead {
		return errCrashed
	}
	return nil
}

type memFile struct {
	fs *memFS
	d  *memData
}

func (f *memFile) ReadAt(p []byte, off int64) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.fs.dead {
		return 0, errCrashed
	}
	if off >= int64(len(f.d.b)) {
		return 0, errEOF
	}
	n := copy(p, f.d.b[off:])
	if n < len(p) {
		return n, errEOF
	}
	return n, nil
}

func (f *memFile) WriteAt(p []byte, off int64) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	torn, err := f.fs.mutate()
	if err == nil && f.fs.full {
		return 0, syscall.ENOSPC
	}
	if torn {
		p = p[:f.fs.rng.Intn(len(p)+1)]
	} else if err != nil {
		return 0, err
	}
	if end := off + int64(len(p)); end > int64(len(f.d.b)) {
		f.d.b = append(f.d.b, make([]byte, end-int64(len(f.d.b)))...)
	}
	copy(f.d.b[off:], p)
	if err != nil {
		return len(p), err
	}
	return len(p), nil
}

func (f *memFile) Truncate(n int64) error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if _, err := f.fs.mutate(); err != nil {
		return err
	}
	if n < int64(len(f.d.b)) {
		f.d.b = f.d.b[:n]
	} else {
		f.d.b = append(f.d.b, make([]byte, n-int64(len(f.d.b)))...)
	}
	return nil
}

func (f *memFile) Sync() error { return f.fs.alive() }
func (f *memFile) datasync() error {
	f.fs.mu.Lock()
	hook := f.fs.onSync
	f.fs.mu.Unlock()
	if hook != nil {
		hook()
	}
	return f.fs.alive()
}
func (f *memFile) Close() error           { return nil }
func (f *memFile) writeback(off, n int64) {}
func (f *memFile) size() (int64, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.fs.dead {
		return 0, errCrashed
	}
	return int64(len(f.d.b)), nil
}

var (
	errNotExist = iofs.ErrNotExist
	errEOF      = io.EOF
)
