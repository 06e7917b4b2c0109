package store

import "syscall"

func (f osFile) datasync() error { return syscall.Fdatasync(int(f.Fd())) }

// syncFileRangeWrite is SYNC_FILE_RANGE_WRITE: start the writeback of the
// range's dirty pages, wait for nothing.
const syncFileRangeWrite = 2

func (f osFile) writeback(off, n int64) {
	syscall.SyncFileRange(int(f.Fd()), off, n, syncFileRangeWrite)
}

func (f osFile) mmap(n int) ([]byte, error) {
	return syscall.Mmap(int(f.Fd()), 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_SHARED)
}

func (f osFile) munmap(b []byte) error { return syscall.Munmap(b) }
