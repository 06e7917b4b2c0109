package staking

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/chaind/chaind/internal/version"
)

// Software upgrades follow the Cosmos SDK's upgrade module. A software
// upgrade proposal names a plan: the version nodes must run (its name)
// and the height from which blocks need it. When the proposal passes the
// plan is scheduled (replacing any plan scheduled before, as in the SDK)
// and latestVersion becomes its name. Block plan.Height is the first one
// the new version executes: a node whose binary is older refuses to
// build, validate or execute it (UpgradeNeeded says so, naming the
// version to run), so it halts with the chain at plan.Height−1 until its
// operator restarts it on the new binary. The end of block plan.Height
// applies the plan: activeVersion and minVersion become its name, the
// plan is recorded as applied at that height (ReadAppliedPlan) and no
// longer scheduled.

// UpgradePlan is a scheduled software upgrade.
type UpgradePlan struct {
	Name   string // the version to run
	Height uint64 // the first block that needs it
	Info   string // the proposal's description: where to get it, what changes
}

// Upgrade plan record fields (under GovernanceAddress, tag "upgrade").
const (
	upName = iota
	upHeight
	upInfo
)

func planRec() slot { return rec(GovernanceAddress, "upgrade") }

func appliedRec(name string) slot { return rec(GovernanceAddress, "applied", []byte(name)) }

// checkPlan checks a software upgrade proposal's plan as submitted at
// block height: a version, and a height still ahead.
func checkPlan(name, value string, height uint64) error {
	if _, err := version.Parse(name); err != nil {
		return err
	}
	h, err := strconv.ParseUint(value, 10, 64)
	if err != nil {
		return fmt.Errorf("plan height %q is not a decimal block number", value)
	}
	if h <= height {
		return fmt.Errorf("plan height %d is not after the current block %d", h, height)
	}
	return nil
}

// schedulePlan makes a passed software upgrade proposal's plan the
// scheduled one; a plan whose height has come by the time it passes
// fails the proposal.
func (l *ledger) schedulePlan(p *Params, name, value, info string) error {
	if err := checkPlan(name, value, l.height); err != nil {
		return err
	}
	h, _ := strconv.ParseUint(value, 10, 64)
	r := planRec()
	l.s.setBytes(r.field(upName), []byte(name))
	l.s.setU64(r.field(upHeight), h)
	l.s.setBytes(r.field(upInfo), []byte(info))
	p.LatestVersion = name
	return nil
}

// applyPlan applies the scheduled plan at the end of its height.
func (l *ledger) applyPlan() {
	plan, ok := ReadUpgradePlan(l.s.st)
	if !ok || plan.Height != l.height {
		return
	}
	p := ReadParams(l.s.st)
	p.ActiveVersion = plan.Name
	if version.Below(p.MinVersion, plan.Name) {
		p.MinVersion = plan.Name
	}
	if version.Below(p.LatestVersion, plan.Name) {
		p.LatestVersion = plan.Name
	}
	p.Timestamp = l.now * 1000
	writeParams(l.s.st, &p)
	l.s.setU64(appliedRec(plan.Name), plan.Height)
	r := planRec()
	l.s.setBytes(r.field(upName), nil)
	l.s.setU64(r.field(upHeight), 0)
	l.s.setBytes(r.field(upInfo), nil)
}

// ReadUpgradePlan returns the scheduled upgrade plan, if any.
func ReadUpgradePlan(st State) (UpgradePlan, bool) {
	s, r := store{st}, planRec()
	h := s.u64(r.field(upHeight))
	if h == 0 {
		return UpgradePlan{}, false
	}
	return UpgradePlan{Name: s.str(r.field(upName)), Height: h, Info: s.str(r.field(upInfo))}, true
}

// ReadAppliedPlan returns the height at which the plan of that name was
// applied; false if it never was.
func ReadAppliedPlan(st State, name string) (uint64, bool) {
	h := store{st}.u64(appliedRec(name))
	return h, h != 0
}

// ErrUpgradeNeeded is returned for a block this binary is too old to
// execute: one at or past a scheduled upgrade's height, or any block
// while the network's minVersion is above the binary's version.
var ErrUpgradeNeeded = errors.New("upgrade needed")

// UpgradeNeeded says whether a binary of version have may execute block
// number on a parent state st; the error names the version to run.
func UpgradeNeeded(st State, number uint64, have string) error {
	if plan, ok := ReadUpgradePlan(st); ok && number >= plan.Height && version.Below(have, plan.Name) {
		return fmt.Errorf("%w: UPGRADE %q NEEDED at height %d: this node runs chaind %s; stop it and start chaind %s or later on the same data directory (%s)",
			ErrUpgradeNeeded, plan.Name, plan.Height, have, plan.Name, plan.Info)
	}
	if p := ReadParams(st); version.Below(have, p.MinVersion) {
		return fmt.Errorf("%w: the network's minVersion is %s and this node runs chaind %s; start chaind %s or later on the same data directory",
			ErrUpgradeNeeded, p.MinVersion, have, p.MinVersion)
	}
	return nil
}
