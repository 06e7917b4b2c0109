//go:build !unix

package main

func syncAll() {}
