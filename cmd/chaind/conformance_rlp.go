package main

import (
	"flag"

	"github.com/chaind/chaind/internal/conformance"
	"github.com/chaind/chaind/internal/conformance/rlptests"
)

func init() {
	runners["rlp"] = func(dir string, args []string, r *conformance.Report) error {
		fs := flag.NewFlagSet("conformance rlp", flag.ContinueOnError)
		if err := conformance.ParseFlags(fs, args); err != nil {
			return err
		}
		return rlptests.Run(dir, r)
	}
}
