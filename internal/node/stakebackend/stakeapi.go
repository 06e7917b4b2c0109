package stakebackend

import (
	"strconv"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/staking"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
)

// stakingAPI implements backend.Staking over the node's chain.
type stakingAPI struct{ n *Backend }

// Staking returns the node's reader of the staking state, for the query
// interfaces (REST, gRPC, the explorer).
func (n *Backend) Staking() backend.Staking { return stakingAPI{n} }

var _ backend.Staking = stakingAPI{}

func (a stakingAPI) StakingEnabled() bool { return a.n.Chain.Engine().ProofOfStake() }

// stateAt opens the state of block height (nil: the head).
func (a stakingAPI) stateAt(height *uint64) (*state.StateDB, error) {
	st, _, err := a.blockState(height)
	return st, err
}

// blockState opens the state of block height (nil: the head) and tells
// the block's number.
func (a stakingAPI) blockState(height *uint64) (*state.StateDB, uint64, error) {
	if !a.StakingEnabled() {
		return nil, 0, backend.ErrStakingDisabled
	}
	b := a.n.Chain.Head()
	if height != nil {
		var err error
		if b, err = a.n.Chain.BlockByNumber(*height); err != nil {
			return nil, 0, err
		}
	}
	st, err := a.n.stateOf(b.HeaderRef())
	return st, b.Number(), err
}

// missedNow is how many blocks v missed in the liveness window of block
// number: its counter counts only in the window it was last written.
func missedNow(v staking.ValidatorInfo, p staking.Params, number uint64) uint64 {
	if p.MissedBlocksWindow == 0 || number/p.MissedBlocksWindow != v.MissedWindow {
		return 0
	}
	return v.MissedBlocks
}

func (a stakingAPI) StakingValidators(height *uint64) ([]backend.StakingValidator, error) {
	st, number, err := a.blockState(height)
	if err != nil {
		return nil, err
	}
	defer st.Release()
	vals, p := staking.ReadValidators(st), staking.ReadParams(st)
	out := make([]backend.StakingValidator, 0, len(vals))
	for _, v := range vals {
		bv := toBackendValidator(v, staking.ReadBonding(st, v.Operator))
		bv.MissedBlocks = missedNow(v, p, number)
		out = append(out, bv)
	}
	return out, nil
}

func (a stakingAPI) StakingValidator(height *uint64, op types.Address) (*backend.StakingValidator, error) {
	st, number, err := a.blockState(height)
	if err != nil {
		return nil, err
	}
	defer st.Release()
	v, ok := staking.ReadValidator(st, op)
	if !ok {
		return nil, backend.ErrValidatorNotFound
	}
	bv := toBackendValidator(v, staking.ReadBonding(st, v.Operator))
	bv.MissedBlocks = missedNow(v, staking.ReadParams(st), number)
	return &bv, nil
}

func toBackendValidator(v staking.ValidatorInfo, b staking.Bonding) backend.StakingValidator {
	d := v.Description
	return backend.StakingValidator{
		Operator: v.Operator, ConsensusAddress: v.ConsensusAddress, ConsensusPubkey: v.Pubkey, NetAddress: v.NetAddress,
		Moniker: d.Moniker, Identity: d.Identity, Website: d.Website, SecurityContact: d.SecurityContact, Details: d.Details,
		CommissionRate: v.Rate, MaxRate: v.MaxRate, MaxChangeRate: v.MaxChangeRate, CommissionUpdated: v.RateUpdated,
		MinSelfDelegation: v.MinSelfDelegation, Tokens: v.Tokens, Shares: v.Shares, SelfDelegation: v.SelfDelegation,
		Slashed: v.Slashed, Status: v.Status.String(), Jailed: v.Jailed, JailedUntil: v.JailedUntil, Created: v.Created,
		UnpaidCommission: v.Commission, Power: v.Power,
		StartHeight: b.StartHeight, UnbondingHeight: b.UnbondingHeight, UnbondingEnd: b.UnbondingEnd,
	}
}

func toBackendDelegations(ds []staking.Delegation) []backend.StakingDelegation {
	out := make([]backend.StakingDelegation, 0, len(ds))
	for _, d := range ds {
		out = append(out, backend.StakingDelegation{Delegator: d.Delegator, Validator: d.Validator, Shares: d.Shares, Amount: d.Amount, Rewards: d.Rewards})
	}
	return out
}

func (a stakingAPI) DelegatorDelegations(height *uint64, d types.Address) ([]backend.StakingDelegation, error) {
	st, err := a.stateAt(height)
	if err != nil {
		return nil, err
	}
	defer st.Release()
	return toBackendDelegations(staking.ReadDelegations(st, d)), nil
}

