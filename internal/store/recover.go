package store

import (
	"fmt"
)

// replay rebuilds the memtable from the logs the manifest still needs, in
// order. Damage in the last write of the last log is cut (a crash tore
// it); damage anywhere before it is refused.
func (db *DB) replay(logs []uint64) error {
	if len(logs) == 0 {
		if db.ro {
			db.cur.mem = newMemtable(0, db.opts.MemtableBytes)
			return nil
		}
		mem, err := db.newLog()
		if err != nil {
			return err
		}
		db.cur.mem = mem
		return db.openTip()
	}
	last := logs[len(logs)-1]
	mem := newMemtable(last, db.opts.MemtableBytes)
	var seq uint64
	apply := func(p []byte) error {
		if err := checkBatch(p); err != nil {
			return err
		}
		b := Batch{ops: p}
		return b.forEach(func(del bool, k, v []byte) {
			seq++
			mem.add(k, v, seq, del)
		})
	}
	tipNum, tipOff := readTip(db.fs, db.dir)
	for _, num := range logs {
		name := path(db.dir, logFileName(num))
		f, err := db.fs.open(name, false, !db.ro)
		if err != nil {
			return err
		}
		res, err := scanLog(f, apply)
		if err != nil {
			f.Close()
			return err
		}
		if !db.Recover.Migrated { // else Batches counts the old log's
			db.Recover.Batches += res.batches
		}
		if num != last {
			f.Close()
			if !res.whole() {
				return &DamageError{Path: name, Offset: res.end, Size: res.total, LastWrite: -2, Reason: res.reason}
			}
			continue
		}
		synced := int64(-1)
		if tipNum == num {
			synced = tipOff
		}
		if err := db.judgeTail(f, name, res, synced); err != nil {
			f.Close()
			return err
		}
		if db.ro {
			f.Close()
			continue
		}
		alloc, err := trimLogTail(f, res.end)
		if err != nil {
			f.Close()
			return err
		}
		db.log = &wal{num: num, f: f, size: res.end, last: res.last, alloc: alloc, ahead: walAhead(db.opts.MemtableBytes)}
		db.log.written.Store(res.end)
	}
	db.cur.mem = mem
	db.seq.Store(seq)
	if db.ro {
		return nil
	}
	if err := db.openTip(); err != nil {
		return err
	}
	return db.tip.set(db.log.num, db.log.last)
}

// trimLogTail cuts the zeros written ahead after end in a log about to be
// appended to, from the page after end's, and returns the file's size.
// Replay read them through the page cache, whose readahead keeps them in
// large folios, and every small record written into one would dirty, and
// a commit's sync write back, the whole folio; reserve writes them again
// a page at a time.
func trimLogTail(f file, end int64) (int64, error) {
	size, err := f.size()
	if err != nil {
		return 0, err
	}
	if keep := (end + walPage - 1) / walPage * walPage; size > keep {
		if err := f.Truncate(keep); err != nil {
			return 0, err
		}
		size = keep
	}
	return size, nil
}

func (db *DB) openTip() error {
	t, err := openTip(db.fs, db.dir)
	db.tip = t
	return err
}

// judgeTail decides what to do with the end of the last log: nothing when
// it is whole, cut it when only the last write is torn, refuse it when the
// damage lies before the last write or a valid record follows it.
func (db *DB) judgeTail(f file, name string, res scanResult, synced int64) error {
	if res.whole() && synced <= res.end {
		return nil
	}
	reason := res.reason
	if reason == "" {
		reason = fmt.Sprintf("the file ends at offset %d, before its last write began at offset %d", res.total, synced)
	}
	db.Recover.CutBytes = res.total - res.end
	db.Recover.Reason = reason
	if res.end < synced || res.followed {
		if db.ro {
			db.Recover.Committed = true
			return nil
		}
		return &DamageError{Path: name, Offset: res.end, Size: res.total, LastWrite: synced, Reason: reason}
	}
	if db.ro {
		return nil
	}
	if err := f.Truncate(res.end); err != nil {
		return err
	}
	return f.Sync()
}

// newLog starts a log with a fresh number and returns the memtable it
// feeds; db.mu is held (or the store is opening).
func (db *DB) newLog() (*memtable, error) {
	num := db.nextFile
	db.nextFile++
	log, err := db.createLog(num)
	if err != nil {
		return nil, err
	}
	db.log = log
	return newMemtable(num, db.opts.MemtableBytes), nil
}

// createLog creates log num, its name durable in the directory.
func (db *DB) createLog(num uint64) (*wal, error) {
	f, err := db.fs.open(path(db.dir, logFileName(num)), true, true)
	if err != nil {
		return nil, err
	}
	if err := db.fs.syncDir(db.dir); err != nil {
		f.Close()
		db.fs.remove(path(db.dir, logFileName(num)))
		return nil, err
	}
	return &wal{num: num, f: f, ahead: walAhead(db.opts.MemtableBytes)}, nil
}

// lockFS locks a directory of the operating system's file system; the
// crash tests' in-memory one has a single user.
func lockFS(fs vfs, dir string, exclusive bool) (*dirLock, error) {
	if _, ok := fs.(osFS); !ok {
		return nil, nil
	}
	return lockDir(dir, exclusive)
}
