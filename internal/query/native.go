package query

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// The Cosmos modules' views are mapped here from the chain's own staking
// and governance state (backend.Staking, backend.Governance), so that the
// REST and gRPC answers and every other reader of that state (JSON-RPC
// chain_*, the explorer) have one source. What Cosmos calls a module is a
// system contract here; the mapping:
//
//   - bond status: active → bonded, jailed → unbonding (it left the set and
//     waits out its jail), standby and inactive → unbonded;
//   - shares and rewards, integers of the native ledger, become Decs
//     (times 10^18); commission rates already are 18-decimal fractions;
//     parts-per-million fractions become Decs (times 10^12);
//   - unbonding entries are grouped per validator; the staking params'
//     unbonding time is restakeCooldown and max validators is desired;
//   - the distribution module's taxes and proposer bonuses do not exist
//     natively (rewards go wholly to validators and their delegators; the
//     community pool is fed by maintenance fees), so they read zero;
//   - slashing's window is missedBlocksWindow, its minimum signed share
//     (window − maxMissedBlocks) / window, the jail time restakeCooldown,
//     and the slash fractions the nodeRefuted (double sign) and
//     syncTimeout (downtime) penalties;
//   - a validator's unbonding height and time, and its signing record's
//     start height, come from its bonding record (when it last joined and
//     left the active set); unbonding ids number the unbonding queue;
//   - what the native state does not keep reads zero: a limit on
//     unbonding entries, historical entries, a minimum commission rate,
//     and tombstones (a double signer is jailed, not banned).

// native adapts the chain's staking and governance readers to the
// Cosmos modules' views. Every read of one query is of the same block,
// the head when the query began, so an answer made of several reads (a
// validator and its delegations) is consistent even while blocks arrive.
type native struct {
	s  backend.Staking
	g  backend.Governance
	at *uint64 // block read; nil: the head at each read
}

// native returns the views over the chain's staking state; Unavailable
// when the chain has none.
func (q *Querier) native(ctx context.Context) (native, error) {
	s := q.b.Staking
	if s == nil || !s.StakingEnabled() {
		return native{}, backend.ErrUnavailable
	}
	n := native{s: s, g: q.b.Governance}
	if q.b.Blocks != nil {
		h := q.heightOf(ctx)
		n.at = &h
	}
	return n, nil
}

// gov is native with the governance reader it needs.
func (q *Querier) gov(ctx context.Context) (native, error) {
	n, err := q.native(ctx)
	if err == nil && n.g == nil {
		err = backend.ErrUnavailable
	}
	return n, err
}

var (
	decUnit = uint256.NewInt(1_000_000_000_000_000_000) // 1 as a Dec
	ppmUnit = uint256.NewInt(1_000_000_000_000)         // 1 ppm as a Dec
)

// dec turns an integer amount into a Dec; nil reads as zero.
func dec(x *uint256.Int) *uint256.Int {
	if x == nil {
		return new(uint256.Int)
	}
	return new(uint256.Int).Mul(x, decUnit)
}

// ppmDec turns parts per million into a Dec.
func ppmDec(ppm uint64) *uint256.Int { return new(uint256.Int).Mul(uint256.NewInt(ppm), ppmUnit) }

func zeroIfNil(x *uint256.Int) *uint256.Int {
	if x == nil {
		return new(uint256.Int)
	}
	return x
}

// epoch is the time Cosmos shows for a validator that never unbonded and
// one never jailed.
var epoch = time.Unix(0, 0).UTC()

// unixTime is Unix seconds s as a time; 0 (not yet) is the zero time, as
// Cosmos shows a proposal's voting times before voting.
func unixTime(s uint64) time.Time {
	if s == 0 {
		return time.Time{}
	}
	return time.Unix(int64(s), 0).UTC()
}

func millis(ms uint64) time.Duration { return time.Duration(ms) * time.Millisecond }

// nativeErr maps the native "no such thing" errors to backend.ErrNotFound
// itself, which the handlers word as the Cosmos SDK does, and a chain
// without staking to ErrUnavailable.
func nativeErr(err error) error {
	if errors.Is(err, backend.ErrValidatorNotFound) || errors.Is(err, backend.ErrProposalNotFound) {
		return backend.ErrNotFound
	}
	if errors.Is(err, backend.ErrStakingDisabled) {
		return fmt.Errorf("%w: %v", backend.ErrUnavailable, err)
	}
	return err
}

