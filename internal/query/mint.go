package query

import (
	"context"
	"time"

	"github.com/chaind/chaind/internal/protobuf"
	"github.com/holiman/uint256"
)

// The mint module's queries, answered from the reward parameters: chaind
// mints no fixed inflation; each active, unjailed validator earns
// reward.amount per nodeRewardInterval, minted when a cycle ends (the
// maintenance fee taken from it goes to the community pool, so it is
// minted all the same). Over a year (8,766 hours, the SDK's) that is
//
//	annual_provisions = reward × year / nodeRewardInterval × active validators
//	inflation         = annual_provisions / total supply
//
// both at the block read. The rate does not move toward a bonded ratio,
// so inflation_max and inflation_min are that inflation,
// inflation_rate_change and goal_bonded are 0, and blocks_per_year is the
// year over the node's target block time.

// year is the SDK's year: 8,766 hours (365.25 days).
const year = 8766 * time.Hour

type MintParams struct {
	MintDenom           string `pb:"1,mint_denom"`
	InflationRateChange Dec    `pb:"2,inflation_rate_change"`
	InflationMax        Dec    `pb:"3,inflation_max"`
	InflationMin        Dec    `pb:"4,inflation_min"`
	GoalBonded          Dec    `pb:"5,goal_bonded"`
	BlocksPerYear       uint64 `pb:"6,blocks_per_year"`
}

func (MintParams) ProtoName() string { return "cosmos.mint.v1beta1.Params" }

type QueryMintParamsRequest struct{}

func (QueryMintParamsRequest) ProtoName() string { return "cosmos.mint.v1beta1.QueryParamsRequest" }

type QueryMintParamsResponse struct {
	Params MintParams `pb:"1,params"`
}

func (QueryMintParamsResponse) ProtoName() string { return "cosmos.mint.v1beta1.QueryParamsResponse" }

type QueryInflationRequest struct{}

func (QueryInflationRequest) ProtoName() string { return "cosmos.mint.v1beta1.QueryInflationRequest" }

// QueryInflationResponse's decimal is proto bytes holding its wire text.
type QueryInflationResponse struct {
	Inflation DecBytes `pb:"1,inflation"`
}

func (QueryInflationResponse) ProtoName() string { return "cosmos.mint.v1beta1.QueryInflationResponse" }

type QueryAnnualProvisionsRequest struct{}

func (QueryAnnualProvisionsRequest) ProtoName() string {
	return "cosmos.mint.v1beta1.QueryAnnualProvisionsRequest"
}

type QueryAnnualProvisionsResponse struct {
	AnnualProvisions DecBytes `pb:"1,annual_provisions"`
}

func (QueryAnnualProvisionsResponse) ProtoName() string {
	return "cosmos.mint.v1beta1.QueryAnnualProvisionsResponse"
}

func mintService() *Service {
	return serviceFile("cosmos/mint/v1beta1/query.proto", "cosmos.mint.v1beta1.Query",
		[]protobuf.Message{MintParams{}, QueryMintParamsRequest{}, QueryMintParamsResponse{}, QueryInflationRequest{}, QueryInflationResponse{},
			QueryAnnualProvisionsRequest{}, QueryAnnualProvisionsResponse{}},
		nil,
		[]*Method{
			method("Params", "/cosmos/mint/v1beta1/params", (*Querier).MintParams),
			method("Inflation", "/cosmos/mint/v1beta1/inflation", (*Querier).Inflation),
			method("AnnualProvisions", "/cosmos/mint/v1beta1/annual_provisions", (*Querier).AnnualProvisions),
		})
}

// minting is what the reward parameters mint in a year, in base units,
// and that as a share of the supply (a Dec), at the block read.
func (q *Querier) minting(ctx context.Context) (annual, inflation *uint256.Int, err error) {
	n, err := q.native(ctx)
	if err != nil {
		return nil, nil, err
	}
	p, err := n.params()
	if err != nil {
		return nil, nil, err
	}
	vs, err := n.StakingValidators()
	if err != nil {
		return nil, nil, err
	}
	earning := uint64(0)
	for _, v := range vs {
		if v.Status == statusBonded && !v.Jailed {
			earning++
		}
	}
	annual = new(uint256.Int)
	if p.NodeRewardInterval != 0 && p.Reward != nil {
		annual.MulDivOverflow(p.Reward, uint256.NewInt(uint64(year/time.Millisecond)), uint256.NewInt(p.NodeRewardInterval))
		annual.Mul(annual, uint256.NewInt(earning))
	}
	h, _, err := q.at(ctx)
	if err != nil {
		return nil, nil, err
	}
	supply, err := n.TotalSupply(h)
	if err != nil {
		return nil, nil, err
	}
	inflation = new(uint256.Int)
	if !supply.IsZero() {
		inflation.MulDivOverflow(annual, decUnit, supply)
	}
	return annual, inflation, nil
}

// MintParams returns the mint parameters the reward parameters amount to.
func (q *Querier) MintParams(ctx context.Context, _ *QueryMintParamsRequest) (*QueryMintParamsResponse, error) {
	_, inflation, err := q.minting(ctx)
	if err != nil {
		return nil, err
	}
	p := MintParams{MintDenom: Denom, InflationMax: DecOf(inflation), InflationMin: DecOf(inflation)}
	if q.b.BlockTime > 0 {
		p.BlocksPerYear = uint64(year / q.b.BlockTime)
	}
	return &QueryMintParamsResponse{Params: p}, nil
}

// Inflation is a year's minting as a share of the supply.
func (q *Querier) Inflation(ctx context.Context, _ *QueryInflationRequest) (*QueryInflationResponse, error) {
	_, inflation, err := q.minting(ctx)
	if err != nil {
		return nil, err
	}
	return &QueryInflationResponse{Inflation: DecBytes{DecOf(inflation)}}, nil
}

// AnnualProvisions is a year's minting in base units.
func (q *Querier) AnnualProvisions(ctx context.Context, _ *QueryAnnualProvisionsRequest) (*QueryAnnualProvisionsResponse, error) {
	annual, _, err := q.minting(ctx)
	if err != nil {
		return nil, err
	}
	return &QueryAnnualProvisionsResponse{AnnualProvisions: DecBytes{DecFromInt(annual)}}, nil
}
