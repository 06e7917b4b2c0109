package main

import (
	"fmt"
	"runtime"
)

func init() {
	register(command{"version", "print the version", func([]string) int {
		fmt.Printf("chaind/v%s/%s-%s/%s\n", version, runtime.GOOS, runtime.GOARCH, runtime.Version())
		return 0
	}})
}
