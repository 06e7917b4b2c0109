package bft

import (
	"errors"
	"syscall"
)

// ErrTransient marks an error that goes away by itself (a full queue, a
// resource held by someone else for a while): an App or StateStore wraps
// it so that the driver's supervisor retries rather than gives up.
var ErrTransient = errors.New("bft: transient")

// transientErrnos are the system errors a validator recovers from without
// a restart: descriptors run out when clients hold too many connections
// and come back when they go; a full disk or quota is freed by the
// operator; memory and "try again" pass. Anything else (EIO, a bad state
// file, a double-sign refusal) means the process can no longer trust what
// it holds, and only a restart from disk is safe.
var transientErrnos = []syscall.Errno{
	syscall.EMFILE, syscall.ENFILE, // too many open files (process, system)
	syscall.ENOSPC, syscall.EDQUOT, // disk full, quota exceeded
	syscall.ENOMEM, syscall.ENOBUFS, // memory for the kernel's buffers
	syscall.EAGAIN, syscall.EINTR,
}

// Transient reports whether err, which stopped a driver, is worth
// retrying in the same process: the driver is rebuilt from its state
// store and the chain, exactly as after a crash, once the resource is
// back. A false answer means the error is permanent: the process should
// exit so that a supervisor restarts it from disk.
func Transient(err error) bool {
	if err == nil || errors.Is(err, ErrWouldDoubleSign) || errors.Is(err, ErrStateAhead) {
		return false
	}
	if errors.Is(err, ErrTransient) {
		return true
	}
	for _, e := range transientErrnos {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}
