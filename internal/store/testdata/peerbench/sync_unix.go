//go:build unix

package main

import "syscall"

// syncAll writes every dirty page of the machine back to disk.
func syncAll() { syscall.Sync() }
