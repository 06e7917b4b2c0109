package query

import (
	"context"
	"time"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/types"
)

// BondStatus is cosmos.staking.v1beta1.BondStatus.
type BondStatus int32

func (BondStatus) EnumDescriptor() (string, []string) {
	return "cosmos.staking.v1beta1.BondStatus",
		[]string{"BOND_STATUS_UNSPECIFIED", "BOND_STATUS_UNBONDED", "BOND_STATUS_UNBONDING", "BOND_STATUS_BONDED"}
}

func bondStatus(s vBondStatus) BondStatus {
	switch s {
	case statusUnbonded:
		return 1
	case statusUnbonding:
		return 2
	case statusBonded:
		return 3
	}
	return 0
}

type Description struct {
	Moniker         string `pb:"1,moniker"`
	Identity        string `pb:"2,identity"`
	Website         string `pb:"3,website"`
	SecurityContact string `pb:"4,security_contact"`
	Details         string `pb:"5,details"`
}

func (Description) ProtoName() string { return "cosmos.staking.v1beta1.Description" }

type CommissionRates struct {
	Rate          Dec `pb:"1,rate"`
	MaxRate       Dec `pb:"2,max_rate"`
	MaxChangeRate Dec `pb:"3,max_change_rate"`
}

func (CommissionRates) ProtoName() string { return "cosmos.staking.v1beta1.CommissionRates" }

type Commission struct {
	CommissionRates CommissionRates `pb:"1,commission_rates"`
	UpdateTime      time.Time       `pb:"2,update_time"`
}

func (Commission) ProtoName() string { return "cosmos.staking.v1beta1.Commission" }

// Validator is cosmos.staking.v1beta1.Validator in its v0.47/v0.50 shape.
type Validator struct {
	OperatorAddress         string        `pb:"1,operator_address"`
	ConsensusPubkey         *protobuf.Any `pb:"2,consensus_pubkey"`
	Jailed                  bool          `pb:"3,jailed"`
	Status                  BondStatus    `pb:"4,status"`
	Tokens                  Int           `pb:"5,tokens"`
	DelegatorShares         Dec           `pb:"6,delegator_shares"`
	Description             Description   `pb:"7,description"`
	UnbondingHeight         int64         `pb:"8,unbonding_height"`
	UnbondingTime           time.Time     `pb:"9,unbonding_time"`
	Commission              Commission    `pb:"10,commission"`
	MinSelfDelegation       Int           `pb:"11,min_self_delegation"`
	UnbondingOnHoldRefCount int64         `pb:"12,unbonding_on_hold_ref_count"`
	UnbondingIDs            []uint64      `pb:"13,unbonding_ids"`
}

func (Validator) ProtoName() string { return "cosmos.staking.v1beta1.Validator" }

type Delegation struct {
	DelegatorAddress string `pb:"1,delegator_address"`
	ValidatorAddress string `pb:"2,validator_address"`
	Shares           Dec    `pb:"3,shares"`
}

func (Delegation) ProtoName() string { return "cosmos.staking.v1beta1.Delegation" }

type DelegationResponse struct {
	Delegation Delegation `pb:"1,delegation"`
	Balance    Coin       `pb:"2,balance"`
}

func (DelegationResponse) ProtoName() string { return "cosmos.staking.v1beta1.DelegationResponse" }

type UnbondingDelegationEntry struct {
	CreationHeight          int64     `pb:"1,creation_height"`
	CompletionTime          time.Time `pb:"2,completion_time"`
	InitialBalance          Int       `pb:"3,initial_balance"`
	Balance                 Int       `pb:"4,balance"`
	UnbondingID             uint64    `pb:"5,unbonding_id"`
	UnbondingOnHoldRefCount int64     `pb:"6,unbonding_on_hold_ref_count"`
}

func (UnbondingDelegationEntry) ProtoName() string {
	return "cosmos.staking.v1beta1.UnbondingDelegationEntry"
}

type UnbondingDelegation struct {
	DelegatorAddress string                     `pb:"1,delegator_address"`
	ValidatorAddress string                     `pb:"2,validator_address"`
	Entries          []UnbondingDelegationEntry `pb:"3,entries"`
}

func (UnbondingDelegation) ProtoName() string { return "cosmos.staking.v1beta1.UnbondingDelegation" }

type StakingParams struct {
	UnbondingTime     time.Duration `pb:"1,unbonding_time"`
	MaxValidators     uint32        `pb:"2,max_validators"`
	MaxEntries        uint32        `pb:"3,max_entries"`
	HistoricalEntries uint32        `pb:"4,historical_entries"`
	BondDenom         string        `pb:"5,bond_denom"`
	MinCommissionRate Dec           `pb:"6,min_commission_rate"`
}

