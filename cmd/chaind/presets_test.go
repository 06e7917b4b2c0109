package main

import (
	"testing"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/staking"
	"github.com/chaind/chaind/internal/version"
)

// TestPresetsDiffer: the main and test networks have different genesis
// blocks, so their nodes refuse each other in the p2p handshake and a
// data directory of one is refused for the other.
func TestPresetsDiffer(t *testing.T) {
	main, err := genesisHash(chain.MainGenesis())
	if err != nil {
		t.Fatal(err)
	}
	test, err := genesisHash(chain.TestGenesis())
	if err != nil {
		t.Fatal(err)
	}
	if main == test {
		t.Fatalf("main and test presets share genesis hash %s", main)
	}
}

// TestPresetsIndependentOfBinary: a genesis is data. The public presets
// name no staking parameters, so their defaults (versions included) must
// not follow the binary's version, or a new release would compute another
// block 0 than the network's and refuse its peers and data directories.
func TestPresetsIndependentOfBinary(t *testing.T) {
	hashes := func() [2]string {
		var h [2]string
		for i, g := range []*chain.Genesis{chain.MainGenesis(), chain.TestGenesis()} {
			x, err := genesisHash(g)
			if err != nil {
				t.Fatal(err)
			}
			h[i] = x.String()
		}
		return h
	}
	before := hashes()
	defer func(b string) { version.Binary = b }(version.Binary)
	version.Binary = "7.3.1"
	if after := hashes(); after != before {
		t.Fatalf("the presets' genesis hashes follow the binary's version: %v with the build's, %v with 7.3.1", before, after)
	}
}

// TestBinaryMeetsGenesisVersion: a build must be able to run the networks
// whose genesis names the default versions (a node below minVersion
// executes no block).
func TestBinaryMeetsGenesisVersion(t *testing.T) {
	if version.Below(version.Binary, staking.GenesisVersion) {
		t.Fatalf("binary %s is below the genesis minVersion %s: it could not run the main or test network", version.Binary, staking.GenesisVersion)
	}
}
