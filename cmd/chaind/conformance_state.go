package main

import "github.com/chaind/chaind/internal/conformance/statetests"

// "chaind conformance state DIR [--fork NAME] [--run REGEX]" runs the
// GeneralStateTests of ethereum/tests.
func init() { runners["state"] = statetests.Main }