func (StakingParams) ProtoName() string { return "cosmos.staking.v1beta1.Params" }

type Pool struct {
	NotBondedTokens Int `pb:"1,not_bonded_tokens"`
	BondedTokens    Int `pb:"2,bonded_tokens"`
}

func (Pool) ProtoName() string { return "cosmos.staking.v1beta1.Pool" }

type QueryValidatorsRequest struct {
	Status     string       `pb:"1,status"`
	Pagination *PageRequest `pb:"2,pagination"`
}

func (QueryValidatorsRequest) ProtoName() string {
	return "cosmos.staking.v1beta1.QueryValidatorsRequest"
}

type QueryValidatorsResponse struct {
	Validators []Validator   `pb:"1,validators"`
	Pagination *PageResponse `pb:"2,pagination"`
}

func (QueryValidatorsResponse) ProtoName() string {
	return "cosmos.staking.v1beta1.QueryValidatorsResponse"
}

type QueryValidatorRequest struct {
	ValidatorAddr string `pb:"1,validator_addr"`
}

func (QueryValidatorRequest) ProtoName() string {
	return "cosmos.staking.v1beta1.QueryValidatorRequest"
}

type QueryValidatorResponse struct {
	Validator Validator `pb:"1,validator"`
}

func (QueryValidatorResponse) ProtoName() string {
	return "cosmos.staking.v1beta1.QueryValidatorResponse"
}

type QueryValidatorDelegationsRequest struct {
	ValidatorAddr string       `pb:"1,validator_addr"`
	Pagination    *PageRequest `pb:"2,pagination"`
}

func (QueryValidatorDelegationsRequest) ProtoName() string {
	return "cosmos.staking.v1beta1.QueryValidatorDelegationsRequest"
}

type QueryValidatorDelegationsResponse struct {
	DelegationResponses []DelegationResponse `pb:"1,delegation_responses"`
	Pagination          *PageResponse        `pb:"2,pagination"`
}

func (QueryValidatorDelegationsResponse) ProtoName() string {
	return "cosmos.staking.v1beta1.QueryValidatorDelegationsResponse"
}

type QueryDelegatorDelegationsRequest struct {
	DelegatorAddr string       `pb:"1,delegator_addr"`
	Pagination    *PageRequest `pb:"2,pagination"`
}

func (QueryDelegatorDelegationsRequest) ProtoName() string {
	return "cosmos.staking.v1beta1.QueryDelegatorDelegationsRequest"
}

type QueryDelegatorDelegationsResponse struct {
	DelegationResponses []DelegationResponse `pb:"1,delegation_responses"`
	Pagination          *PageResponse        `pb:"2,pagination"`
}

func (QueryDelegatorDelegationsResponse) ProtoName() string {
	return "cosmos.staking.v1beta1.QueryDelegatorDelegationsResponse"
}

type QueryDelegationRequest struct {
	DelegatorAddr string `pb:"1,delegator_addr"`
	ValidatorAddr string `pb:"2,validator_addr"`
}

func (QueryDelegationRequest) ProtoName() string {
	return "cosmos.staking.v1beta1.QueryDelegationRequest"
}

type QueryDelegationResponse struct {
	DelegationResponse *DelegationResponse `pb:"1,delegation_response"`
}

func (QueryDelegationResponse) ProtoName() string {
	return "cosmos.staking.v1beta1.QueryDelegationResponse"
}

type QueryDelegatorUnbondingDelegationsRequest struct {
	DelegatorAddr string       `pb:"1,delegator_addr"`
	Pagination    *PageRequest `pb:"2,pagination"`
}

func (QueryDelegatorUnbondingDelegationsRequest) ProtoName() string {
	return "cosmos.staking.v1beta1.QueryDelegatorUnbondingDelegationsRequest"
}

type QueryDelegatorUnbondingDelegationsResponse struct {
	UnbondingResponses []UnbondingDelegation `pb:"1,unbonding_responses"`
	Pagination         *PageResponse         `pb:"2,pagination"`
}

func (QueryDelegatorUnbondingDelegationsResponse) ProtoName() string {
	return "cosmos.staking.v1beta1.QueryDelegatorUnbondingDelegationsResponse"
}

type QueryStakingParamsRequest struct{}

func (QueryStakingParamsRequest) ProtoName() string {
	return "cosmos.staking.v1beta1.QueryParamsRequest"
}

type QueryStakingParamsResponse struct {
	Params StakingParams `pb:"1,params"`
}

func (QueryStakingParamsResponse) ProtoName() string {
	return "cosmos.staking.v1beta1.QueryParamsResponse"
}