func bondStatusOf(status string) vBondStatus {
	switch status {
	case "active":
		return statusBonded
	case "jailed":
		return statusUnbonding
	}
	return statusUnbonded
}

func cosmosValidator(v backend.StakingValidator) vValidator {
	cv := vValidator{
		Operator: v.Operator, ConsensusPubKey: v.ConsensusPubkey, Jailed: v.Jailed, Status: bondStatusOf(v.Status),
		Tokens: zeroIfNil(v.Tokens), DelegatorShares: dec(v.Shares),
		Description: vDescription{Moniker: v.Moniker, Identity: v.Identity, Website: v.Website,
			SecurityContact: v.SecurityContact, Details: v.Details},
		Commission: vCommission{Rate: zeroIfNil(v.CommissionRate), MaxRate: zeroIfNil(v.MaxRate),
			MaxChangeRate: zeroIfNil(v.MaxChangeRate), UpdateTime: unixTime(v.CommissionUpdated)},
		MinSelfDelegation: zeroIfNil(v.MinSelfDelegation), UnbondingTime: epoch,
	}
	switch {
	case v.UnbondingHeight != 0:
		// It left the active set at that block; its stake, had it been
		// taken out then, was free after the cooldown.
		cv.UnbondingHeight, cv.UnbondingTime = int64(v.UnbondingHeight), unixTime(v.UnbondingEnd)
	case v.Jailed:
		// Jailed without having left the set on record (before it ever
		// became active): it waits out its jail.
		cv.UnbondingTime = unixTime(v.JailedUntil)
	}
	return cv
}

func (n native) StakingValidators() ([]vValidator, error) {
	vs, err := n.s.StakingValidators(n.at)
	if err != nil {
		return nil, nativeErr(err)
	}
	out := make([]vValidator, 0, len(vs))
	for _, v := range vs {
		out = append(out, cosmosValidator(v))
	}
	sort.Slice(out, func(i, j int) bool { return lessAddr(out[i].Operator, out[j].Operator) })
	return out, nil
}

func (n native) StakingValidator(op types.Address) (vValidator, error) {
	v, err := n.s.StakingValidator(n.at, op)
	if err != nil {
		return vValidator{}, nativeErr(err)
	}
	return cosmosValidator(*v), nil
}

func cosmosDelegations(ds []backend.StakingDelegation, byDelegator bool) []vDelegation {
	out := make([]vDelegation, 0, len(ds))
	for _, d := range ds {
		out = append(out, vDelegation{Delegator: d.Delegator, Validator: d.Validator,
			Shares: dec(d.Shares), Balance: zeroIfNil(d.Amount)})
	}
	sort.Slice(out, func(i, j int) bool {
		if byDelegator {
			return lessAddr(out[i].Delegator, out[j].Delegator)
		}
		return lessAddr(out[i].Validator, out[j].Validator)
	})
	return out
}

func (n native) Delegations(d types.Address) ([]vDelegation, error) {
	ds, err := n.s.DelegatorDelegations(n.at, d)
	if err != nil {
		return nil, nativeErr(err)
	}
	return cosmosDelegations(ds, false), nil
}

func (n native) ValidatorDelegations(op types.Address) ([]vDelegation, error) {
	if _, err := n.s.StakingValidator(n.at, op); err != nil {
		return nil, nativeErr(err)
	}
	ds, err := n.s.ValidatorDelegations(n.at, op)
	if err != nil {
		return nil, nativeErr(err)
	}
	return cosmosDelegations(ds, true), nil
}

// Unbondings groups the delegator's pending entries per validator, each
// group's entries in the order they were started.
func (n native) Unbondings(d types.Address) ([]vUnbonding, error) {
	es, err := n.s.UnbondingDelegations(n.at, &d)
	if err != nil {
		return nil, nativeErr(err)
	}
	out := unbondingGroups(es, nil)
	sort.Slice(out, func(i, j int) bool { return lessAddr(out[i].Validator, out[j].Validator) })
	return out, nil
}

