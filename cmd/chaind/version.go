package main

import (
	"flag"
	"fmt"
)

func init() {
	register(command{"version", "print the version", func(args []string) int {
		fs := flag.NewFlagSet("chaind version", flag.ContinueOnError)
		if code, ok := parseFlags(fs, "chaind version", args); !ok {
			return code
		}
		if fs.NArg() > 0 {
			return usageError("chaind version", fmt.Sprintf("unexpected argument %q", fs.Arg(0)))
		}
		fmt.Println(clientVersion())
		return 0
	}})
}
