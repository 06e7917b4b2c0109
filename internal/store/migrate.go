package store

import (
	"errors"
	"fmt"
	"sort"
)

// Before the sorted tables the store was one append-only log, data.log,
// framed exactly as a write-ahead log, with an in-memory index of every key
// built by replaying it at each open. Migration replays it once, in order,
// into a new store built beside it, then moves that store's files in; the
// manifest, moved last, is the commit point. This replay is the only
// reader of the old format left.

const (
	legacyLogName = "data.log"
	migrateDir    = "migrate.tmp"
)

// ErrNeedsMigration is returned by OpenReadOnly for a data directory of the
// single-log format: a writable Open (or Migrate) converts it.
var ErrNeedsMigration = errors.New("store: the data directory is in the single-log format; a writable open (or `chaind migrate`) converts it")

// legacy reports whether dir holds a single-log store not yet converted.
func legacy(fs vfs, dir string) bool {
	f, err := fs.open(path(dir, legacyLogName), false, false)
	if err != nil {
		return false
	}
	f.Close()
	if m, err := fs.open(path(dir, manifestName), false, false); err == nil {
		m.Close()
		return false
	}
	return true
}

// Migrate converts a data directory of the single-log format in place and
// says what it found; a directory already converted is left as it is.
func Migrate(dir string) (RecoverInfo, error) {
	db, err := Open(dir)
	if err != nil {
		return RecoverInfo{}, err
	}
	info := db.Recover
	return info, db.Close()
}

// migrate converts the single-log store in db.dir and returns the new
// manifest. A crash at any point before the manifest is moved in leaves the
// old log untouched, and the next open starts over.
func (db *DB) migrate() (*manifest, error) {
	tmp := path(db.dir, migrateDir)
	if err := db.clearStrays(tmp); err != nil {
		return nil, err
	}
	src, err := db.fs.open(path(db.dir, legacyLogName), false, false)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	o := db.opts
	o.NoSync, o.CacheMiB = true, 8
	dst, err := OpenWith(tmp, o)
	if err != nil {
		return nil, err
	}
	var werr error
	res, err := scanLog(src, func(p []byte) error {
		if err := checkBatch(p); err != nil {
			return err
		}
		b := Batch{ops: p, n: 1}
		if werr = dst.Write(&b); werr != nil {
			return werr
		}
		return nil
	})
	if err == nil {
		err = werr
	}
	if err == nil {
		db.Recover.Batches = res.batches
		_, synced := readTip(db.fs, db.dir)
		ro := db.ro
		db.ro = true // judge the tail without cutting: the old log is left whole
		err = db.judgeTail(src, path(db.dir, legacyLogName), res, synced)
		db.ro = ro
		if err == nil && db.Recover.Committed {
			err = &DamageError{Path: path(db.dir, legacyLogName), Offset: res.end, Size: res.total, LastWrite: synced, Reason: db.Recover.Reason}
		}
	}
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		db.fs.removeAll(tmp)
		return nil, fmt.Errorf("store: converting %s: %w", db.dir, err)
	}
	if err := db.moveIn(tmp); err != nil {
		return nil, fmt.Errorf("store: converting %s: %w", db.dir, err)
	}
	db.Recover.Migrated = true
	m, _, err := readManifest(db.fs, db.dir)
	return m, err
}

// clearStrays removes what an interrupted migration left: numbered files
// (no manifest names them yet) and the temporary store.
func (db *DB) clearStrays(tmp string) error {
	if err := db.fs.removeAll(tmp); err != nil {
		return err
	}
	names, err := db.fs.list(db.dir)
	if err != nil {
		return err
	}
	for _, name := range names {
		if _, _, ok := parseFileName(name); ok {
			if err := db.fs.remove(path(db.dir, name)); err != nil {
				return err
			}
		}
	}
	return nil
}

// moveIn moves the converted store's files into db.dir, the manifest last,
// then removes the old log.
func (db *DB) moveIn(tmp string) error {
	names, err := db.fs.list(tmp)
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, name := range names {
		if _, _, ok := parseFileName(name); ok {
			if err := db.fs.rename(path(tmp, name), path(db.dir, name)); err != nil {
				return err
			}
		}
	}
	if err := db.fs.syncDir(db.dir); err != nil {
		return err
	}
	if err := db.fs.rename(path(tmp, manifestName), path(db.dir, manifestName)); err != nil {
		return err
	}
	if err := db.fs.syncDir(db.dir); err != nil {
		return err
	}
	// Converted: from here the old log and tip are leftovers.
	db.fs.rename(path(tmp, tipName), path(db.dir, tipName))
	db.fs.remove(path(db.dir, legacyLogName))
	db.fs.removeAll(tmp)
	return db.fs.syncDir(db.dir)
}
