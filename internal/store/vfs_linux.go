package store

import "syscall"

func (f osFile) datasync() error { return syscall.Fdatasync(int(f.Fd())) }

// syncFileRangeWrite is SYNC_FILE_RANGE_WRITE: start the writeback of the
// range's dirty pages, wait for nothing.
const syncFileRangeWrite = 2

func (f osFile) writeback(off, n int64) {
	syscall.SyncFileRange(int(f.Fd()), off, n, syncFileRangeWrite)
}
