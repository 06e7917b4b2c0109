package store

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// RepairInfo says what Repair did.
type RepairInfo struct {
	Offset   int64  // where the valid data now ends
	Moved    int64  // bytes moved from there into SideFile
	SideFile string // empty when nothing was damaged
	Reason   string // why the valid data ended at Offset
	Batches  int    // batches kept
}

// Repair makes a damaged data directory openable again without destroying
// anything: every byte from the first bad record on is copied into a side
// file next to the log (and synced) before the log is cut there. The store
// must not be open.
func Repair(dir string) (RepairInfo, error) {
	lock, err := lockDir(dir, true)
	if err != nil {
		return RepairInfo{}, err
	}
	defer lock.release()
	f, err := os.OpenFile(filepath.Join(dir, logName), os.O_RDWR, 0)
	if err != nil {
		return RepairInfo{}, err
	}
	defer f.Close()
	// Validate batches as Open would, without building an index.
	res, err := scan(f, func(p []byte, _ int64) error {
		b := Batch{ops: p}
		return b.forEach(func(bool, []byte, []byte) {})
	})
	if err != nil {
		return RepairInfo{}, err
	}
	info := RepairInfo{Offset: res.end, Reason: res.reason, Batches: res.batches}
	tip, err := openTip(dir)
	if err != nil {
		return info, err
	}
	defer tip.close(true)
	if res.end == res.total {
		return info, tip.set(res.last)
	}
	side := filepath.Join(dir, fmt.Sprintf("%s.damaged-at-%d", logName, res.end))
	if _, err := os.Stat(side); err == nil {
		side += "." + time.Now().UTC().Format("20060102T150405")
	}
	out, err := os.OpenFile(side, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return info, err
	}
	n, err := io.Copy(out, io.NewSectionReader(f, res.end, res.total-res.end))
	if err == nil && n != res.total-res.end {
		err = io.ErrShortWrite
	}
	if err = errors.Join(err, out.Sync(), out.Close()); err != nil {
		os.Remove(side)
		return info, fmt.Errorf("store: saving the damaged part to %s: %w", side, err)
	}
	syncDir(dir)
	// Only now that the bytes are safe elsewhere is the log cut.
	if err := f.Truncate(res.end); err != nil {
		return info, err
	}
	if err := f.Sync(); err != nil {
		return info, err
	}
	info.Moved, info.SideFile = n, side
	return info, tip.set(res.last)
}

func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		d.Sync()
		d.Close()
	}
}
