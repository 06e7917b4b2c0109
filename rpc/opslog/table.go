package opslog

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sync"
)

// table is one capture table: rows in memory, oldest first, mirrored to
// a JSON-lines file when it has one. Its encoded size is bounded: past
// maxBytes the oldest rows are dropped (down to three quarters of the
// bound, so the file is not rewritten on every row) and the file is
// rewritten from what is kept.
type table[R any] struct {
	mu       sync.Mutex
	rows     []R
	sizes    []int
	bytes    int64
	nextID   int64
	maxBytes int64
	path     string // "" keeps the table in memory only
	f        *os.File
	setID    func(*R, int64)
	getID    func(*R) int64
}

// openTable loads path (skipping a torn last line) and opens it for
// appending.
func openTable[R any](path string, maxBytes int64, setID func(*R, int64), getID func(*R) int64) (*table[R], error) {
	t := &table[R]{maxBytes: maxBytes, path: path, setID: setID, getID: getID, nextID: 1}
	if path == "" {
		return t, nil
	}
	if b, err := os.ReadFile(path); err == nil {
		sc := bufio.NewScanner(bytes.NewReader(b))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var r R
			if json.Unmarshal(sc.Bytes(), &r) != nil {
				continue // a line torn by a crash
			}
			t.rows = append(t.rows, r)
			t.sizes = append(t.sizes, len(sc.Bytes())+1)
			t.bytes += int64(len(sc.Bytes()) + 1)
			t.nextID = max(t.nextID, getID(&r)+1)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	t.trim()
	if err := t.rewrite(); err != nil {
		return nil, err
	}
	return t, nil
}

// add numbers r and appends it.
func (t *table[R]) add(r R) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.setID(&r, t.nextID)
	t.nextID++
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	line = append(line, '\n')
	t.rows = append(t.rows, r)
	t.sizes = append(t.sizes, len(line))
	t.bytes += int64(len(line))
	if t.trim() {
		return t.rewrite()
	}
	if t.f != nil {
		_, err = t.f.Write(line)
	}
	return err
}

// trim drops the oldest rows when over the bound and reports whether it
// did. t.mu must be held (or t not yet shared).
func (t *table[R]) trim() bool {
	if t.bytes <= t.maxBytes {
		return false
	}
	n := 0
	for t.bytes > t.maxBytes*3/4 && n < len(t.rows) {
		t.bytes -= int64(t.sizes[n])
		n++
	}
	t.rows = append([]R(nil), t.rows[n:]...)
	t.sizes = append([]int(nil), t.sizes[n:]...)
	return true
}

// rewrite replaces the file with the rows kept, atomically.
func (t *table[R]) rewrite() error {
	if t.path == "" {
		return nil
	}
	if t.f != nil {
		t.f.Close()
		t.f = nil
	}
	tmp := t.path + ".tmp"
	f, err := os.Create(tmp)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for i := range t.rows {
		if err := enc.Encode(&t.rows[i]); err != nil {
			f.Close()
			return err
		}
	}
	if err := errors.Join(w.Flush(), f.Close()); err != nil {
		return err
	}
	if err := os.Rename(tmp, t.path); err != nil {
		return err
	}
	t.f, err = os.OpenFile(t.path, os.O_WRONLY|os.O_APPEND, 0o600)
	return err
}

// clean empties the table; ids keep counting up.
func (t *table[R]) clean() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.rows, t.sizes, t.bytes = nil, nil, 0
	return t.rewrite()
}

// page returns the rows matching keep, skipping the first skip matches and
// returning at most n, in id order.
func (t *table[R]) page(keep func(*R) bool, skip, n int) []R {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := []R{}
	for i := range t.rows {
		if !keep(&t.rows[i]) {
			continue
		}
		if skip > 0 {
			skip--
			continue
		}
		if len(out) == n {
			break
		}
		out = append(out, t.rows[i])
	}
	return out
}

// each calls fn on every row matching keep, in id order, under the
// table's lock (fn must not call back into the table).
func (t *table[R]) each(keep func(*R) bool, fn func(*R)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for i := range t.rows {
		if keep(&t.rows[i]) {
			fn(&t.rows[i])
		}
	}
}

func (t *table[R]) close() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f == nil {
		return nil
	}
	err := t.f.Close()
	t.f = nil
	return err
}

// tablePath is where a table of the capture directory lives ("" without
// one).
func tablePath(dir, name string) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, name)
}
