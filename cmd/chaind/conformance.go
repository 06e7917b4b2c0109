package main

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/chaind/chaind/internal/conformance"
)

// conformanceRunner runs the vectors of one kind found in dir. It receives
// the report to fill and the arguments that follow DIR.
type conformanceRunner func(dir string, args []string, r *conformance.Report) error

// runners maps KIND of "chaind conformance KIND DIR" to its runner. Each kind
// adds itself from its own file (conformance_KIND.go).
var runners = map[string]conformanceRunner{}

func init() {
	register(command{"conformance", "run conformance vectors: conformance KIND DIR [flags]", runConformance})
}

func runConformance(args []string) int {
	kinds := make([]string, 0, len(runners))
	for k := range runners {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	if len(args) < 2 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintf(os.Stderr, "usage: chaind conformance KIND DIR [-v] [flags]\nkinds: %s\n", strings.Join(kinds, ", "))
		return 2
	}
	run, ok := runners[args[0]]
	if !ok {
		fmt.Fprintf(os.Stderr, "chaind conformance: unknown kind %q (kinds: %s)\n", args[0], strings.Join(kinds, ", "))
		return 2
	}
	dir := args[1]
	if _, err := os.Stat(dir); err != nil {
		fmt.Fprintf(os.Stderr, "chaind conformance: %v\n", err)
		return 2
	}
	rep := conformance.NewReport(os.Stdout)
	rest := args[2:]
	// -v and --json are common to every kind; the rest belongs to the runner.
	var own []string
	for _, a := range rest {
		switch a {
		case "-v", "--v", "-verbose", "--verbose":
			rep.Verbose = true
		case "-json", "--json":
			rep.JSON = true
		default:
			own = append(own, a)
		}
	}
	if err := run(dir, own, rep); err != nil {
		if err == flag.ErrHelp {
			return 2
		}
		fmt.Fprintf(os.Stderr, "chaind conformance %s: %v\n", args[0], err)
		rep.Summary(os.Stdout)
		return 2
	}
	rep.Summary(os.Stdout)
	if rep.Failed > 0 {
		return 1
	}
	return 0
}
