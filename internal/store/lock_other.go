//go:build !unix

package store

import "errors"

// flock is unavailable here: refuse to open rather than run without the
// guarantee that one process owns the data directory.
func flock(fd uintptr, exclusive bool) error {
	return errors.New("store: locking a data directory is not supported on this platform")
}
