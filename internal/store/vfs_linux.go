package store

import "syscall"

func (f osFile) datasync() error { return syscall.Fdatasync(int(f.Fd())) }