// ValidatorUnbondings groups the pending entries out of validator op per
// delegator, sorted by delegator; ErrNotFound for an unknown validator.
func (n native) ValidatorUnbondings(op types.Address) ([]vUnbonding, error) {
	if _, err := n.s.StakingValidator(n.at, op); err != nil {
		return nil, nativeErr(err)
	}
	es, err := n.s.UnbondingDelegations(n.at, nil)
	if err != nil {
		return nil, nativeErr(err)
	}
	out := unbondingGroups(es, &op)
	sort.Slice(out, func(i, j int) bool { return lessAddr(out[i].Delegator, out[j].Delegator) })
	return out, nil
}

// unbondingGroups groups entries (those out of validator only, when
// given) per delegator and validator, in the order the groups first
// appear and each group's entries in the order they were started.
func unbondingGroups(es []backend.UnbondingEntry, validator *types.Address) []vUnbonding {
	type pair struct{ d, v types.Address }
	var out []vUnbonding
	at := map[pair]int{}
	for _, e := range es {
		if validator != nil && e.Validator != *validator {
			continue
		}
		k := pair{e.Delegator, e.Validator}
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, vUnbonding{Delegator: e.Delegator, Validator: e.Validator})
		}
		amount := zeroIfNil(e.Amount)
		out[i].Entries = append(out[i].Entries, vUnbondingEntry{UnbondingID: e.ID,
			CreationHeight: int64(e.CreationHeight), CompletionTime: unixTime(e.CompletionTime),
			InitialBalance: amount, Balance: amount})
	}
	return out
}

func (n native) params() (*backend.StakingParams, error) {
	p, err := n.s.StakingParams(n.at)
	if err != nil {
		return nil, nativeErr(err)
	}
	return p, nil
}

// StakingParams: no limit on unbonding entries (0), no historical info
// kept (0), and no minimum commission rate (0) exist natively.
func (n native) StakingParams() (vStakingParams, error) {
	p, err := n.params()
	if err != nil {
		return vStakingParams{}, err
	}
	return vStakingParams{UnbondingTime: millis(p.RestakeCooldown), MaxValidators: uint32(min(p.Desired, 1<<32-1)),
		MinCommissionRate: new(uint256.Int)}, nil
}

// StakingPool: the tokens of active validators are bonded; those of the
// others and those unbonding are not.
func (n native) StakingPool() (bonded, notBonded *uint256.Int, err error) {
	vs, err := n.s.StakingValidators(n.at)
	if err != nil {
		return nil, nil, nativeErr(err)
	}
	bonded, notBonded = new(uint256.Int), new(uint256.Int)
	for _, v := range vs {
		if bondStatusOf(v.Status) == statusBonded {
			bonded.Add(bonded, zeroIfNil(v.Tokens))
		} else {
			notBonded.Add(notBonded, zeroIfNil(v.Tokens))
		}
	}
	es, err := n.s.UnbondingDelegations(n.at, nil)
	if err != nil {
		return nil, nil, nativeErr(err)
	}
	for _, e := range es {
		notBonded.Add(notBonded, zeroIfNil(e.Amount))
	}
	return bonded, notBonded, nil
}

func (n native) DelegationRewards(d, v types.Address) (*uint256.Int, error) {
	ds, err := n.s.DelegatorDelegations(n.at, d)
	if err != nil {
		return nil, nativeErr(err)
	}
	for _, x := range ds {
		if x.Validator == v {
			return dec(x.Rewards), nil
		}
	}
	return nil, backend.ErrNotFound
}

func (n native) DelegatorRewards(d types.Address) ([]vReward, error) {
	ds, err := n.s.DelegatorDelegations(n.at, d)
	if err != nil {
		return nil, nativeErr(err)
	}
	out := make([]vReward, 0, len(ds))
	for _, x := range ds {
		out = append(out, vReward{Validator: x.Validator, Reward: dec(x.Rewards)})
	}
	sort.Slice(out, func(i, j int) bool { return lessAddr(out[i].Validator, out[j].Validator) })
	return out, nil
}

func (n native) AccumulatedCommission(op types.Address) (*uint256.Int, error) {
	v, err := n.s.StakingValidator(n.at, op)
	if err != nil {
		return nil, nativeErr(err)
	}
	return dec(v.UnpaidCommission), nil
}

// OutstandingRewards is the validator's unpaid commission plus what its
// delegators can withdraw.
func (n native) OutstandingRewards(op types.Address) (*uint256.Int, error) {
	v, err := n.s.StakingValidator(n.at, op)
	if err != nil {
		return nil, nativeErr(err)
	}
	ds, err := n.s.ValidatorDelegations(n.at, op)
	if err != nil {
		return nil, nativeErr(err)
	}
	total := new(uint256.Int).Set(zeroIfNil(v.UnpaidCommission))
	for _, d := range ds {
		total.Add(total, zeroIfNil(d.Rewards))
	}
	return dec(total), nil
}

