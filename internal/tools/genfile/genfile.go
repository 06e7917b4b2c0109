// Package genfile is what every code generator of the module does with
// its output: gofmt it, then write it, or with -check only report whether
// the file on disk is already exactly that (internal/archtest runs every
// go:generate directive with -check, so a stale or hand-edited generated
// file fails the tests).
package genfile

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"os"
)

var check = flag.Bool("check", false, "only report whether the generated file is up to date")

// Emit formats src and writes it to path, or with -check compares it with
// path. It exits the program with a message on any error or difference.
func Emit(generator, path string, src []byte) {
	if !flag.Parsed() {
		flag.Parse()
	}
	out, err := format.Source(src)
	if err != nil {
		fail(generator, err)
	}
	EmitRaw(generator, path, out)
}

// EmitRaw is Emit for files gofmt does not read (assembly): it writes src
// as it is, or with -check compares it with path.
func EmitRaw(generator, path string, out []byte) {
	if !flag.Parsed() {
		flag.Parse()
	}
	if *check {
		have, err := os.ReadFile(path)
		if err != nil {
			fail(generator, err)
		}
		if !bytes.Equal(have, out) {
			fail(generator, fmt.Errorf("%s is not what %s writes: run go generate", path, generator))
		}
		return
	}
	if err := os.WriteFile(path, out, 0o644); err != nil {
		fail(generator, err)
	}
}

func fail(generator string, err error) {
	fmt.Fprintf(os.Stderr, "%s: %v\n", generator, err)
	os.Exit(1)
}
