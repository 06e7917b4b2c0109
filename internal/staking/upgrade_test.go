package staking

import (
	"errors"
	"strings"
	"testing"
)

// passUpgrade submits a software upgrade proposal to name at planHeight,
// has both validators vote yes and ends its voting period at block
// decided; it returns the proposal's status.
func passUpgrade(t *testing.T, st *MemState, l *ledger, p Params, name, planHeight string, decided uint64) ProposalStatus {
	t.Helper()
	st.AddBalance(GovernanceAddress, p.MinDeposit)
	id, err := l.submitProposal(&p, addr(5), SoftwareUpgradeProposal, "upgrade", "get it at https://example.org/chaind", name, planHeight, p.MinDeposit)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if err := l.vote(id, addr(byte(i+1)), [4]uint64{PPM, 0, 0, 0}); err != nil {
			t.Fatal(err)
		}
	}
	if err := EndBlock(st, Block{Number: decided, Time: 1000 + secondsOf(p.VotingPeriod)}); err != nil {
		t.Fatal(err)
	}
	pr, _ := ReadProposal(st, id)
	return pr.Status
}

func TestSoftwareUpgradePlan(t *testing.T) {
	st, l, p := govLedger(t)
	p.MinVersion, p.ActiveVersion, p.LatestVersion = "1.2.0", "1.2.0", "1.2.0"
	writeParams(st, &p)
	if s := passUpgrade(t, st, l, p, "1.3.0", "50", 10); s != Passed {
		t.Fatalf("status %v", s)
	}
	plan, ok := ReadUpgradePlan(st)
	if !ok || plan != (UpgradePlan{Name: "1.3.0", Height: 50, Info: "get it at https://example.org/chaind"}) {
		t.Fatalf("plan %+v %v", plan, ok)
	}
	if got := ReadParams(st); got.LatestVersion != "1.3.0" || got.ActiveVersion != "1.2.0" || got.MinVersion != "1.2.0" {
		t.Fatalf("versions after the vote: %+v", got)
	}
	// Before the plan's height every binary runs; from it, only 1.3.0 on.
	for _, c := range []struct {
		number uint64
		have   string
		halt   bool
	}{{49, "1.2.0", false}, {50, "1.2.0", true}, {51, "1.2.9", true}, {50, "1.3.0", false}, {50, "1.3.0-dev", false}, {50, "2.0.0", false}} {
		err := UpgradeNeeded(st, c.number, c.have)
		if (err != nil) != c.halt || (err != nil && !errors.Is(err, ErrUpgradeNeeded)) {
			t.Errorf("block %d on %s: %v", c.number, c.have, err)
		}
		if err != nil && !strings.Contains(err.Error(), `UPGRADE "1.3.0" NEEDED at height 50: this node runs chaind `+c.have+`; stop it and start chaind 1.3.0 or later`) {
			t.Errorf("message: %v", err)
		}
	}
	if _, ok := ReadAppliedPlan(st, "1.3.0"); ok {
		t.Fatal("applied before its height")
	}
	if err := EndBlock(st, Block{Number: 50, Time: 2_000_000}); err != nil {
		t.Fatal(err)
	}
	if h, ok := ReadAppliedPlan(st, "1.3.0"); !ok || h != 50 {
		t.Fatalf("applied at %d %v", h, ok)
	}
	if _, ok := ReadUpgradePlan(st); ok {
		t.Fatal("plan still scheduled after it applied")
	}
	if got := ReadParams(st); got.ActiveVersion != "1.3.0" || got.MinVersion != "1.3.0" || got.Timestamp != 2_000_000_000 {
		t.Fatalf("versions after the upgrade: %+v", got)
	}
	// Now the old binary is below minVersion for every block.
	if err := UpgradeNeeded(st, 51, "1.2.0"); err == nil || !strings.Contains(err.Error(), "minVersion is 1.3.0") {
		t.Fatalf("old binary after the upgrade: %v", err)
	}
}

func TestSoftwareUpgradeRules(t *testing.T) {
	for _, c := range []struct {
		name, version, height, reason string
	}{
		{"not a version", "latest", "50", "invalid version"},
		{"not a height", "1.3.0", "soon", "not a decimal block number"},
		{"height passed", "1.3.0", "0", "not after the current block"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, l, p := govLedger(t)
			_, err := l.submitProposal(&p, addr(5), SoftwareUpgradeProposal, "u", "", c.version, c.height, p.MinDeposit)
			wantRevert(t, err, c.reason)
		})
	}
	// A plan whose height came while it was voted on fails.
	st, l, p := govLedger(t)
	if s := passUpgrade(t, st, l, p, "1.3.0", "20", 20); s != Failed {
		t.Fatalf("status %v, want failed", s)
	}
	if _, ok := ReadUpgradePlan(st); ok {
		t.Fatal("a failed plan was scheduled")
	}
}

func TestVersionProposalNeedsAVersion(t *testing.T) {
	_, l, p := govLedger(t)
	_, err := l.submitProposal(&p, addr(5), SoftwareVersionProposal, "v", "", "minVersion", "soon", p.MinDeposit)
	wantRevert(t, err, "invalid version")
}
