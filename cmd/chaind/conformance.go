package main

import (
	"errors"
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
	if wantsHelp(args) || (len(args) == 2 && wantsHelp(args[1:])) {
		fmt.Printf("usage: chaind conformance KIND DIR [-v] [--json] [flags of the kind]\nkinds: %s\nThe last line is always \"N passed, M failed, K skipped\"; exit 1 when a case failed.\n", strings.Join(kinds, ", "))
		return 0
	}
	if len(args) < 2 {
		return usageError("chaind conformance", "want KIND DIR (kinds: "+strings.Join(kinds, ", ")+")")
	}
	run, ok := runners[args[0]]
	if !ok {
		return usageError("chaind conformance", fmt.Sprintf("unknown kind %q (kinds: %s)", args[0], strings.Join(kinds, ", ")))
	}
	dir := args[1]
	if _, err := os.Stat(dir); err != nil {
		return usageError("chaind conformance", err.Error())
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
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(os.Stderr, "chaind conformance %s: %v\n", args[0], firstLine(err.Error()))
		rep.Summary(os.Stdout)
		return 2
	}
	rep.Summary(os.Stdout)
	if rep.Failed > 0 {
		return 1
	}
	return 0
}
