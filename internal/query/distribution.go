package query

import (
	"context"

	"github.com/chaind/chaind/internal/protobuf"
	"github.com/holiman/uint256"
)

type DelegationDelegatorReward struct {
	ValidatorAddress string    `pb:"1,validator_address"`
	Reward           []DecCoin `pb:"2,reward"`
}

func (DelegationDelegatorReward) ProtoName() string {
	return "cosmos.distribution.v1beta1.DelegationDelegatorReward"
}

type ValidatorAccumulatedCommission struct {
	Commission []DecCoin `pb:"1,commission"`
}

func (ValidatorAccumulatedCommission) ProtoName() string {
	return "cosmos.distribution.v1beta1.ValidatorAccumulatedCommission"
}

type ValidatorOutstandingRewards struct {
	Rewards []DecCoin `pb:"1,rewards"`
}

func (ValidatorOutstandingRewards) ProtoName() string {
	return "cosmos.distribution.v1beta1.ValidatorOutstandingRewards"
}

type DistributionParams struct {
	CommunityTax        Dec  `pb:"1,community_tax"`
	BaseProposerReward  Dec  `pb:"2,base_proposer_reward"`
	BonusProposerReward Dec  `pb:"3,bonus_proposer_reward"`
	WithdrawAddrEnabled bool `pb:"4,withdraw_addr_enabled"`
}

func (DistributionParams) ProtoName() string { return "cosmos.distribution.v1beta1.Params" }

type QueryDelegationRewardsRequest struct {
	DelegatorAddress string `pb:"1,delegator_address"`
	ValidatorAddress string `pb:"2,validator_address"`
}

func (QueryDelegationRewardsRequest) ProtoName() string {
	return "cosmos.distribution.v1beta1.QueryDelegationRewardsRequest"
}

type QueryDelegationRewardsResponse struct {
	Rewards []DecCoin `pb:"1,rewards"`
}

func (QueryDelegationRewardsResponse) ProtoName() string {
	return "cosmos.distribution.v1beta1.QueryDelegationRewardsResponse"
}

type QueryDelegationTotalRewardsRequest struct {
	DelegatorAddress string `pb:"1,delegator_address"`
}

func (QueryDelegationTotalRewardsRequest) ProtoName() string {
	return "cosmos.distribution.v1beta1.QueryDelegationTotalRewardsRequest"
}

type QueryDelegationTotalRewardsResponse struct {
	Rewards []DelegationDelegatorReward `pb:"1,rewards"`
	Total   []DecCoin                   `pb:"2,total"`
}

func (QueryDelegationTotalRewardsResponse) ProtoName() string {
	return "cosmos.distribution.v1beta1.QueryDelegationTotalRewardsResponse"
}

type QueryValidatorCommissionRequest struct {
	ValidatorAddress string `pb:"1,validator_address"`
}

func (QueryValidatorCommissionRequest) ProtoName() string {
	return "cosmos.distribution.v1beta1.QueryValidatorCommissionRequest"
}

type QueryValidatorCommissionResponse struct {
	Commission ValidatorAccumulatedCommission `pb:"1,commission"`
}

func (QueryValidatorCommissionResponse) ProtoName() string {
	return "cosmos.distribution.v1beta1.QueryValidatorCommissionResponse"
}

type QueryValidatorOutstandingRewardsRequest struct {
	ValidatorAddress string `pb:"1,validator_address"`
}

func (QueryValidatorOutstandingRewardsRequest) ProtoName() string {
	return "cosmos.distribution.v1beta1.QueryValidatorOutstandingRewardsRequest"
}

type QueryValidatorOutstandingRewardsResponse struct {
	Rewards ValidatorOutstandingRewards `pb:"1,rewards"`
}

func (QueryValidatorOutstandingRewardsResponse) ProtoName() string {
	return "cosmos.distribution.v1beta1.QueryValidatorOutstandingRewardsResponse"
}

type QueryDistributionParamsRequest struct{}

func (QueryDistributionParamsRequest) ProtoName() string {
	return "cosmos.distribution.v1beta1.QueryParamsRequest"
}

type QueryDistributionParamsResponse struct {
	Params DistributionParams `pb:"1,params"`
}

func (QueryDistributionParamsResponse) ProtoName() string {
	return "cosmos.distribution.v1beta1.QueryParamsResponse"
}

type QueryCommunityPoolRequest struct{}

func (QueryCommunityPoolRequest) ProtoName() string {
	return "cosmos.distribution.v1beta1.QueryCommunityPoolRequest"
}

type QueryCommunityPoolResponse struct {
	Pool []DecCoin `pb:"1,pool"`
}

func (QueryCommunityPoolResponse) ProtoName() string {
	return "cosmos.distribution.v1beta1.QueryCommunityPoolResponse"
}

