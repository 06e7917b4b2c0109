package query

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// fakeNative is a staking and governance state held in memory.
type fakeNative struct {
	vals    []backend.StakingValidator
	dels    []backend.StakingDelegation
	unbonds []backend.UnbondingEntry
	params  backend.StakingParams
	supply  backend.Supply
	props   []backend.Proposal
	votes   []backend.ProposalVote
	deps    []backend.ProposalDeposit
	tally   backend.Tally
}

func (f *fakeNative) StakingEnabled() bool { return true }
func (f *fakeNative) StakingValidators(*uint64) ([]backend.StakingValidator, error) {
	return f.vals, nil
}
func (f *fakeNative) StakingValidator(_ *uint64, op types.Address) (*backend.StakingValidator, error) {
	for _, v := range f.vals {
		if v.Operator == op {
			return &v, nil
		}
	}
	return nil, backend.ErrValidatorNotFound
}
func (f *fakeNative) DelegatorDelegations(_ *uint64, d types.Address) ([]backend.StakingDelegation, error) {
	var out []backend.StakingDelegation
	for _, x := range f.dels {
		if x.Delegator == d {
			out = append(out, x)
		}
	}
	return out, nil
}
func (f *fakeNative) ValidatorDelegations(_ *uint64, v types.Address) ([]backend.StakingDelegation, error) {
	var out []backend.StakingDelegation
	for _, x := range f.dels {
		if x.Validator == v {
			out = append(out, x)
		}
	}
	return out, nil
}
func (f *fakeNative) UnbondingDelegations(_ *uint64, d *types.Address) ([]backend.UnbondingEntry, error) {
	var out []backend.UnbondingEntry
	for _, e := range f.unbonds {
		if d == nil || e.Delegator == *d {
			out = append(out, e)
		}
	}
	return out, nil
}
func (f *fakeNative) WithdrawAddress(_ *uint64, d types.Address) (types.Address, error) {
	return d, nil
}
func (f *fakeNative) Supply(*uint64) (*backend.Supply, error)               { return &f.supply, nil }
func (f *fakeNative) StakingParams(*uint64) (*backend.StakingParams, error) { return &f.params, nil }
func (f *fakeNative) Proposals(*uint64) ([]backend.Proposal, error)         { return f.props, nil }
func (f *fakeNative) Proposal(_ *uint64, id uint64) (*backend.Proposal, error) {
	for _, p := range f.props {
		if p.ID == id {
			return &p, nil
		}
	}
	return nil, backend.ErrProposalNotFound
}
func (f *fakeNative) ProposalVotes(_ *uint64, id uint64) ([]backend.ProposalVote, error) {
	if _, err := f.Proposal(nil, id); err != nil {
		return nil, err
	}
	return f.votes, nil
}
func (f *fakeNative) ProposalDeposits(_ *uint64, id uint64) ([]backend.ProposalDeposit, error) {
	if _, err := f.Proposal(nil, id); err != nil {
		return nil, err
	}
	return f.deps, nil
}
func (f *fakeNative) UpgradePlan(*uint64) (*backend.UpgradePlan, error) { return nil, nil }
func (f *fakeNative) AppliedPlan(*uint64, string) (uint64, error)       { return 0, nil }
func (f *fakeNative) ProposalTally(_ *uint64, id uint64) (*backend.Tally, error) {
	if _, err := f.Proposal(nil, id); err != nil {
		return nil, err
	}
	return &f.tally, nil
}

func u(x uint64) *uint256.Int { return uint256.NewInt(x) }

func wei(n uint64) *uint256.Int { return new(uint256.Int).Mul(u(n), u(1e18)) }