type QueryPoolRequest struct{}

func (QueryPoolRequest) ProtoName() string { return "cosmos.staking.v1beta1.QueryPoolRequest" }

type QueryPoolResponse struct {
	Pool Pool `pb:"1,pool"`
}

func (QueryPoolResponse) ProtoName() string { return "cosmos.staking.v1beta1.QueryPoolResponse" }

func stakingService() *Service {
	return serviceFile("cosmos/staking/v1beta1/query.proto", "cosmos.staking.v1beta1.Query",
		[]protobuf.Message{Description{}, CommissionRates{}, Commission{}, Validator{}, Delegation{}, DelegationResponse{},
			UnbondingDelegationEntry{}, UnbondingDelegation{}, StakingParams{}, Pool{},
			QueryValidatorsRequest{}, QueryValidatorsResponse{}, QueryValidatorRequest{}, QueryValidatorResponse{},
			QueryValidatorDelegationsRequest{}, QueryValidatorDelegationsResponse{},
			QueryDelegatorDelegationsRequest{}, QueryDelegatorDelegationsResponse{},
			QueryDelegationRequest{}, QueryDelegationResponse{},
			QueryDelegatorUnbondingDelegationsRequest{}, QueryDelegatorUnbondingDelegationsResponse{},
			QueryValidatorUnbondingDelegationsRequest{}, QueryValidatorUnbondingDelegationsResponse{},
			QueryUnbondingDelegationRequest{}, QueryUnbondingDelegationResponse{},
			QueryDelegatorValidatorsRequest{}, QueryDelegatorValidatorsResponse{},
			QueryDelegatorValidatorRequest{}, QueryDelegatorValidatorResponse{},
			RedelegationEntry{}, Redelegation{}, RedelegationEntryResponse{}, RedelegationResponse{},
			QueryRedelegationsRequest{}, QueryRedelegationsResponse{},
			QueryStakingParamsRequest{}, QueryStakingParamsResponse{}, QueryPoolRequest{}, QueryPoolResponse{},
			HistoricalInfo{}, QueryHistoricalInfoRequest{}, QueryHistoricalInfoResponse{}},
		[]protobuf.Enum{BondStatus(0)},
		[]*Method{
			method("Validators", "/cosmos/staking/v1beta1/validators", (*Querier).Validators),
			method("Validator", "/cosmos/staking/v1beta1/validators/{validator_addr}", (*Querier).Validator),
			method("ValidatorDelegations", "/cosmos/staking/v1beta1/validators/{validator_addr}/delegations", (*Querier).ValidatorDelegations),
			method("ValidatorUnbondingDelegations", "/cosmos/staking/v1beta1/validators/{validator_addr}/unbonding_delegations", (*Querier).ValidatorUnbondingDelegations),
			method("Delegation", "/cosmos/staking/v1beta1/validators/{validator_addr}/delegations/{delegator_addr}", (*Querier).Delegation),
			method("UnbondingDelegation", "/cosmos/staking/v1beta1/validators/{validator_addr}/delegations/{delegator_addr}/unbonding_delegation", (*Querier).UnbondingDelegation),
			method("DelegatorDelegations", "/cosmos/staking/v1beta1/delegations/{delegator_addr}", (*Querier).DelegatorDelegations),
			method("DelegatorUnbondingDelegations", "/cosmos/staking/v1beta1/delegators/{delegator_addr}/unbonding_delegations", (*Querier).DelegatorUnbondingDelegations),
			method("DelegatorValidators", "/cosmos/staking/v1beta1/delegators/{delegator_addr}/validators", (*Querier).DelegatorValidators),
			method("DelegatorValidator", "/cosmos/staking/v1beta1/delegators/{delegator_addr}/validators/{validator_addr}", (*Querier).DelegatorValidator),
			method("Redelegations", "/cosmos/staking/v1beta1/delegators/{delegator_addr}/redelegations", (*Querier).Redelegations),
			method("HistoricalInfo", "/cosmos/staking/v1beta1/historical_info/{height}", (*Querier).HistoricalInfo),
			method("Params", "/cosmos/staking/v1beta1/params", (*Querier).StakingParams),
			method("Pool", "/cosmos/staking/v1beta1/pool", (*Querier).Pool),
		})
}

