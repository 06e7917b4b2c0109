package node

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/pos"
	"github.com/chaind/chaind/internal/staking"
	"github.com/chaind/chaind/internal/version"
)

// A node below the network's minVersion refuses to run: a chain whose
// state asks for a later release than this binary does not start, and
// says which release it runs and which it needs.
func TestBelowMinVersionRefusesToStart(t *testing.T) {
	params := pos.DevParams()
	params.MinVersion = "99.0.0"
	dn, err := StartDevnet(DevnetConfig{Validators: 1, BlockTime: 50 * time.Millisecond, HTTPPort: -1, ChainID: 8118, Params: &params})
	if err == nil {
		dn.Close()
		t.Fatal("a node below minVersion started")
	}
	want := "the network's minVersion is 99.0.0 and this node runs chaind " + version.Binary
	if !errors.Is(err, staking.ErrUpgradeNeeded) || !strings.Contains(err.Error(), want) {
		t.Fatalf("err %v, want %q", err, want)
	}
}

// A node below minVersion refuses to sign: when governance raises
// minVersion above the running release, every validator halts after the
// block that raised it, saying which release it runs and which the
// network needs, and signs no block after it.
func TestMinVersionRaisedStopsSigning(t *testing.T) {
	params := pos.DevParams()
	params.VotingPeriod = 3_000
	dn, err := StartDevnet(DevnetConfig{Validators: 2, BlockTime: 50 * time.Millisecond, HTTPPort: -1, ChainID: 8118, Params: &params})
	if err != nil {
		t.Fatal(err)
	}
	defer dn.Close()
	n := dn.Nodes[0]
	fundValidators(t, dn, dn.Keys[3])
	p, _ := n.Staking().StakingParams(nil)
	stakeTx(t, dn, dn.Keys[2], staking.GovernanceAddress, p.MinDeposit, call(t, "Governance", "submitProposal",
		uint64(staking.SoftwareVersionProposal), "require 99.0.0", "", "minVersion", "99.0.0"))
	voteYes(t, dn, 1)
	want := "the network's minVersion is 99.0.0 and this node runs chaind " + version.Binary
	for i, node := range dn.Nodes {
		select {
		case <-node.Failed():
		case <-time.After(120 * time.Second):
			pr, _ := node.Governance().Proposal(nil, 1)
			t.Fatalf("node %d still running at head %d (proposal %+v)", i, node.Chain.Head().Number(), pr)
		}
		if err := node.Failure(); !errors.Is(err, staking.ErrUpgradeNeeded) || !strings.Contains(err.Error(), want) {
			t.Errorf("node %d failed with %v, want %q", i, err, want)
		}
	}
	// The halted validators sign nothing more: no block follows.
	heads := []uint64{dn.Nodes[0].Chain.Head().Number(), dn.Nodes[1].Chain.Head().Number()}
	time.Sleep(time.Second)
	for i, node := range dn.Nodes {
		if h := node.Chain.Head().Number(); h != heads[i] {
			t.Errorf("node %d went on from %d to %d below minVersion", i, heads[i], h)
		}
		if err := pos.HeadUpgradeNeeded(node.Chain); !errors.Is(err, staking.ErrUpgradeNeeded) {
			t.Errorf("node %d would start again: %v", i, err)
		}
	}
}
