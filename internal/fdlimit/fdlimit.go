// Package fdlimit raises the process's open-file limit and divides it:
// descriptors reserved for the node's own needs (the store's files, p2p
// peers, logs) and a budget the client-facing listeners may use, so that
// clients can hold every connection they are allowed and still never
// leave consensus or the store without a descriptor.
package fdlimit

import "errors"

// ErrUnsupported is returned where the platform has no file limit to read
// or raise; callers then keep their own defaults.
var ErrUnsupported = errors.New("fdlimit: not supported on this platform")

// Raise lifts the soft open-file limit to the hard one (the most an
// unprivileged process may ask for) and returns the limit now in force.
// A shell's default soft limit (often 1024) is far below what a public
// node needs, while the hard limit is usually much higher.
func Raise() (int, error) { return raise() }

// Current is the soft open-file limit in force.
func Current() (int, error) { return current() }

// Budget is how many descriptors the client-facing listeners may hold
// together: the limit less reserve (the node's own descriptors), never
// less than min, so a small limit still leaves clients a few.
func Budget(limit, reserve, min int) int {
	return max(limit-reserve, min)
}

// Split divides a budget among n listeners, each getting an equal share
// and at least one.
func Split(budget, n int) int {
	if n <= 0 {
		return budget
	}
	return max(budget/n, 1)
}