func TestNativeMapping(t *testing.T) {
	a, b, d := types.Address{1}, types.Address{2}, types.Address{9}
	f := &fakeNative{
		vals: []backend.StakingValidator{
			{Operator: b, ConsensusAddress: types.Address{0xb}, Status: "standby", Tokens: wei(2), Shares: wei(2), MissedBlocks: 4,
				StartHeight: 3, UnbondingHeight: 8, UnbondingEnd: 500},
			{Operator: a, ConsensusAddress: types.Address{0xa}, Status: "active", Tokens: wei(10), Shares: wei(10),
				CommissionRate: u(5e16), UnpaidCommission: u(7), StartHeight: 2},
			{Operator: types.Address{3}, ConsensusAddress: types.Address{0xc}, Status: "jailed", Jailed: true, JailedUntil: 1000, Tokens: wei(1)},
		},
		dels: []backend.StakingDelegation{
			{Delegator: d, Validator: b, Shares: u(3), Amount: u(3), Rewards: u(1)},
			{Delegator: d, Validator: a, Shares: u(5), Amount: u(6), Rewards: u(2)},
		},
		unbonds: []backend.UnbondingEntry{
			{ID: 4, Delegator: d, Validator: b, Amount: u(1), CompletionTime: 100, CreationHeight: 5},
			{ID: 5, Delegator: d, Validator: a, Amount: u(2), CompletionTime: 200, CreationHeight: 6},
			{ID: 6, Delegator: d, Validator: b, Amount: u(4), CompletionTime: 300, CreationHeight: 7},
		},
		params: backend.StakingParams{RestakeCooldown: 60_000, Desired: 21, MissedBlocksWindow: 100, MaxMissedBlocks: 50,
			NodeRefutedPenaltyPPM: 200_000, SyncTimeoutPenaltyPPM: 10_000, MinDeposit: wei(10), DepositPeriod: 1000,
			VotingPeriod: 2000, QuorumPPM: 334_000, ThresholdPPM: 500_000, VetoPPM: 334_000},
		supply: backend.Supply{Total: wei(1000), CommunityPool: u(11)},
		props: []backend.Proposal{
			{ID: 2, Status: "dropped", TotalDeposit: u(1)},
			{ID: 1, Status: "passed", Title: "t", SubmitTime: 10, TotalDeposit: wei(10)},
		},
		votes: []backend.ProposalVote{{Voter: b, Yes: 700_000, No: 300_000}, {Voter: a, Abstain: 1_000_000}},
		deps:  []backend.ProposalDeposit{{Depositor: b, Amount: u(4)}, {Depositor: a, Amount: u(6)}},
		tally: backend.Tally{Yes: u(8), Abstain: u(0), No: u(1), NoWithVeto: u(0)},
	}
	q := New(Backend{Staking: f, Governance: f})
	n, err := q.native(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	head := uint64(12)
	n.at = &head

	vs, _ := n.StakingValidators()
	if len(vs) != 3 || vs[0].Operator != a || vs[1].Operator != b {
		t.Fatalf("validators not sorted by operator: %+v", vs)
	}
	if vs[0].Status != statusBonded || vs[1].Status != statusUnbonded || vs[2].Status != statusUnbonding {
		t.Errorf("statuses %v %v %v", vs[0].Status, vs[1].Status, vs[2].Status)
	}
	if !vs[0].DelegatorShares.Eq(new(uint256.Int).Mul(wei(10), u(1e18))) || !vs[0].Commission.Rate.Eq(u(5e16)) {
		t.Errorf("shares %v rate %v", vs[0].DelegatorShares, vs[0].Commission.Rate)
	}
	if !vs[2].UnbondingTime.Equal(time.Unix(1000, 0)) || !vs[0].UnbondingTime.Equal(time.Unix(0, 0)) {
		t.Errorf("jailed validator's unbonding time %v", vs[2].UnbondingTime)
	}
	if vs[1].UnbondingHeight != 8 || !vs[1].UnbondingTime.Equal(time.Unix(500, 0)) || vs[0].UnbondingHeight != 0 {
		t.Errorf("unbonding of a validator that left the set: %d %v", vs[1].UnbondingHeight, vs[1].UnbondingTime)
	}
	if _, err := n.StakingValidator(types.Address{7}); err != backend.ErrNotFound {
		t.Errorf("unknown validator: %v", err)
	}

	ds, _ := n.Delegations(d)
	if len(ds) != 2 || ds[0].Validator != a || !ds[0].Shares.Eq(wei(5)) || !ds[0].Balance.Eq(u(6)) {
		t.Errorf("delegations %+v", ds)
	}
	ub, _ := n.Unbondings(d)
	if len(ub) != 2 || ub[0].Validator != a || ub[1].Validator != b || len(ub[1].Entries) != 2 ||
		ub[1].Entries[1].CreationHeight != 7 || !ub[1].Entries[1].Balance.Eq(u(4)) || ub[1].Entries[1].UnbondingID != 6 {
		t.Errorf("unbondings not grouped per validator: %+v", ub)
	}
	bonded, notBonded, _ := n.StakingPool()
	if !bonded.Eq(wei(10)) || !notBonded.Eq(new(uint256.Int).Add(wei(3), u(7))) {
		t.Errorf("pool %v %v", bonded, notBonded)
	}
	sp, _ := n.StakingParams()
	if sp.UnbondingTime != time.Minute || sp.MaxValidators != 21 {
		t.Errorf("staking params %+v", sp)
	}

	if r, _ := n.DelegationRewards(d, a); !r.Eq(wei(2)) {
		t.Errorf("rewards %v", r)
	}
	if _, err := n.DelegationRewards(a, d); err != backend.ErrNotFound {
		t.Errorf("rewards of no delegation: %v", err)
	}
	if r, _ := n.OutstandingRewards(a); !r.Eq(wei(7 + 2)) {
		t.Errorf("outstanding %v", r)
	}
	if c, _ := n.CommunityPool(); !c.Eq(wei(11)) {
		t.Errorf("community pool %v", c)
	}
	if s, _ := n.TotalSupply(&types.Header{Number: 3}); !s.Eq(wei(1000)) {
		t.Errorf("supply %v", s)
	}

	ps, _ := n.Proposals()
	if len(ps) != 2 || ps[0].ID != 1 || ps[0].Status != propPassed || !ps[0].FinalTally.Yes.Eq(u(8)) ||
		ps[1].Status != propRejected || !ps[0].SubmitTime.Equal(time.Unix(10, 0)) {
		t.Errorf("proposals %+v", ps)
	}
	if _, err := n.Proposal(9); err != backend.ErrNotFound {
		t.Errorf("unknown proposal: %v", err)
	}
	votes, _ := n.Votes(1)
	if len(votes) != 2 || votes[0].Voter != a || len(votes[1].Options) != 2 ||
		votes[1].Options[0].Option != optYes || !votes[1].Options[0].Weight.Eq(u(7e17)) {
		t.Errorf("votes %+v", votes)
	}
	deps, _ := n.Deposits(1)
	if len(deps) != 2 || deps[0].Depositor != a || !deps[0].Amount.Eq(u(6)) {
		t.Errorf("deposits %+v", deps)
	}
	gp, _ := n.GovParams()
	if gp.VotingPeriod != 2*time.Second || !gp.Quorum.Eq(u(334e15)) || !gp.MinDeposit.Eq(wei(10)) {
		t.Errorf("gov params %+v", gp)
	}

	rules, _ := n.SlashingRules()
	if rules.SignedBlocksWindow != 100 || !rules.MinSignedPerWindow.Eq(u(5e17)) || rules.DowntimeJailDuration != time.Minute ||
		!rules.SlashFractionDoubleSign.Eq(u(2e17)) || !rules.SlashFractionDowntime.Eq(u(1e16)) {
		t.Errorf("slashing rules %+v", rules)
	}
	// Offsets: blocks active from the start height to the block that
	// took it out, or to the block read while it is still active.
	si, _ := n.SigningInfo(types.Address{0xb})
	if si.MissedBlocksCounter != 4 || si.StartHeight != 3 || si.IndexOffset != 5 {
		t.Errorf("signing info %+v", si)
	}
	if si, _ := n.SigningInfo(types.Address{0xa}); si.StartHeight != 2 || si.IndexOffset != 10 {
		t.Errorf("signing info of an active validator %+v", si)
	}
	if _, err := n.SigningInfo(types.Address{0xee}); !errors.Is(err, backend.ErrNotFound) {
		t.Errorf("unknown signing info: %v", err)
	}
}
