package main

import "github.com/chaind/chaind/internal/conformance/blocktests"

// "chaind conformance blockchain DIR [--run REGEX]" runs the
// BlockchainTests of ethereum/tests through the node's block import.
func init() { runners["blockchain"] = blocktests.Main }
