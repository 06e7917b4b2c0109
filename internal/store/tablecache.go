package store

import (
	"container/list"
	"sync"
)

// tableFiles bounds how many table files the store holds open: at 20 GB
// there are thousands of tables, and a descriptor for each would eat the
// budget the node reserved for the store (see internal/node's fdReserve).
// A file is pinned only for the length of one read, never across the
// life of an iterator (blocks, once read, are in memory), and no reader
// pins two at once, so waiting for a pinned file to be let go when all
// allowed are pinned cannot deadlock, and the bound is never exceeded.
type tableFiles struct {
	fs   vfs
	max  int
	mu   sync.Mutex
	free sync.Cond // a pin was let go
	open int       // files open, pinned or idle
	idle list.List // of *table with an open, unpinned file; front is newest
}

func newTableFiles(fs vfs, max int) *tableFiles {
	c := &tableFiles{fs: fs, max: max}
	c.free.L = &c.mu
	return c
}

// tableFile is a table's open file and its pins; guarded by tableFiles.mu.
type tableFile struct {
	f    file
	pins int
	elem *list.Element // in idle when unpinned
}

// pin returns t's file, opened if need be, held open until unpin.
func (c *tableFiles) pin(t *table) (file, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		if h := t.fh; h != nil {
			if h.elem != nil {
				c.idle.Remove(h.elem)
				h.elem = nil
			}
			h.pins++
			return h.f, nil
		}
		if c.open < c.max {
			break
		}
		if e := c.idle.Back(); e != nil {
			c.closeLocked(e.Value.(*table))
			continue
		}
		c.free.Wait()
	}
	// Opened under the lock: an open is a few microseconds, and a second
	// reader of the same table must not open it again meanwhile.
	f, err := c.fs.open(path(t.db.dir, tableName(t.num)), false, false)
	if err != nil {
		return nil, err
	}
	c.open++
	t.fh = &tableFile{f: f, pins: 1}
	return f, nil
}

// unpin lets go of a file pin returned; the file stays open, idle, until
// it is the least recently used one and another table needs its place.
func (c *tableFiles) unpin(t *table) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h := t.fh
	if h.pins--; h.pins == 0 {
		h.elem = c.idle.PushFront(t)
		c.free.Broadcast()
	}
}

// drop closes t's file, if open, once no version lists t any more; no
// reader can hold a pin then, since a reader holds a version.
func (c *tableFiles) drop(t *table) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if t.fh != nil {
		c.closeLocked(t)
	}
}

// closeLocked closes t's unpinned file; c.mu is held.
func (c *tableFiles) closeLocked(t *table) {
	h := t.fh
	if h.pins != 0 {
		panic("store: closing a table file in use")
	}
	if h.elem != nil {
		c.idle.Remove(h.elem)
	}
	h.f.Close()
	t.fh = nil
	c.open--
	c.free.Broadcast()
}
