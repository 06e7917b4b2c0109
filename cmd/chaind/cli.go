package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// Every command parses its flags through parseFlags so that all of them
// behave alike: --help (or -h) prints the usage on standard output and
// exits 0; a bad flag or value prints one line on standard error, naming
// the command and pointing at its --help, and exits 2.

// parseFlags parses args into fs. usage is the command's synopsis, printed
// before the flags by --help. When ok is false the command returns code.
func parseFlags(fs *flag.FlagSet, usage string, args []string) (code int, ok bool) {
	return parseFlagsTo(fs, usage, args, os.Stdout, os.Stderr)
}

// parseFlagsTo is parseFlags writing to the given streams.
func parseFlagsTo(fs *flag.FlagSet, usage string, args []string, stdout, stderr io.Writer) (code int, ok bool) {
	fs.SetOutput(io.Discard) // errors are reported here, on one line
	err := fs.Parse(args)
	switch {
	case err == nil:
		return 0, true
	case errors.Is(err, flag.ErrHelp):
		printUsage(stdout, fs, usage)
		return 0, false
	default:
		return usageErrorTo(stderr, fs.Name(), err.Error()), false
	}
}

// usageError reports a usage mistake on one line and returns exit code 2.
func usageError(name, msg string) int { return usageErrorTo(os.Stderr, name, msg) }

func usageErrorTo(w io.Writer, name, msg string) int {
	fmt.Fprintf(w, "%s: %s (see %s --help)\n", name, firstLine(msg), name)
	return 2
}

// printUsage writes the synopsis and the flags with their defaults.
func printUsage(w io.Writer, fs *flag.FlagSet, usage string) {
	fmt.Fprintf(w, "usage: %s\n", usage)
	hasFlags := false
	fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if !hasFlags {
		return
	}
	fmt.Fprintln(w, "\nflags:")
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// wantsHelp reports whether args ask for help before any flag parsing (for
// commands that dispatch on a first word).
func wantsHelp(args []string) bool {
	return len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help" || args[0] == "help")
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// check is one rule on a command's arguments: when bad, msg says what the
// argument must be.
type check struct {
	bad bool
	msg string
}

// checkArgs reports the first broken rule as a usage error; ok is false
// when one broke and the command must return code.
func checkArgs(name string, checks ...check) (code int, ok bool) {
	for _, c := range checks {
		if c.bad {
			return usageError(name, c.msg), false
		}
	}
	return 0, true
}

// portOK accepts a port number, 0 (any free port) or -1 (off).
func portOK(p int) bool { return p >= -1 && p <= 65535 }

// noArgs is the check that no positional argument follows the flags.
func noArgs(fs *flag.FlagSet) check {
	return check{fs.NArg() > 0, fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
}
