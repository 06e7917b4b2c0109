package store

import (
	"sync"
	"sync/atomic"
)

// tableFiles bounds how many table files the store holds open: at 20 GB
// there are thousands of tables, and a descriptor for each would eat the
// budget the node reserved for the store (see internal/node's fdReserve).
// A file is pinned only for the length of one read, never across the
// life of an iterator (blocks, once read, are in memory), and no reader
// pins two at once, so waiting for a pinned file to be let go when all
// allowed are pinned cannot deadlock, and the bound is never exceeded.
//
// Pinning an open file takes no lock: a count on the file, raised with a
// compare-and-swap unless the file is being closed. Every block a read
// misses in the cache is one pin, and when pins took the lock the
// readers of a 10M-account node waited 4.6 s per 30 s on it. The lock
// serialises only opening, closing and choosing which idle file to close
// (second chance: a file pinned since the last look is spared once).
type tableFiles struct {
	fs      vfs
	max     int
	waiting atomic.Int32 // pinners waiting for a file to close; unpins wake them
	mu      sync.Mutex
	free    sync.Cond // a pin was let go or a file closed
	open    []*table  // the tables with an open file
	hand    int       // where the search for a file to close resumes in open
}

func newTableFiles(fs vfs, max int) *tableFiles {
	c := &tableFiles{fs: fs, max: max}
	c.free.L = &c.mu
	return c
}

// tableFile is a table's open file.
type tableFile struct {
	f file
	// pins counts the reads using f; -1 once f is closed (or closing),
	// when no pin may be taken.
	pins atomic.Int32
	used atomic.Bool // pinned since the closer last looked
	slot int         // in tableFiles.open; guarded by tableFiles.mu
}

// tryPin pins h unless it is closed.
func (h *tableFile) tryPin() bool {
	for {
		n := h.pins.Load()
		if n < 0 {
			return false
		}
		if h.pins.CompareAndSwap(n, n+1) {
			if !h.used.Load() {
				h.used.Store(true)
			}
			return true
		}
	}
}

// pin returns t's file, opened if need be, held open until unpin.
func (c *tableFiles) pin(t *table) (*tableFile, error) {
	if h := t.fh.Load(); h != nil && h.tryPin() {
		return h, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		// A file is closed and let go only under c.mu: one still set
		// here is open.
		if h := t.fh.Load(); h != nil && h.tryPin() {
			return h, nil
		}
		if len(c.open) < c.max {
			break
		}
		c.waiting.Add(1)
		if !c.closeIdleLocked() {
			c.free.Wait()
		}
		c.waiting.Add(-1)
	}
	// Opened under the lock: an open is a few microseconds, and a second
	// reader of the same table must not open it again meanwhile.
	f, err := c.fs.open(path(t.db.dir, tableName(t.num)), false, false)
	if err != nil {
		return nil, err
	}
	h := &tableFile{f: f, slot: len(c.open)}
	h.pins.Store(1)
	h.used.Store(true)
	c.open = append(c.open, t)
	t.fh.Store(h)
	return h, nil
}

// unpin lets go of a pin pin returned; the file stays open, idle, until
// another table needs its place.
func (c *tableFiles) unpin(h *tableFile) {
	if h.pins.Add(-1) == 0 && c.waiting.Load() > 0 {
		c.mu.Lock()
		c.free.Broadcast()
		c.mu.Unlock()
	}
}

// closeIdleLocked closes one unpinned file, sparing once each one pinned
// since it was last looked at; false when every file is pinned. c.mu is
// held.
func (c *tableFiles) closeIdleLocked() bool {
	for i := range 3 * len(c.open) {
		if c.hand >= len(c.open) {
			c.hand = 0
		}
		t := c.open[c.hand]
		h := t.fh.Load()
		// The last round closes any idle file, used or not.
		if i < 2*len(c.open) && h.used.Load() {
			h.used.Store(false)
			c.hand++
			continue
		}
		if h.pins.CompareAndSwap(0, -1) {
			c.closeLocked(t, h)
			return true
		}
		c.hand++
	}
	return false
}

// drop closes t's file, if open, once no version lists t any more; no
// reader can hold a pin then, since a reader holds a version.
func (c *tableFiles) drop(t *table) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h := t.fh.Load(); h != nil {
		if !h.pins.CompareAndSwap(0, -1) {
			panic("store: closing a table file in use")
		}
		c.closeLocked(t, h)
	}
}

// closeLocked closes t's file h, which no pin holds (its count is -1);
// c.mu is held.
func (c *tableFiles) closeLocked(t *table, h *tableFile) {
	h.f.Close()
	last := c.open[len(c.open)-1]
	c.open[h.slot] = last
	last.fh.Load().slot = h.slot // h itself when t is the last
	t.fh.Store(nil)
	c.open[len(c.open)-1] = nil
	c.open = c.open[:len(c.open)-1]
	c.free.Broadcast()
}
