package main

import (
	"flag"
	"fmt"
	"runtime"
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
		fmt.Printf("chaind/v%s/%s-%s/%s\n", version, runtime.GOOS, runtime.GOARCH, runtime.Version())
		return 0
	}})
}
