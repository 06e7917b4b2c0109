package main

import (
	"testing"

	"github.com/chaind/chaind/internal/chain"
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
