package node

import (
	"errors"
	"github.com/chaind/chaind/internal/pos"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/staking"
	"github.com/chaind/chaind/internal/version"
)

// A software upgrade voted through governance halts every node older
// than the plan at the plan's height, each saying which version to run,
// as a Cosmos SDK chain halts for an upgrade its binary lacks; a node
// restarted on the old binary refuses to start.
func TestUpgradePlanHaltsOldNodes(t *testing.T) {
	params := pos.DevParams()
	// Block times are whole seconds: a period of 1 s could end in the
	// block after the proposal's, before the votes; 3 s leaves 2 at least.
	params.VotingPeriod = 3_000
	dn, err := StartDevnet(DevnetConfig{Validators: 2, BlockTime: 50 * time.Millisecond, HTTPPort: -1, ChainID: 8118, Params: &params})
	if err != nil {
		t.Fatal(err)
	}
	defer dn.Close()
	n := dn.Nodes[0]
	fundValidators(t, dn, dn.Keys[3])
	p, _ := n.Staking().StakingParams(nil)
	plan := n.Chain.Head().Number() + 150
	stakeTx(t, dn, dn.Keys[2], staking.GovernanceAddress, p.MinDeposit, call(t, "Governance", "submitProposal",
		uint64(staking.SoftwareUpgradeProposal), "upgrade to 99.0.0", "https://example.org/chaind/99.0.0", "99.0.0", strconv.FormatUint(plan, 10)))
	voteYes(t, dn, 1)
	for i, node := range dn.Nodes {
		select {
		case <-node.Failed():
		case <-time.After(120 * time.Second):
			pr, _ := node.Governance().Proposal(nil, 1)
			t.Fatalf("node %d still running at head %d (plan %d, proposal %+v)", i, node.Chain.Head().Number(), plan, pr)
		}
		want := `UPGRADE "99.0.0" NEEDED at height ` + strconv.FormatUint(plan, 10) + `: this node runs chaind ` + version.Binary + `; stop it and start chaind 99.0.0 or later`
		if err := node.Failure(); !errors.Is(err, staking.ErrUpgradeNeeded) || !strings.Contains(err.Error(), want) {
			t.Errorf("node %d failed with %v, want %q", i, err, want)
		}
		if h := node.Chain.Head().Number(); h != plan-1 {
			t.Errorf("node %d halted at %d, want %d", i, h, plan-1)
		}
		if err := pos.HeadUpgradeNeeded(node.Chain); !errors.Is(err, staking.ErrUpgradeNeeded) {
			t.Errorf("node %d would start again on the old binary: %v", i, err)
		}
	}
	if cur, err := n.Governance().UpgradePlan(nil); err != nil || cur == nil || cur.Name != "99.0.0" || cur.Height != plan {
		t.Errorf("current plan %+v %v", cur, err)
	}
	if acc, _ := n.stake.Network().NetworkAccount(); acc.LatestVersion != "99.0.0" || acc.MinVersion == "99.0.0" {
		t.Errorf("versions %s/%s/%s", acc.ActiveVersion, acc.LatestVersion, acc.MinVersion)
	}
}