func distributionService() *Service {
	return serviceFile("cosmos/distribution/v1beta1/query.proto", "cosmos.distribution.v1beta1.Query",
		append([]protobuf.Message{DelegationDelegatorReward{}, ValidatorAccumulatedCommission{}, ValidatorOutstandingRewards{}, DistributionParams{},
			QueryDelegationRewardsRequest{}, QueryDelegationRewardsResponse{},
			QueryDelegationTotalRewardsRequest{}, QueryDelegationTotalRewardsResponse{},
			QueryValidatorCommissionRequest{}, QueryValidatorCommissionResponse{},
			QueryValidatorOutstandingRewardsRequest{}, QueryValidatorOutstandingRewardsResponse{},
			QueryDistributionParamsRequest{}, QueryDistributionParamsResponse{},
			QueryCommunityPoolRequest{}, QueryCommunityPoolResponse{}}, append(distDelegatorMessages, slashMessages...)...),
		nil,
		append([]*Method{
			method("DelegationRewards", "/cosmos/distribution/v1beta1/delegators/{delegator_address}/rewards/{validator_address}", (*Querier).DelegationRewards),
			method("DelegationTotalRewards", "/cosmos/distribution/v1beta1/delegators/{delegator_address}/rewards", (*Querier).DelegationTotalRewards),
			method("ValidatorCommission", "/cosmos/distribution/v1beta1/validators/{validator_address}/commission", (*Querier).ValidatorCommission),
			method("ValidatorOutstandingRewards", "/cosmos/distribution/v1beta1/validators/{validator_address}/outstanding_rewards", (*Querier).ValidatorOutstandingRewards),
			method("Params", "/cosmos/distribution/v1beta1/params", (*Querier).DistributionParams),
			method("CommunityPool", "/cosmos/distribution/v1beta1/community_pool", (*Querier).CommunityPool),
		}, append(distDelegatorMethods(), slashMethod())...))
}

// DelegationRewards are the rewards one delegation has accrued.
func (q *Querier) DelegationRewards(ctx context.Context, r *QueryDelegationRewardsRequest) (*QueryDelegationRewardsResponse, error) {
	del, err := parseAddress(AccountPrefix, "delegator address", r.DelegatorAddress)
	if err != nil {
		return nil, err
	}
	op, err := parseAddress(ValidatorPrefix, "validator address", r.ValidatorAddress)
	if err != nil {
		return nil, err
	}
	d, err := q.native(ctx)
	if err != nil {
		return nil, err
	}
	x, err := d.DelegationRewards(del, op)
	if err != nil {
		return nil, notFound(err, "delegation does not exist")
	}
	return &QueryDelegationRewardsResponse{Rewards: decCoins(x)}, nil
}

// DelegationTotalRewards lists a delegator's rewards per validator and
// their total.
func (q *Querier) DelegationTotalRewards(ctx context.Context, r *QueryDelegationTotalRewardsRequest) (*QueryDelegationTotalRewardsResponse, error) {
	del, err := parseAddress(AccountPrefix, "delegator address", r.DelegatorAddress)
	if err != nil {
		return nil, err
	}
	d, err := q.native(ctx)
	if err != nil {
		return nil, err
	}
	rs, err := d.DelegatorRewards(del)
	if err != nil {
		return nil, err
	}
	out := &QueryDelegationTotalRewardsResponse{Rewards: make([]DelegationDelegatorReward, len(rs))}
	total := new(uint256.Int)
	for i, rw := range rs {
		out.Rewards[i] = DelegationDelegatorReward{ValidatorAddress: valAddr(rw.Validator), Reward: decCoins(rw.Reward)}
		if rw.Reward != nil {
			total.Add(total, rw.Reward)
		}
	}
	out.Total = decCoins(total)
	return out, nil
}

// ValidatorCommission is a validator's accumulated commission.
func (q *Querier) ValidatorCommission(ctx context.Context, r *QueryValidatorCommissionRequest) (*QueryValidatorCommissionResponse, error) {
	op, err := parseAddress(ValidatorPrefix, "validator address", r.ValidatorAddress)
	if err != nil {
		return nil, err
	}
	d, err := q.native(ctx)
	if err != nil {
		return nil, err
	}
	x, err := d.AccumulatedCommission(op)
	if err != nil {
		return nil, notFound(err, "validator %s does not exist", r.ValidatorAddress)
	}
	return &QueryValidatorCommissionResponse{Commission: ValidatorAccumulatedCommission{Commission: decCoins(x)}}, nil
}

// ValidatorOutstandingRewards are a validator's unwithdrawn rewards.
func (q *Querier) ValidatorOutstandingRewards(ctx context.Context, r *QueryValidatorOutstandingRewardsRequest) (*QueryValidatorOutstandingRewardsResponse, error) {
	op, err := parseAddress(ValidatorPrefix, "validator address", r.ValidatorAddress)
	if err != nil {
		return nil, err
	}
	d, err := q.native(ctx)
	if err != nil {
		return nil, err
	}
	x, err := d.OutstandingRewards(op)
	if err != nil {
		return nil, notFound(err, "validator %s does not exist", r.ValidatorAddress)
	}
	return &QueryValidatorOutstandingRewardsResponse{Rewards: ValidatorOutstandingRewards{Rewards: decCoins(x)}}, nil
}

// DistributionParams returns the distribution parameters.
func (q *Querier) DistributionParams(ctx context.Context, _ *QueryDistributionParamsRequest) (*QueryDistributionParamsResponse, error) {
	d, err := q.native(ctx)
	if err != nil {
		return nil, err
	}
	p, err := d.DistributionParams()
	if err != nil {
		return nil, err
	}
	return &QueryDistributionParamsResponse{Params: DistributionParams{CommunityTax: DecOf(p.CommunityTax),
		BaseProposerReward: DecOf(p.BaseProposerReward), BonusProposerReward: DecOf(p.BonusProposerReward),
		WithdrawAddrEnabled: p.WithdrawAddrEnabled}}, nil
}

// CommunityPool is the community pool's balance.
func (q *Querier) CommunityPool(ctx context.Context, _ *QueryCommunityPoolRequest) (*QueryCommunityPoolResponse, error) {
	d, err := q.native(ctx)
	if err != nil {
		return nil, err
	}
	x, err := d.CommunityPool()
	if err != nil {
		return nil, err
	}
	return &QueryCommunityPoolResponse{Pool: decCoins(x)}, nil
}
