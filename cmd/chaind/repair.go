package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/chaind/chaind/internal/store"
)

func init() {
	register(command{"repair", "move the damaged part of a data directory aside: repair --datadir DIR", runRepair})
}

// runRepair makes a data directory the node refused to open usable again.
// Nothing is deleted: the damaged bytes of a log go to a side file,
// damaged tables are renamed aside, and the report says which blocks the
// node keeps and which it must fetch again.
func runRepair(args []string) int {
	fs := flag.NewFlagSet("chaind repair", flag.ContinueOnError)
	datadir := fs.String("datadir", "", "data directory (required)")
	if code, ok := parseFlags(fs, "chaind repair --datadir DIR", args); !ok {
		return code
	}
	if code, ok := checkArgs(fs.Name(), check{*datadir == "", "--datadir is required"}, noArgs(fs)); !ok {
		return code
	}
	info, err := store.Repair(*datadir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaind repair:", err)
		return 1
	}
	if !info.Damaged() {
		fmt.Printf("%s: no damage found (%d batches checked, every table block checked); nothing changed\n", *datadir, info.Batches)
		return 0
	}
	if info.SideFile != "" {
		fmt.Printf("%s: damage at offset %d of %s (%s)\nmoved %d bytes from there into %s; nothing was deleted\n",
			*datadir, info.Offset, info.Log, info.Reason, info.Moved, info.SideFile)
	}
	for _, l := range info.LaterLogs {
		fmt.Printf("set aside %s, written after the damage, as %s.damaged\n", l, l)
	}
	for _, t := range info.Tables {
		fmt.Printf("set aside the damaged table %s as %s.damaged: its keys fall back to older values where a deeper table holds them\n", t, t)
	}
	head, ok := repairedHead(*datadir)
	if !ok {
		fmt.Println("no chain was found before the damage: the node will start from its genesis")
		return 0
	}
	fmt.Printf("blocks 0..%d are intact; every block after %d was in the moved part: a node on a network fetches them again from its peers, a lone node has lost them (their bytes stay in the side file)\n", head, head)
	return 0
}

// repairedHead is the head of the chain the repaired directory holds.
func repairedHead(datadir string) (uint64, bool) {
	c, err := openChain(datadir, nil, true)
	if err != nil {
		return 0, false
	}
	defer c.Close()
	return c.Head().Number(), true
}
