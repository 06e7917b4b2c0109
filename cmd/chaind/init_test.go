package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/store"
)

// chaind init streams a genesis into an empty directory: block 0 is the
// one built in memory (the dev genesis: the staking engine's system
// contracts, whose supply sums the allocation), the directory reads it
// back, and init again with the same file is accepted.
func TestInitStreamsTheGenesis(t *testing.T) {
	dir := t.TempDir()
	gpath, datadir := filepath.Join(dir, "g.json"), filepath.Join(dir, "data")
	if code, _, errOut := runChaind(t, "dev-genesis", "--accounts", "25", "--out", gpath); code != 0 {
		t.Fatalf("dev-genesis: exit %d: %s", code, errOut)
	}
	g, err := chain.LoadGenesis(gpath)
	if err != nil {
		t.Fatal(err)
	}
	want, err := genesisHash(g)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		code, out, errOut := runChaind(t, "init", "--genesis", gpath, "--datadir", datadir)
		if code != 0 {
			t.Fatalf("init %d: exit %d: %s", i, code, errOut)
		}
		if !strings.Contains(out, want.Hex()) {
			t.Fatalf("init %d printed %q, want genesis %s", i, out, want)
		}
	}
	stored, ok := storedGenesis(datadir)
	if !ok {
		t.Fatal("no stored genesis")
	}
	if h, _ := stored.StoredHash(); h != want {
		t.Fatalf("stored block 0 %s, want %s", h, want)
	}
	if entries, _ := os.ReadDir(datadir); len(entries) == 0 {
		t.Fatal("empty data directory")
	} else {
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), "genesis-sort-") {
				t.Fatalf("sort runs left behind: %s", e.Name())
			}
		}
	}
}

// chaind init leaves a store that owes no compaction: a bulk load left
// level 0 and level 1 far over their sizes (at 10M accounts 11 level-0
// tables and 2.3 GB in a level 1 of 64 MiB), and the node merged that
// backlog on one of its cores while it made its first blocks. 10,000
// accounts write some megabytes, more than a close leaves in the log.
func TestInitLeavesNoCompactionDebt(t *testing.T) {
	dir := t.TempDir()
	gpath, datadir := filepath.Join(dir, "g.json"), filepath.Join(dir, "data")
	if code, _, errOut := runChaind(t, "dev-genesis", "--accounts", "10000", "--out", gpath); code != 0 {
		t.Fatalf("dev-genesis: exit %d: %s", code, errOut)
	}
	if code, _, errOut := runChaind(t, "init", "--genesis", gpath, "--datadir", datadir); code != 0 {
		t.Fatalf("init: exit %d: %s", code, errOut)
	}
	kv, err := store.OpenReadOnly(datadir)
	if err != nil {
		t.Fatal(err)
	}
	defer kv.Close()
	levels := kv.Levels()
	if !store.Settled(levels) {
		t.Fatalf("levels after init: %+v", levels)
	}
	var tables int
	for _, l := range levels {
		tables += l.Tables
	}
	if tables == 0 {
		t.Fatal("init wrote no table: the test's genesis is too small to show a backlog")
	}
}
