package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/pos"
	"github.com/chaind/chaind/internal/store"
)

// A command that works on the chain of a data directory without starting
// a node (init, export, the report of repair) opens it here, so they all
// lock it, check its genesis and refuse it alike; commands that start a
// node leave that to node.New, which does the same.

// chainDir is the chain of an open data directory.
type chainDir struct {
	*chain.Chain
	kv *store.DB
}

// Close releases the data directory.
func (d *chainDir) Close() error { return d.kv.Close() }

// openChain opens the chain in dir: it takes the directory's lock (shared
// when readOnly, so it may sit beside other readers but never beside a
// writer) and opens the chain as node.New does (with its genesis's engine), which
// refuses a genesis other than the one the directory holds. A nil g is
// the stored genesis; a directory without one is refused, and is not
// created.
func openChain(dir string, g *chain.Genesis, readOnly bool) (*chainDir, error) {
	if g == nil {
		stored, ok, err := readStoredGenesis(dir)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, fmt.Errorf("no chain in %s", dir)
		}
		g = stored
	}
	open := store.Open
	if readOnly {
		open = store.OpenReadOnly
	}
	kv, err := open(dir)
	if err != nil {
		return nil, err
	}
	c, err := chain.Open(g, kv, pos.ForGenesis(g))
	if err != nil {
		kv.Close()
		return nil, err
	}
	return &chainDir{Chain: c, kv: kv}, nil
}

// openChainCmd is openChain for the command name: a refusal is one line
// on standard error naming the command, and ok false with exit code 1.
func openChainCmd(name, dir string, g *chain.Genesis) (d *chainDir, code int, ok bool) {
	d, err := openChain(dir, g, false)
	if err != nil {
		fmt.Fprintln(os.Stderr, name+":", err)
		return nil, 1, false
	}
	return d, 0, true
}

// readStoredGenesis reads the genesis a data directory was started with.
// ok is false for a directory that holds no chain (or does not exist);
// err says why one that does could not be read: another process writes
// it, or it is damaged.
func readStoredGenesis(datadir string) (g *chain.Genesis, ok bool, err error) {
	if datadir == "" {
		return nil, false, nil
	}
	if !store.Exists(datadir) {
		return nil, false, nil
	}
	// Read-only: a damaged tail must be left for the node's own open to
	// cut and report, not repaired silently here.
	kv, err := store.OpenReadOnly(datadir)
	if errors.Is(err, store.ErrNeedsMigration) {
		// A directory of the single-log format is converted by its first
		// open; reading its genesis is that open.
		info, merr := store.Migrate(datadir)
		if merr != nil {
			return nil, false, merr
		}
		fmt.Fprintf(os.Stderr, "converted %s to the sorted-table store (%d batches)\n", datadir, info.Batches)
		kv, err = store.OpenReadOnly(datadir)
	}
	if err != nil {
		return nil, false, err
	}
	defer kv.Close()
	return chain.StoredGenesis(kv)
}

// storedGenesis is readStoredGenesis for callers that go on without one:
// a directory that cannot be read is refused later, by the open that
// needs it, with its reason.
func storedGenesis(datadir string) (*chain.Genesis, bool) {
	g, ok, err := readStoredGenesis(datadir)
	return g, ok && err == nil
}