func validatorOf(v vValidator) Validator {
	return Validator{
		OperatorAddress: valAddr(v.Operator), ConsensusPubkey: pubKeyAny(v.ConsensusPubKey), Jailed: v.Jailed,
		Status: bondStatus(v.Status), Tokens: IntOf(v.Tokens), DelegatorShares: DecOf(v.DelegatorShares),
		Description: Description{Moniker: v.Description.Moniker, Identity: v.Description.Identity,
			Website: v.Description.Website, SecurityContact: v.Description.SecurityContact, Details: v.Description.Details},
		UnbondingHeight: v.UnbondingHeight, UnbondingTime: v.UnbondingTime.UTC(),
		Commission: Commission{CommissionRates: CommissionRates{Rate: DecOf(v.Commission.Rate),
			MaxRate: DecOf(v.Commission.MaxRate), MaxChangeRate: DecOf(v.Commission.MaxChangeRate)},
			UpdateTime: v.Commission.UpdateTime.UTC()},
		MinSelfDelegation: IntOf(v.MinSelfDelegation), UnbondingIDs: []uint64{},
	}
}

func delegationOf(d vDelegation) DelegationResponse {
	return DelegationResponse{
		Delegation: Delegation{DelegatorAddress: accAddr(d.Delegator), ValidatorAddress: valAddr(d.Validator), Shares: DecOf(d.Shares)},
		Balance:    Coin{Denom: Denom, Amount: IntOf(d.Balance)},
	}
}

// Validators lists validators, all of them or those of one status.
func (q *Querier) Validators(ctx context.Context, r *QueryValidatorsRequest) (*QueryValidatorsResponse, error) {
	var want BondStatus
	if r.Status != "" {
		_, names := want.EnumDescriptor()
		for i, n := range names[1:] {
			if n == r.Status {
				want = BondStatus(i + 1)
			}
		}
		if want == 0 {
			return nil, Errorf(InvalidArgument, "invalid validator status %s", r.Status)
		}
	}
	st, err := q.native(ctx)
	if err != nil {
		return nil, err
	}
	all, err := st.StakingValidators()
	if err != nil {
		return nil, err
	}
	var vs []vValidator
	for _, v := range all {
		if want == 0 || bondStatus(v.Status) == want {
			vs = append(vs, v)
		}
	}
	page, pr, err := paginate(vs, func(v vValidator) []byte { return addrKey(v.Operator) }, r.Pagination)
	if err != nil {
		return nil, err
	}
	out := make([]Validator, len(page))
	for i, v := range page {
		out[i] = validatorOf(v)
	}
	return &QueryValidatorsResponse{Validators: out, Pagination: pr}, nil
}

// Validator returns one validator.
func (q *Querier) Validator(ctx context.Context, r *QueryValidatorRequest) (*QueryValidatorResponse, error) {
	op, err := parseAddress(ValidatorPrefix, "validator address", r.ValidatorAddr)
	if err != nil {
		return nil, err
	}
	st, err := q.native(ctx)
	if err != nil {
		return nil, err
	}
	v, err := st.StakingValidator(op)
	if err != nil {
		return nil, notFound(err, "validator %s not found", r.ValidatorAddr)
	}
	return &QueryValidatorResponse{Validator: validatorOf(v)}, nil
}

// notFound words a backend's ErrNotFound as the Cosmos SDK does.
func notFound(err error, format string, a ...any) error {
	if err == backend.ErrNotFound {
		return Errorf(NotFound, format, a...)
	}
	return err
}

func delegationPage(ds []vDelegation, key func(vDelegation) types.Address, p *PageRequest) ([]DelegationResponse, *PageResponse, error) {
	page, pr, err := paginate(ds, func(d vDelegation) []byte { return addrKey(key(d)) }, p)
	if err != nil {
		return nil, nil, err
	}
	out := make([]DelegationResponse, len(page))
	for i, d := range page {
		out[i] = delegationOf(d)
	}
	return out, pr, nil
}

// ValidatorDelegations lists the delegations to a validator.
func (q *Querier) ValidatorDelegations(ctx context.Context, r *QueryValidatorDelegationsRequest) (*QueryValidatorDelegationsResponse, error) {
	op, err := parseAddress(ValidatorPrefix, "validator address", r.ValidatorAddr)
	if err != nil {
		return nil, err
	}
	st, err := q.native(ctx)
	if err != nil {
		return nil, err
	}
	ds, err := st.ValidatorDelegations(op)
	if err != nil {
		return nil, notFound(err, "validator %s not found", r.ValidatorAddr)
	}
	out, pr, err := delegationPage(ds, func(d vDelegation) types.Address { return d.Delegator }, r.Pagination)
	if err != nil {
		return nil, err
	}
	return &QueryValidatorDelegationsResponse{DelegationResponses: out, Pagination: pr}, nil
}

