package main

import (
	"flag"
	"io"

	"github.com/chaind/chaind/internal/conformance"
	"github.com/chaind/chaind/internal/conformance/rlptests"
)

func init() {
	runners["rlp"] = func(dir string, args []string, r *conformance.Report) error {
		fs := flag.NewFlagSet("conformance rlp", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		if err := fs.Parse(args); err != nil {
			return err
		}
		return rlptests.Run(dir, r)
	}
}
