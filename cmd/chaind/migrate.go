package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/chaind/chaind/internal/store"
)

func init() {
	register(command{"migrate", "convert a data directory of the single-log store to the sorted-table store: migrate --datadir DIR", runMigrate})
}

// runMigrate converts a data directory ahead of the node's first start,
// which would otherwise do it (and take the time) itself.
func runMigrate(args []string) int {
	fs := flag.NewFlagSet("chaind migrate", flag.ContinueOnError)
	datadir := fs.String("datadir", "", "data directory (required)")
	if code, ok := parseFlags(fs, "chaind migrate --datadir DIR", args); !ok {
		return code
	}
	if code, ok := checkArgs(fs.Name(), check{*datadir == "", "--datadir is required"}, noArgs(fs)); !ok {
		return code
	}
	if !store.Exists(*datadir) {
		fmt.Fprintf(os.Stderr, "chaind migrate: no data directory at %s\n", *datadir)
		return 1
	}
	info, err := store.Migrate(*datadir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaind migrate:", err)
		return 1
	}
	if !info.Migrated {
		fmt.Printf("%s: already in the sorted-table format; nothing changed\n", *datadir)
		return 0
	}
	fmt.Printf("%s: converted %d batches to the sorted-table store\n", *datadir, info.Batches)
	if info.CutBytes > 0 {
		fmt.Printf("the old log's last %d bytes were a torn write (%s) and were left out\n", info.CutBytes, info.Reason)
	}
	return 0
}
