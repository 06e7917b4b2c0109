// Package rules holds the switches that turn safety rules of the consensus
// core off. Being internal, only packages under consensus/ can set them:
// tests use them to show that each rule is necessary (with a rule off, a
// crafted scenario or the simulator finds an agreement violation).
package rules

// Set lists the rules that can be switched off. The zero value is the
// full, safe algorithm.
type Set struct {
	NoLocking      bool // L23/L29: ignore lockedValue_p/lockedRound_p
	NoPOLCheck     bool // L28: accept validRound without 2f+1 prevotes in it
	MajorityQuorum bool // use > 1/2 of the power instead of > 2/3
}
