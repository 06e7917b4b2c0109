package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"time"
)

// RepairInfo says what Repair did.
type RepairInfo struct {
	Log      string // the damaged log, if one was
	Offset   int64  // where its valid data now ends
	Moved    int64  // bytes moved from there into SideFile
	SideFile string // empty when no log was damaged
	Reason   string // why the valid data ended at Offset
	Batches  int    // log batches kept
	// LaterLogs are logs written after the damaged one, set aside whole
	// (renamed *.damaged): their batches may build on what was lost.
	LaterLogs []string
	// Tables are the tables that failed a check, set aside (renamed
	// *.damaged) and dropped from the manifest: their keys fall back to
	// older values, if a deeper table holds any.
	Tables []string
}

// Damaged reports whether Repair found and set aside anything.
func (r RepairInfo) Damaged() bool { return r.SideFile != "" || len(r.Tables) > 0 }

// Repair makes a damaged data directory openable again without destroying
// anything: in a log, every byte from the first bad record on is copied
// into a side file (and synced) before the log is cut there; a table that
// fails its checksums, and logs after a damaged one, are renamed aside.
// The store must not be open.
func Repair(dir string) (RepairInfo, error) {
	fs := osFS{}
	lock, err := lockDir(dir, true)
	if err != nil {
		return RepairInfo{}, err
	}
	defer lock.release()
	if legacy(fs, dir) {
		return repairLogs(fs, dir, []string{legacyLogName})
	}
	m, ok, err := readManifest(fs, dir)
	if err != nil {
		return RepairInfo{}, fmt.Errorf("%w (the manifest names the tables; it cannot be rebuilt from them)", err)
	}
	if !ok {
		return RepairInfo{}, fmt.Errorf("store: no store in %s", dir)
	}
	names, err := fs.list(dir)
	if err != nil {
		return RepairInfo{}, err
	}
	var logs []string
	for _, name := range names {
		if num, kind, ok := parseFileName(name); ok && kind == logSuffix && num >= m.logNum {
			logs = append(logs, name)
		}
	}
	sort.Strings(logs) // fixed-width numbers: name order is number order
	info, err := repairLogs(fs, dir, logs)
	if err != nil {
		return info, err
	}
	db := &DB{fs: fs, dir: dir, cache: newBlockCache(0), files: newTableFiles(fs, 1)}
	changed := false
	for lv := range m.levels {
		kept := m.levels[lv][:0]
		for _, tm := range m.levels[lv] {
			if verifyTable(db, tm) == nil {
				kept = append(kept, tm)
				continue
			}
			name := path(dir, tableName(tm.num))
			if err := fs.rename(name, name+".damaged"); err != nil {
				return info, err
			}
			info.Tables = append(info.Tables, name)
			changed = true
		}
		m.levels[lv] = kept
	}
	if changed {
		return info, writeManifest(fs, dir, m)
	}
	return info, nil
}

// verifyTable reads every block of a table, checking each.
func verifyTable(db *DB, tm tableMeta) error {
	t := db.newTable(tm)
	t.refs.Store(1)
	defer t.unref()
	if _, err := t.filterBlock(); err != nil {
		return err
	}
	it := t.iter(false)
	for it.seek(nil); it.valid(); it.next() {
	}
	return it.err()
}

// repairLogs checks logs in order; at the first damaged one it moves the
// damaged part aside, and sets every later log aside whole.
func repairLogs(fs vfs, dir string, logs []string) (RepairInfo, error) {
	var info RepairInfo
	for i, name := range logs {
		f, err := fs.open(path(dir, name), false, true)
		if err != nil {
			return info, err
		}
		res, err := scanLog(f, checkBatch)
		if err != nil {
			f.Close()
			return info, err
		}
		info.Batches += res.batches
		num, _, _ := parseFileName(name)
		if res.whole() {
			f.Close()
			if i == len(logs)-1 {
				return info, setTip(fs, dir, num, res.last)
			}
			continue
		}
		info.Log, info.Offset, info.Reason = path(dir, name), res.end, res.reason
		err = moveAside(fs, dir, name, f, res, &info)
		f.Close()
		if err != nil {
			return info, err
		}
		for _, later := range logs[i+1:] {
			p := path(dir, later)
			if err := fs.rename(p, p+".damaged"); err != nil {
				return info, err
			}
			info.LaterLogs = append(info.LaterLogs, p)
		}
		fs.syncDir(dir)
		return info, setTip(fs, dir, num, res.last)
	}
	return info, nil
}

// moveAside copies the log from the first bad record on into a side file,
// syncs it, and only then cuts the log.
func moveAside(fs vfs, dir, name string, f file, res scanResult, info *RepairInfo) error {
	side := path(dir, fmt.Sprintf("%s.damaged-at-%d", name, res.end))
	if _, err := os.Stat(side); err == nil {
		side += "." + time.Now().UTC().Format("20060102T150405")
	}
	out, err := os.OpenFile(side, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	n, err := io.Copy(out, io.NewSectionReader(f, res.end, res.total-res.end))
	if err == nil && n != res.total-res.end {
		err = io.ErrShortWrite
	}
	if err = errors.Join(err, out.Sync(), out.Close()); err != nil {
		os.Remove(side)
		return fmt.Errorf("store: saving the damaged part to %s: %w", side, err)
	}
	fs.syncDir(dir)
	if err := f.Truncate(res.end); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return err
	}
	info.Moved, info.SideFile = n, side
	return nil
}

// setTip points the tip at the last record of log num.
func setTip(fs vfs, dir string, num uint64, last int64) error {
	t, err := openTip(fs, dir)
	if err != nil {
		return err
	}
	if err := t.set(num, last); err != nil {
		t.close(false)
		return err
	}
	return t.close(true)
}
