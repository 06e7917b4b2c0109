//go:build !linux

package store

func (f osFile) datasync() error { return f.Sync() }

func (f osFile) writeback(off, n int64) {}
