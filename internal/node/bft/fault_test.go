package bft

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
	"testing"
)

func TestTransient(t *testing.T) {
	pathErr := func(errno syscall.Errno) error {
		return &fs.PathError{Op: "open", Path: "consensus.state.tmp", Err: errno}
	}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"EMFILE opening the state file", fmt.Errorf("bft: persisting state: %w", pathErr(syscall.EMFILE)), true},
		{"ENFILE", pathErr(syscall.ENFILE), true},
		{"ENOSPC writing a block", fmt.Errorf("bft: commit of height 7: %w", &os.SyscallError{Syscall: "write", Err: syscall.ENOSPC}), true},
		{"EDQUOT", pathErr(syscall.EDQUOT), true},
		{"a full queue", fmt.Errorf("relay: %w", ErrTransient), true},
		{"EIO", pathErr(syscall.EIO), false},
		{"read-only file system", pathErr(syscall.EROFS), false},
		{"double sign", fmt.Errorf("%w: prevote at 3/0", ErrWouldDoubleSign), false},
		{"double sign even with an errno inside", errors.Join(ErrWouldDoubleSign, syscall.EMFILE), false},
		{"state ahead", ErrStateAhead, false},
		{"transport closed", ErrTransportClosed, false},
		{"anything else", errors.New("bad block"), false},
		{"nil", nil, false},
	} {
		if got := Transient(tc.err); got != tc.want {
			t.Errorf("%s: Transient(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}