func (a stakingAPI) ValidatorDelegations(height *uint64, v types.Address) ([]backend.StakingDelegation, error) {
	st, err := a.stateAt(height)
	if err != nil {
		return nil, err
	}
	defer st.Release()
	return toBackendDelegations(staking.ReadValidatorDelegations(st, v)), nil
}

func (a stakingAPI) UnbondingDelegations(height *uint64, d *types.Address) ([]backend.UnbondingEntry, error) {
	st, err := a.stateAt(height)
	if err != nil {
		return nil, err
	}
	defer st.Release()
	es := staking.ReadUnbonding(st, d)
	out := make([]backend.UnbondingEntry, 0, len(es))
	for _, e := range es {
		out = append(out, backend.UnbondingEntry{ID: e.ID, Delegator: e.Delegator, Validator: e.Validator, Amount: e.Amount,
			CompletionTime: e.Completion, CreationHeight: e.Height})
	}
	return out, nil
}

var _ backend.StakingRedelegations = stakingAPI{}

func (a stakingAPI) Redelegations(height *uint64, d *types.Address) ([]backend.RedelegationEntry, error) {
	st, err := a.stateAt(height)
	if err != nil {
		return nil, err
	}
	defer st.Release()
	rs := staking.ReadRedelegations(st, d)
	out := make([]backend.RedelegationEntry, 0, len(rs))
	for _, r := range rs {
		out = append(out, backend.RedelegationEntry{ID: r.ID, Delegator: r.Delegator, Src: r.Src, Dst: r.Dst, Amount: r.Amount,
			SharesDst: r.SharesDst, Balance: r.Balance, CompletionTime: r.Completion, CreationHeight: r.Height})
	}
	return out, nil
}

func (a stakingAPI) WithdrawAddress(height *uint64, d types.Address) (types.Address, error) {
	st, err := a.stateAt(height)
	if err != nil {
		return types.Address{}, err
	}
	defer st.Release()
	return staking.ReadWithdrawAddress(st, d), nil
}

func (a stakingAPI) Supply(height *uint64) (*backend.Supply, error) {
	st, err := a.stateAt(height)
	if err != nil {
		return nil, err
	}
	defer st.Release()
	s := staking.ReadSupply(st)
	return &backend.Supply{Total: s.Total, Minted: s.Minted, Burned: s.Burned, CommunityPool: s.CommunityPool}, nil
}

func (a stakingAPI) StakingParams(height *uint64) (*backend.StakingParams, error) {
	st, err := a.stateAt(height)
	if err != nil {
		return nil, err
	}
	defer st.Release()
	p := staking.ReadParams(st)
	return &backend.StakingParams{
		ActiveVersion: p.ActiveVersion, LatestVersion: p.LatestVersion, MinVersion: p.MinVersion,
		CertCycleDuration: p.CertCycleDuration, MaintenanceFee: p.MaintenanceFee, MaintenanceInterval: p.MaintenanceInterval,
		Penalty: p.Penalty, LeftNetworkEarlyPenaltyPPM: p.LeftNetworkEarlyPenalty, NodeRefutedPenaltyPPM: p.NodeRefutedPenalty,
		SyncTimeoutPenaltyPPM: p.SyncTimeoutPenalty, Reward: p.Reward, NodeRewardInterval: p.NodeRewardInterval,
		RequiredStake: p.RequiredStake, RestakeCooldown: p.RestakeCooldown, Desired: p.Desired, MaxSyncTime: p.MaxSyncTime,
		MissedBlocksWindow: p.MissedBlocksWindow, MaxMissedBlocks: p.MaxMissedBlocks, MinDeposit: p.MinDeposit,
		DepositPeriod: p.DepositPeriod, VotingPeriod: p.VotingPeriod, QuorumPPM: p.Quorum, ThresholdPPM: p.Threshold,
		VetoPPM: p.VetoThreshold, CycleLength: p.CycleLength, SelectionOffset: p.SelectionOffset, Timestamp: p.Timestamp,
	}, nil
}

var _ backend.Governance = stakingAPI{}

// Governance returns the node's reader of governance proposals.
func (n *Backend) Governance() backend.Governance { return stakingAPI{n} }

func kindName(k staking.ProposalKind) string {
	switch k {
	case staking.TextProposal:
		return "text"
	case staking.ParamChangeProposal:
		return "param_change"
	case staking.SoftwareVersionProposal:
		return "software_version"
	case staking.SoftwareUpgradeProposal:
		return "software_upgrade"
	}
	return "unknown"
}

