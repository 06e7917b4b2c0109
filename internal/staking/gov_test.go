package staking

import (
	"testing"

	"github.com/holiman/uint256"
)

// govLedger has validators addr(1) (60 CHAIN) and addr(2) (40 CHAIN),
// each its own only delegator.
func govLedger(t *testing.T) (*MemState, *ledger, Params) {
	t.Helper()
	st := NewMemState()
	p := DefaultParams()
	g := &Genesis{Params: &p, Validators: []GenesisValidator{genesisValidator(t, 1, 60), genesisValidator(t, 2, 40)}}
	if err := InitGenesis(st, g, 1000, new(uint256.Int)); err != nil {
		t.Fatal(err)
	}
	return st, &ledger{s: store{st}, now: 1000}, ReadParams(st)
}

func TestSubmitProposalRules(t *testing.T) {
	for _, tc := range []struct {
		name                string
		kind                ProposalKind
		title, param, value string
		reason              string
	}{
		{"text", TextProposal, "t", "", "", ""},
		{"param", ParamChangeProposal, "t", "maintenanceFee", "5", ""},
		{"version", SoftwareVersionProposal, "t", "minVersion", "1.2.0", ""},
		{"no title", TextProposal, "", "", "", "title"},
		{"text with param", TextProposal, "t", "desired", "3", "changes no parameter"},
		{"unknown param", ParamChangeProposal, "t", "nope", "1", "unknown parameter"},
		{"bad value", ParamChangeProposal, "t", "desired", "x", "not a decimal"},
		{"value fails check", ParamChangeProposal, "t", "desired", "0", "desired"},
		{"version kind on other param", SoftwareVersionProposal, "t", "desired", "3", "software version"},
		{"unknown kind", 9, "t", "", "", "unknown proposal kind"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, l, p := govLedger(t)
			_, err := l.submitProposal(&p, addr(5), tc.kind, tc.title, "", tc.param, tc.value, new(uint256.Int))
			wantRevert(t, err, tc.reason)
		})
	}
}

func TestProposalOutcomes(t *testing.T) {
	yes, no, abstain, veto := [4]uint64{PPM, 0, 0, 0}, [4]uint64{0, 0, PPM, 0}, [4]uint64{0, PPM, 0, 0}, [4]uint64{0, 0, 0, PPM}
	for _, tc := range []struct {
		name       string
		v1, v2     *[4]uint64 // votes of validators 1 (60%) and 2 (40%)
		want       ProposalStatus
		refund     bool
		newFeeWant uint64
	}{
		{"passes", &yes, &no, Passed, true, 7},
		{"no quorum", nil, nil, Rejected, true, 0},
		{"quorum by the minority only", nil, &yes, Passed, true, 7},
		{"majority no", &no, &yes, Rejected, true, 0},
		{"vetoed", &yes, &veto, Rejected, false, 0},
		{"all abstain", &abstain, &abstain, Rejected, true, 0},
		{"weighted", &[4]uint64{500_000, 0, 500_000, 0}, &yes, Passed, true, 7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, l, p := govLedger(t)
			st.AddBalance(GovernanceAddress, p.MinDeposit)
			id, err := l.submitProposal(&p, addr(5), ParamChangeProposal, "fee", "", "maintenanceFee", "7", p.MinDeposit)
			if err != nil {
				t.Fatal(err)
			}
			if pr, _ := ReadProposal(st, id); pr.Status != VotingPeriod {
				t.Fatalf("status %v after the full deposit", pr.Status)
			}
			for i, v := range []*[4]uint64{tc.v1, tc.v2} {
				if v != nil {
					if err := l.vote(id, addr(byte(i+1)), *v); err != nil {
						t.Fatal(err)
					}
				}
			}
			wantRevert(t, l.vote(id, addr(1), [4]uint64{1, 0, 0, 0}), "sum to 1")
			end := 1000 + secondsOf(p.VotingPeriod)
			if err := EndBlock(st, Block{Number: 3, Time: end - 1}); err != nil {
				t.Fatal(err)
			}
			if pr, _ := ReadProposal(st, id); pr.Status != VotingPeriod {
				t.Fatal("closed before the voting period ended")
			}
			if err := EndBlock(st, Block{Number: 4, Time: end}); err != nil {
				t.Fatal(err)
			}
			pr, _ := ReadProposal(st, id)
			if pr.Status != tc.want {
				t.Fatalf("status %v, want %v", pr.Status, tc.want)
			}
			if got := ReadParams(st).MaintenanceFee.Uint64(); got != tc.newFeeWant {
				t.Fatalf("maintenanceFee %d, want %d", got, tc.newFeeWant)
			}
			if refunded := st.GetBalance(addr(5)).Eq(p.MinDeposit); refunded != tc.refund {
				t.Fatalf("refunded %v, want %v", refunded, tc.refund)
			}
			wantRevert(t, l.vote(id, addr(1), yes), "not in its voting period")
		})
	}
}

func TestProposalDropped(t *testing.T) {
	st, l, p := govLedger(t)
	one := uint256.NewInt(1)
	st.AddBalance(GovernanceAddress, one)
	id, err := l.submitProposal(&p, addr(5), TextProposal, "t", "", "", "", one)
	if err != nil {
		t.Fatal(err)
	}
	wantRevert(t, l.vote(id, addr(1), [4]uint64{PPM, 0, 0, 0}), "not in its voting period")
	if err := EndBlock(st, Block{Number: 2, Time: 1000 + secondsOf(p.DepositPeriod)}); err != nil {
		t.Fatal(err)
	}
	if pr, _ := ReadProposal(st, id); pr.Status != Dropped || !st.GetBalance(addr(5)).Eq(one) {
		t.Fatalf("status %v balance %v", pr.Status, st.GetBalance(addr(5)))
	}
}
