//go:build unix

package store

import (
	"errors"
	"syscall"
)

// flock takes an advisory lock on f without waiting: exclusive for a
// writer, shared for a reader. The kernel drops it when the process dies,
// so a crashed node never leaves a stale lock behind.
func flock(fd uintptr, exclusive bool) error {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	err := syscall.Flock(int(fd), how|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return errLocked
	}
	return err
}
