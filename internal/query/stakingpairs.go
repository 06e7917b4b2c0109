package query

import (
	"context"

	"github.com/chaind/chaind/internal/types"
)

// The staking queries that look at a delegator and a validator together
// or at a validator's unbonding stake.

type QueryValidatorUnbondingDelegationsRequest struct {
	ValidatorAddr string       `pb:"1,validator_addr"`
	Pagination    *PageRequest `pb:"2,pagination"`
}

func (QueryValidatorUnbondingDelegationsRequest) ProtoName() string {
	return "cosmos.staking.v1beta1.QueryValidatorUnbondingDelegationsRequest"
}

type QueryValidatorUnbondingDelegationsResponse struct {
	UnbondingResponses []UnbondingDelegation `pb:"1,unbonding_responses"`
	Pagination         *PageResponse         `pb:"2,pagination"`
}

func (QueryValidatorUnbondingDelegationsResponse) ProtoName() string {
	return "cosmos.staking.v1beta1.QueryValidatorUnbondingDelegationsResponse"
}

type QueryUnbondingDelegationRequest struct {
	DelegatorAddr string `pb:"1,delegator_addr"`
	ValidatorAddr string `pb:"2,validator_addr"`
}

func (QueryUnbondingDelegationRequest) ProtoName() string {
	return "cosmos.staking.v1beta1.QueryUnbondingDelegationRequest"
}

type QueryUnbondingDelegationResponse struct {
	Unbond UnbondingDelegation `pb:"1,unbond"`
}

func (QueryUnbondingDelegationResponse) ProtoName() string {
	return "cosmos.staking.v1beta1.QueryUnbondingDelegationResponse"
}

type QueryDelegatorValidatorsRequest struct {
	DelegatorAddr string       `pb:"1,delegator_addr"`
	Pagination    *PageRequest `pb:"2,pagination"`
}

func (QueryDelegatorValidatorsRequest) ProtoName() string {
	return "cosmos.staking.v1beta1.QueryDelegatorValidatorsRequest"
}

type QueryDelegatorValidatorsResponse struct {
	Validators []Validator   `pb:"1,validators"`
	Pagination *PageResponse `pb:"2,pagination"`
}

func (QueryDelegatorValidatorsResponse) ProtoName() string {
	return "cosmos.staking.v1beta1.QueryDelegatorValidatorsResponse"
}

type QueryDelegatorValidatorRequest struct {
	DelegatorAddr string `pb:"1,delegator_addr"`
	ValidatorAddr string `pb:"2,validator_addr"`
}

func (QueryDelegatorValidatorRequest) ProtoName() string {
	return "cosmos.staking.v1beta1.QueryDelegatorValidatorRequest"
}

type QueryDelegatorValidatorResponse struct {
	Validator Validator `pb:"1,validator"`
}

func (QueryDelegatorValidatorResponse) ProtoName() string {
	return "cosmos.staking.v1beta1.QueryDelegatorValidatorResponse"
}

// ValidatorUnbondingDelegations lists the stake unbonding out of a
// validator, per delegator. An unknown validator is NotFound, as every
// query naming a validator answers here.
func (q *Querier) ValidatorUnbondingDelegations(ctx context.Context, r *QueryValidatorUnbondingDelegationsRequest) (*QueryValidatorUnbondingDelegationsResponse, error) {
	op, err := parseAddress(ValidatorPrefix, "validator address", r.ValidatorAddr)
	if err != nil {
		return nil, err
	}
	st, err := q.native(ctx)
	if err != nil {
		return nil, err
	}
	us, err := st.ValidatorUnbondings(op)
	if err != nil {
		return nil, notFound(err, "validator %s not found", r.ValidatorAddr)
	}
	page, pr, err := paginate(us, func(u vUnbonding) []byte { return addrKey(u.Delegator) }, r.Pagination)
	if err != nil {
		return nil, err
	}
	return &QueryValidatorUnbondingDelegationsResponse{UnbondingResponses: unbondingsOf(page), Pagination: pr}, nil
}

// UnbondingDelegation returns one delegator's unbonding stake out of one
// validator.
func (q *Querier) UnbondingDelegation(ctx context.Context, r *QueryUnbondingDelegationRequest) (*QueryUnbondingDelegationResponse, error) {
	del, op, err := delegatorAndValidator(r.DelegatorAddr, r.ValidatorAddr)
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
	for _, u := range us {
		if u.Validator == op {
			return &QueryUnbondingDelegationResponse{Unbond: unbondingOf(u)}, nil
		}
	}
	return nil, Errorf(NotFound, "unbonding delegation with delegator %s not found for validator %s", r.DelegatorAddr, r.ValidatorAddr)
}

// DelegatorValidators lists the validators a delegator delegates to (an
// empty list for an address that delegates nothing).
func (q *Querier) DelegatorValidators(ctx context.Context, r *QueryDelegatorValidatorsRequest) (*QueryDelegatorValidatorsResponse, error) {
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
	page, pr, err := paginate(ds, func(d vDelegation) []byte { return addrKey(d.Validator) }, r.Pagination)
	if err != nil {
		return nil, err
	}
	out := make([]Validator, len(page))
	for i, d := range page {
		v, err := st.StakingValidator(d.Validator)
		if err != nil {
			return nil, err
		}
		out[i] = validatorOf(v)
	}
	return &QueryDelegatorValidatorsResponse{Validators: out, Pagination: pr}, nil
}

// DelegatorValidator returns a validator the delegator delegates to;
// NotFound for an unknown validator or one it does not delegate to.
func (q *Querier) DelegatorValidator(ctx context.Context, r *QueryDelegatorValidatorRequest) (*QueryDelegatorValidatorResponse, error) {
	del, op, err := delegatorAndValidator(r.DelegatorAddr, r.ValidatorAddr)
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
	ds, err := st.Delegations(del)
	if err != nil {
		return nil, err
	}
	for _, d := range ds {
		if d.Validator == op {
			return &QueryDelegatorValidatorResponse{Validator: validatorOf(v)}, nil
		}
	}
	return nil, Errorf(NotFound, "no delegation for (address, validator) tuple")
}

func delegatorAndValidator(delegator, validator string) (del, op types.Address, err error) {
	if del, err = parseAddress(AccountPrefix, "delegator address", delegator); err != nil {
		return
	}
	op, err = parseAddress(ValidatorPrefix, "validator address", validator)
	return
}