// DelegatorDelegations lists a delegator's delegations (an empty list for
// an address that has none).
func (q *Querier) DelegatorDelegations(ctx context.Context, r *QueryDelegatorDelegationsRequest) (*QueryDelegatorDelegationsResponse, error) {
	del, err := parseAddress(AccountPrefix, "delegator address", r.DelegatorAddr)
	if err != nil {
		return nil, err
	}
	st, err := q.native(ctx)
	if err != nil {
		return nil, err
	}
	ds, err := st.Delegations(del)
	if err != nil {
		return nil, err
	}
	out, pr, err := delegationPage(ds, func(d vDelegation) types.Address { return d.Validator }, r.Pagination)
	if err != nil {
		return nil, err
	}
	return &QueryDelegatorDelegationsResponse{DelegationResponses: out, Pagination: pr}, nil
}

// Delegation returns one delegator's delegation to one validator.
func (q *Querier) Delegation(ctx context.Context, r *QueryDelegationRequest) (*QueryDelegationResponse, error) {
	del, err := parseAddress(AccountPrefix, "delegator address", r.DelegatorAddr)
	if err != nil {
		return nil, err
	}
	op, err := parseAddress(ValidatorPrefix, "validator address", r.ValidatorAddr)
	if err != nil {
		return nil, err
	}
	st, err := q.native(ctx)
	if err != nil {
		return nil, err
	}
	ds, err := st.Delegations(del)
	if err != nil {
		return nil, err
	}
	for _, d := range ds {
		if d.Validator == op {
			resp := delegationOf(d)
			return &QueryDelegationResponse{DelegationResponse: &resp}, nil
		}
	}
	return nil, Errorf(NotFound, "delegation with delegator %s not found for validator %s", r.DelegatorAddr, r.ValidatorAddr)
}

// DelegatorUnbondingDelegations lists a delegator's unbonding stakes.
func (q *Querier) DelegatorUnbondingDelegations(ctx context.Context, r *QueryDelegatorUnbondingDelegationsRequest) (*QueryDelegatorUnbondingDelegationsResponse, error) {
	del, err := parseAddress(AccountPrefix, "delegator address", r.DelegatorAddr)
	if err != nil {
		return nil, err
	}
	st, err := q.native(ctx)
	if err != nil {
		return nil, err
	}
	us, err := st.Unbondings(del)
	if err != nil {
		return nil, err
	}
	page, pr, err := paginate(us, func(u vUnbonding) []byte { return addrKey(u.Validator) }, r.Pagination)
	if err != nil {
		return nil, err
	}
	return &QueryDelegatorUnbondingDelegationsResponse{UnbondingResponses: unbondingsOf(page), Pagination: pr}, nil
}

func unbondingsOf(us []vUnbonding) []UnbondingDelegation {
	out := make([]UnbondingDelegation, len(us))
	for i, u := range us {
		out[i] = unbondingOf(u)
	}
	return out
}

func unbondingOf(u vUnbonding) UnbondingDelegation {
	out := UnbondingDelegation{DelegatorAddress: accAddr(u.Delegator), ValidatorAddress: valAddr(u.Validator),
		Entries: make([]UnbondingDelegationEntry, len(u.Entries))}
	for j, e := range u.Entries {
		out.Entries[j] = UnbondingDelegationEntry{CreationHeight: e.CreationHeight, CompletionTime: e.CompletionTime.UTC(),
			InitialBalance: IntOf(e.InitialBalance), Balance: IntOf(e.Balance), UnbondingID: e.UnbondingID}
	}
	return out
}

// StakingParams returns the staking parameters.
func (q *Querier) StakingParams(ctx context.Context, _ *QueryStakingParamsRequest) (*QueryStakingParamsResponse, error) {
	st, err := q.native(ctx)
	if err != nil {
		return nil, err
	}
	p, err := st.StakingParams()
	if err != nil {
		return nil, err
	}
	return &QueryStakingParamsResponse{Params: StakingParams{UnbondingTime: p.UnbondingTime, MaxValidators: p.MaxValidators,
		MaxEntries: p.MaxEntries, HistoricalEntries: p.HistoricalEntries, BondDenom: Denom,
		MinCommissionRate: DecOf(p.MinCommissionRate)}}, nil
}

// Pool returns the bonded and not-bonded token totals.
func (q *Querier) Pool(ctx context.Context, _ *QueryPoolRequest) (*QueryPoolResponse, error) {
	st, err := q.native(ctx)
	if err != nil {
		return nil, err
	}
	bonded, notBonded, err := st.StakingPool()
	if err != nil {
		return nil, err
	}
	return &QueryPoolResponse{Pool: Pool{BondedTokens: IntOf(bonded), NotBondedTokens: IntOf(notBonded)}}, nil
}
