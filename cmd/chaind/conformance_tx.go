package main

import (
	"flag"

	"github.com/chaind/chaind/internal/conformance"
	"github.com/chaind/chaind/internal/conformance/txtests"
)

func init() {
	runners["tx"] = func(dir string, args []string, r *conformance.Report) error {
		fs := flag.NewFlagSet("conformance tx", flag.ContinueOnError)
		fork := fs.String("fork", "Cancun", "fork whose rules apply (Frontier ... Cancun, Prague)")
		if err := conformance.ParseFlags(fs, args); err != nil {
			return err
		}
		return txtests.Run(dir, *fork, r)
	}
}
