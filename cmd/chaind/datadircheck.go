package main

import (
	"flag"
	"fmt"

	"github.com/chaind/chaind/internal/chain"
)

// flagSet reports whether the flag was given on the command line, in the
// environment or in the config file (applyEnvAndConfig sets those through
// the flag set, so they count as given).
func flagSet(fs *flag.FlagSet, name string) bool {
	found := false
	fs.Visit(func(f *flag.Flag) {
		if f.Name == name {
			found = true
		}
	})
	return found
}

// checkDatadir refuses flags that name another chain than the one the data
// directory holds: the node would otherwise go on with the stored chain
// and the flag would be silently ignored. dev is the --dev setup, nil
// without --dev.
func (f *runFlags) checkDatadir(fs *flag.FlagSet, stored *chain.Genesis, dev *devSetup) error {
	if stored.Fork != nil {
		// A fork made by --dev --fork-url: its genesis is the fork point's
		// child, whose state only the upstream holds, so it is not hashed
		// here; --dev continues it, a flag naming another chain is refused.
		holds := fmt.Sprintf("%s holds a fork (chain ID %d) of another chain at its block %d", f.datadir, stored.Config.ChainID, stored.Fork.Number)
		switch {
		case f.chainID != 0 && f.chainID != stored.Config.ChainID:
			return fmt.Errorf("--chain-id %d: %s; use another --datadir for a new chain", f.chainID, holds)
		case f.genesis != "" || flagSet(fs, "network"):
			return fmt.Errorf("--genesis or --network names another chain: %s; use another --datadir", holds)
		}
		return nil
	}
	// Block 0's hash is read, not built: the stored genesis carries no
	// allocation (the directory's state holds it).
	have, ok := stored.StoredHash()
	if !ok {
		return fmt.Errorf("%s: stored genesis without block 0", f.datadir)
	}
	holds := fmt.Sprintf("%s holds chain ID %d with genesis %s", f.datadir, stored.Config.ChainID, have)
	fresh := "use another --datadir for a new chain, or drop the flag to continue this one"
	if f.chainID != 0 && f.chainID != stored.Config.ChainID {
		return fmt.Errorf("--chain-id %d: %s; %s", f.chainID, holds, fresh)
	}
	var want *chain.Genesis
	var err error
	var what string
	switch {
	case f.genesis != "":
		if want, err = chain.LoadGenesis(f.genesis); err != nil {
			return err
		}
		what = "--genesis " + f.genesis
	case dev != nil:
		want, what = dev.Genesis, "--dev (with these --accounts, --balance, --mnemonic and --chain-id)"
	case flagSet(fs, "network"):
		if want, err = f.loadGenesis(nil); err != nil {
			return err
		}
		what = "--network " + f.network
	default:
		return nil
	}
	// Hash a copy: preparing adds the system contracts to the genesis the
	// node is about to be given.
	cp, cfg := *want, *want.Config
	cp.Config = &cfg
	cp.Alloc = make(chain.Alloc, len(want.Alloc))
	for a, acc := range want.Alloc {
		cp.Alloc[a] = acc
	}
	got, err := genesisHash(&cp)
	if err != nil {
		return fmt.Errorf("%s: %v", what, err)
	}
	// The chain ID is not in block 0's hash: compared on its own.
	if got != have || want.Config.ChainID != stored.Config.ChainID {
		if dev != nil {
			fresh = "give --dev the --accounts, --balance, --mnemonic and --chain-id the chain was made with, or use another --datadir for a new chain"
		}
		return fmt.Errorf("%s is genesis %s (chain ID %d), but %s; %s", what, got, want.Config.ChainID, holds, fresh)
	}
	return nil
}