func toBackendProposal(p staking.Proposal) backend.Proposal {
	bp := backend.Proposal{ID: p.ID, Kind: kindName(p.Kind), Status: p.Status.String(), Proposer: p.Proposer,
		Title: p.Title, Description: p.Description, Param: p.Param, Value: p.Value, SubmitTime: p.SubmitTime,
		DepositEnd: p.DepositEnd, VotingStart: p.VotingStart, VotingEnd: p.VotingEnd, TotalDeposit: p.TotalDeposit}
	switch p.Kind {
	case staking.ParamChangeProposal, staking.SoftwareVersionProposal:
		bp.Changes = []backend.ParamChange{{Subspace: backend.ParamSubspace, Key: p.Param, Value: p.Value}}
	case staking.SoftwareUpgradeProposal:
		// The height was checked when the proposal was submitted.
		h, _ := strconv.ParseUint(p.Value, 10, 64)
		bp.Plan = &backend.UpgradePlan{Name: p.Param, Height: h, Info: p.Description}
	}
	return bp
}

func (a stakingAPI) UpgradePlan(height *uint64) (*backend.UpgradePlan, error) {
	st, err := a.stateAt(height)
	if err != nil {
		return nil, err
	}
	defer st.Release()
	p, ok := staking.ReadUpgradePlan(st)
	if !ok {
		return nil, nil
	}
	return &backend.UpgradePlan{Name: p.Name, Height: p.Height, Info: p.Info}, nil
}

func (a stakingAPI) AppliedPlan(height *uint64, name string) (uint64, error) {
	st, err := a.stateAt(height)
	if err != nil {
		return 0, err
	}
	defer st.Release()
	h, _ := staking.ReadAppliedPlan(st, name)
	return h, nil
}

func (a stakingAPI) Proposals(height *uint64) ([]backend.Proposal, error) {
	st, err := a.stateAt(height)
	if err != nil {
		return nil, err
	}
	defer st.Release()
	ps := staking.ReadProposals(st)
	out := make([]backend.Proposal, 0, len(ps))
	for _, p := range ps {
		out = append(out, toBackendProposal(p))
	}
	return out, nil
}

func (a stakingAPI) Proposal(height *uint64, id uint64) (*backend.Proposal, error) {
	st, err := a.stateAt(height)
	if err != nil {
		return nil, err
	}
	defer st.Release()
	p, ok := staking.ReadProposal(st, id)
	if !ok {
		return nil, backend.ErrProposalNotFound
	}
	bp := toBackendProposal(p)
	return &bp, nil
}

func (a stakingAPI) ProposalVotes(height *uint64, id uint64) ([]backend.ProposalVote, error) {
	st, err := a.stateAt(height)
	if err != nil {
		return nil, err
	}
	defer st.Release()
	if _, ok := staking.ReadProposal(st, id); !ok {
		return nil, backend.ErrProposalNotFound
	}
	vs := staking.ReadVotes(st, id)
	out := make([]backend.ProposalVote, 0, len(vs))
	for _, v := range vs {
		out = append(out, backend.ProposalVote{Voter: v.Voter, Yes: v.Yes, Abstain: v.Abstain, No: v.No, NoWithVeto: v.NoWithVeto})
	}
	return out, nil
}

func (a stakingAPI) ProposalDeposits(height *uint64, id uint64) ([]backend.ProposalDeposit, error) {
	st, err := a.stateAt(height)
	if err != nil {
		return nil, err
	}
	defer st.Release()
	if _, ok := staking.ReadProposal(st, id); !ok {
		return nil, backend.ErrProposalNotFound
	}
	ds := staking.ReadDeposits(st, id)
	out := make([]backend.ProposalDeposit, 0, len(ds))
	for _, d := range ds {
		out = append(out, backend.ProposalDeposit{Depositor: d.Depositor, Amount: d.Amount})
	}
	return out, nil
}

func (a stakingAPI) ProposalTally(height *uint64, id uint64) (*backend.Tally, error) {
	st, err := a.stateAt(height)
	if err != nil {
		return nil, err
	}
	defer st.Release()
	if _, ok := staking.ReadProposal(st, id); !ok {
		return nil, backend.ErrProposalNotFound
	}
	t := staking.ReadTally(st, id)
	return &backend.Tally{Yes: t.Yes, Abstain: t.Abstain, No: t.No, NoWithVeto: t.NoWithVeto}, nil
}
