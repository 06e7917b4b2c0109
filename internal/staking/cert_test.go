package staking

import (
	"testing"

	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// certCycleDuration: a validator whose node signs renews its stake
// certificate at each selection; one that never signs a selection
// block's parent keeps the certificate genesis issued, drops to standby
// once it has run out, and is chosen again after its operator renews it
// (editValidator).
func TestCertCycleDuration(t *testing.T) {
	st := NewMemState()
	p := DefaultParams()
	p.CertCycleDuration, p.Desired = 3, 2
	p.MaxMissedBlocks = p.MissedBlocksWindow // no liveness jailing here
	g := &Genesis{Params: &p, Validators: []GenesisValidator{genesisValidator(t, 1, 100), genesisValidator(t, 2, 50)}}
	if err := InitGenesis(st, g, 1000, new(uint256.Int)); err != nil {
		t.Fatal(err)
	}
	v2, _ := ReadValidator(st, addr(2))
	chosen := func(op types.Address) bool {
		for _, a := range ReadNextSet(st) {
			if a.Operator == op {
				return true
			}
		}
		return false
	}
	run := func(from, to uint64) {
		t.Helper()
		for n := from; n <= to; n++ {
			b := Block{Number: n, Time: 1000 + n}
			if types.DefaultCycles.IsSelection(n) {
				b.Absent = []types.Address{v2.ConsensusAddress} // v2's node never signs there
			}
			if err := EndBlock(st, b); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Issued in cycle 0, valid in cycles 0, 1 and 2: chosen at the
	// selections of cycles 0 and 1, not at cycle 2's (for cycle 3).
	run(1, 15)
	if !chosen(addr(1)) || !chosen(addr(2)) {
		t.Fatalf("cycle 1's selection: %v", ReadNextSet(st))
	}
	run(16, 25)
	if !chosen(addr(1)) || chosen(addr(2)) {
		t.Fatalf("cycle 2's selection chose %v; v2's certificate (cycle %d) ran out", ReadNextSet(st), CertCycle(st, addr(2)))
	}
	if v, _ := ReadValidator(st, addr(2)); v.Status != Standby {
		t.Fatalf("v2 status %v, want standby", v.Status)
	}
	if got := CertCycle(st, addr(1)); got != 3 {
		t.Fatalf("v1's certificate renewed for cycle %d, want 3", got)
	}
	// The operator shows up in cycle 2 (an edit changing nothing): the
	// certificate is renewed and cycle 3's selection chooses it again.
	l := &ledger{s: store{st}, now: 1026, height: 26}
	keep := Edit{Description: Description{Moniker: doNotModify, Identity: doNotModify, Website: doNotModify,
		SecurityContact: doNotModify, Details: doNotModify}, NetAddress: doNotModify}
	if err := l.editValidator(addr(2), &keep); err != nil {
		t.Fatal(err)
	}
	if got := CertCycle(st, addr(2)); got != 2 {
		t.Fatalf("renewed in cycle %d, want 2", got)
	}
	run(27, 35)
	if !chosen(addr(2)) {
		t.Fatalf("cycle 3's selection: %v", ReadNextSet(st))
	}
}