func (n native) CommunityPool() (*uint256.Int, error) {
	s, err := n.s.Supply(n.at)
	if err != nil {
		return nil, nativeErr(err)
	}
	return dec(s.CommunityPool), nil
}

// DistributionParams: no community tax or proposer bonus is taken
// natively; delegators may set a withdraw address.
func (n native) DistributionParams() (vDistributionParams, error) {
	if _, err := n.params(); err != nil {
		return vDistributionParams{}, err
	}
	return vDistributionParams{CommunityTax: new(uint256.Int), BaseProposerReward: new(uint256.Int),
		BonusProposerReward: new(uint256.Int), WithdrawAddrEnabled: true}, nil
}

// TotalSupply is the supply the staking state keeps exactly (genesis,
// plus minted rewards, minus burned fees and penalties) after block h.
func (n native) TotalSupply(h *types.Header) (*uint256.Int, error) {
	num := h.Number
	s, err := n.s.Supply(&num)
	if err != nil {
		return nil, nativeErr(err)
	}
	return zeroIfNil(s.Total), nil
}

func proposalStatusOf(s string) vProposalStatus {
	switch s {
	case "deposit_period":
		return propDepositPeriod
	case "voting_period":
		return propVotingPeriod
	case "passed":
		return propPassed
	case "failed":
		return propFailed
	}
	// rejected, and dropped (its deposit period ended short of the
	// minimum deposit), which Cosmos counts as rejected too.
	return propRejected
}

func cosmosTally(t *backend.Tally) vTally {
	return vTally{Yes: zeroIfNil(t.Yes), Abstain: zeroIfNil(t.Abstain), No: zeroIfNil(t.No), NoWithVeto: zeroIfNil(t.NoWithVeto)}
}

func (n native) cosmosProposal(p backend.Proposal) (vProposal, error) {
	cp := vProposal{ID: p.ID, Title: p.Title, Description: p.Description, Proposer: p.Proposer, Status: proposalStatusOf(p.Status),
		SubmitTime: unixTime(p.SubmitTime), DepositEndTime: unixTime(p.DepositEnd), TotalDeposit: zeroIfNil(p.TotalDeposit),
		VotingStartTime: unixTime(p.VotingStart), VotingEndTime: unixTime(p.VotingEnd),
		Changes: p.Changes, Plan: p.Plan,
		FinalTally: vTally{Yes: new(uint256.Int), Abstain: new(uint256.Int), No: new(uint256.Int), NoWithVeto: new(uint256.Int)}}
	if cp.Status != propDepositPeriod && cp.Status != propVotingPeriod {
		t, err := n.g.ProposalTally(n.at, p.ID)
		if err != nil {
			return cp, nativeErr(err)
		}
		cp.FinalTally = cosmosTally(t)
	}
	return cp, nil
}

