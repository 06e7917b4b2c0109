package conformance

import (
	"errors"
	"flag"
	"io"
	"os"
)

// ParseFlags parses a runner's own flags the way every chaind command
// does: a bad flag is returned as an error for the caller's one-line
// report (nothing is printed here), and --help prints the runner's flags
// on standard output and returns flag.ErrHelp.
func ParseFlags(fs *flag.FlagSet, args []string) error {
	fs.SetOutput(io.Discard)
	err := fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		n := 0
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n == 0 {
			os.Stdout.WriteString(fs.Name() + " has no flags of its own\n")
			return err
		}
		os.Stdout.WriteString("flags of " + fs.Name() + ":\n")
		fs.SetOutput(os.Stdout)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return err
}
