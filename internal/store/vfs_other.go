//go:build !linux

package store

func (f osFile) datasync() error { return f.Sync() }