func (n native) Proposals() ([]vProposal, error) {
	ps, err := n.g.Proposals(n.at)
	if err != nil {
		return nil, nativeErr(err)
	}
	out := make([]vProposal, 0, len(ps))
	for _, p := range ps {
		cp, err := n.cosmosProposal(p)
		if err != nil {
			return nil, err
		}
		out = append(out, cp)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}

func (n native) Proposal(id uint64) (vProposal, error) {
	p, err := n.g.Proposal(n.at, id)
	if err != nil {
		return vProposal{}, nativeErr(err)
	}
	return n.cosmosProposal(*p)
}

// Votes turns each voter's per-million weights into weighted options.
func (n native) Votes(id uint64) ([]vVote, error) {
	vs, err := n.g.ProposalVotes(n.at, id)
	if err != nil {
		return nil, nativeErr(err)
	}
	out := make([]vVote, 0, len(vs))
	for _, v := range vs {
		vote := vVote{ProposalID: id, Voter: v.Voter}
		for _, o := range []struct {
			opt vVoteOption
			ppm uint64
		}{{optYes, v.Yes}, {optAbstain, v.Abstain}, {optNo, v.No}, {optNoWithVeto, v.NoWithVeto}} {
			if o.ppm != 0 {
				vote.Options = append(vote.Options, vWeightedVote{Option: o.opt, Weight: ppmDec(o.ppm)})
			}
		}
		out = append(out, vote)
	}
	sort.Slice(out, func(i, j int) bool { return lessAddr(out[i].Voter, out[j].Voter) })
	return out, nil
}

func (n native) Deposits(id uint64) ([]vDeposit, error) {
	ds, err := n.g.ProposalDeposits(n.at, id)
	if err != nil {
		return nil, nativeErr(err)
	}
	out := make([]vDeposit, 0, len(ds))
	for _, d := range ds {
		out = append(out, vDeposit{ProposalID: id, Depositor: d.Depositor, Amount: zeroIfNil(d.Amount)})
	}
	sort.Slice(out, func(i, j int) bool { return lessAddr(out[i].Depositor, out[j].Depositor) })
	return out, nil
}

func (n native) Tally(id uint64) (vTally, error) {
	t, err := n.g.ProposalTally(n.at, id)
	if err != nil {
		return vTally{}, nativeErr(err)
	}
	return cosmosTally(t), nil
}

func (n native) GovParams() (vGovParams, error) {
	p, err := n.params()
	if err != nil {
		return vGovParams{}, err
	}
	return vGovParams{MinDeposit: zeroIfNil(p.MinDeposit), MaxDepositPeriod: millis(p.DepositPeriod),
		VotingPeriod: millis(p.VotingPeriod), Quorum: ppmDec(p.QuorumPPM), Threshold: ppmDec(p.ThresholdPPM),
		VetoThreshold: ppmDec(p.VetoPPM)}, nil
}

// signingInfo is a validator's liveness record. Its start height is the
// block at whose end the validator last became active, and its index
// offset the blocks since then that it stayed active (up to the block
// read, or to the block it left). The native state keeps no tombstone (a
// double signer is jailed, not banned), so that reads false.
func (n native) signingInfo(v backend.StakingValidator) vSigningInfo {
	si := vSigningInfo{Address: v.ConsensusAddress, StartHeight: int64(v.StartHeight),
		MissedBlocksCounter: int64(v.MissedBlocks), JailedUntil: epoch}
	if v.Jailed {
		si.JailedUntil = unixTime(v.JailedUntil)
	}
	end := v.StartHeight
	switch {
	case bondStatusOf(v.Status) == statusBonded && n.at != nil:
		end = *n.at
	case v.UnbondingHeight > v.StartHeight:
		end = v.UnbondingHeight
	}
	if end > v.StartHeight {
		si.IndexOffset = int64(end - v.StartHeight)
	}
	return si
}

func (n native) SigningInfos() ([]vSigningInfo, error) {
	vs, err := n.s.StakingValidators(n.at)
	if err != nil {
		return nil, nativeErr(err)
	}
	out := make([]vSigningInfo, 0, len(vs))
	for _, v := range vs {
		out = append(out, n.signingInfo(v))
	}
	sort.Slice(out, func(i, j int) bool { return lessAddr(out[i].Address, out[j].Address) })
	return out, nil
}

func (n native) SigningInfo(cons types.Address) (vSigningInfo, error) {
	vs, err := n.s.StakingValidators(n.at)
	if err != nil {
		return vSigningInfo{}, nativeErr(err)
	}
	for _, v := range vs {
		if v.ConsensusAddress == cons {
			return n.signingInfo(v), nil
		}
	}
	return vSigningInfo{}, backend.ErrNotFound
}

func (n native) SlashingRules() (vSlashingRules, error) {
	p, err := n.params()
	if err != nil {
		return vSlashingRules{}, err
	}
	minSigned := new(uint256.Int)
	if w := p.MissedBlocksWindow; w != 0 && p.MaxMissedBlocks <= w {
		minSigned.MulDivOverflow(uint256.NewInt(w-p.MaxMissedBlocks), decUnit, uint256.NewInt(w))
	}
	return vSlashingRules{SignedBlocksWindow: int64(p.MissedBlocksWindow), MinSignedPerWindow: minSigned,
		DowntimeJailDuration: millis(p.RestakeCooldown), SlashFractionDoubleSign: ppmDec(p.NodeRefutedPenaltyPPM),
		SlashFractionDowntime: ppmDec(p.SyncTimeoutPenaltyPPM)}, nil
}

func lessAddr(a, b types.Address) bool { return string(a[:]) < string(b[:]) }
