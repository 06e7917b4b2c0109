package query

import (
	"context"

	"github.com/chaind/chaind/internal/protobuf"
	"github.com/chaind/chaind/internal/types"
)

// The distribution queries about one validator's own rewards and about a
// delegator's validators and withdraw address.

type QueryValidatorDistributionInfoRequest struct {
	ValidatorAddress string `pb:"1,validator_address"`
}

func (QueryValidatorDistributionInfoRequest) ProtoName() string {
	return "cosmos.distribution.v1beta1.QueryValidatorDistributionInfoRequest"
}

// QueryValidatorDistributionInfoResponse names the operator by its
// account address, as the SDK does.
type QueryValidatorDistributionInfoResponse struct {
	OperatorAddress string    `pb:"1,operator_address"`
	SelfBondRewards []DecCoin `pb:"2,self_bond_rewards"`
	Commission      []DecCoin `pb:"3,commission"`
}

func (QueryValidatorDistributionInfoResponse) ProtoName() string {
	return "cosmos.distribution.v1beta1.QueryValidatorDistributionInfoResponse"
}

type QueryDistDelegatorValidatorsRequest struct {
	DelegatorAddress string `pb:"1,delegator_address"`
}

func (QueryDistDelegatorValidatorsRequest) ProtoName() string {
	return "cosmos.distribution.v1beta1.QueryDelegatorValidatorsRequest"
}

type QueryDistDelegatorValidatorsResponse struct {
	Validators []string `pb:"1,validators"`
}

func (QueryDistDelegatorValidatorsResponse) ProtoName() string {
	return "cosmos.distribution.v1beta1.QueryDelegatorValidatorsResponse"
}

type QueryDelegatorWithdrawAddressRequest struct {
	DelegatorAddress string `pb:"1,delegator_address"`
}

func (QueryDelegatorWithdrawAddressRequest) ProtoName() string {
	return "cosmos.distribution.v1beta1.QueryDelegatorWithdrawAddressRequest"
}

type QueryDelegatorWithdrawAddressResponse struct {
	WithdrawAddress string `pb:"1,withdraw_address"`
}

func (QueryDelegatorWithdrawAddressResponse) ProtoName() string {
	return "cosmos.distribution.v1beta1.QueryDelegatorWithdrawAddressResponse"
}

var distDelegatorMessages = []protobuf.Message{QueryValidatorDistributionInfoRequest{}, QueryValidatorDistributionInfoResponse{},
	QueryDistDelegatorValidatorsRequest{}, QueryDistDelegatorValidatorsResponse{},
	QueryDelegatorWithdrawAddressRequest{}, QueryDelegatorWithdrawAddressResponse{}}

func distDelegatorMethods() []*Method {
	return []*Method{
		method("ValidatorDistributionInfo", "/cosmos/distribution/v1beta1/validators/{validator_address}", (*Querier).ValidatorDistributionInfo),
		method("DelegatorValidators", "/cosmos/distribution/v1beta1/delegators/{delegator_address}/validators", (*Querier).DistributionDelegatorValidators),
		method("DelegatorWithdrawAddress", "/cosmos/distribution/v1beta1/delegators/{delegator_address}/withdraw_address", (*Querier).DelegatorWithdrawAddress),
	}
}

// ValidatorDistributionInfo is a validator's unpaid commission and the
// rewards of its operator's own delegation to it.
func (q *Querier) ValidatorDistributionInfo(ctx context.Context, r *QueryValidatorDistributionInfoRequest) (*QueryValidatorDistributionInfoResponse, error) {
	op, err := parseAddress(ValidatorPrefix, "validator address", r.ValidatorAddress)
	if err != nil {
		return nil, err
	}
	n, err := q.native(ctx)
	if err != nil {
		return nil, err
	}
	commission, err := n.AccumulatedCommission(op)
	if err != nil {
		return nil, notFound(err, "validator %s does not exist", r.ValidatorAddress)
	}
	rs, err := n.DelegatorRewards(op)
	if err != nil {
		return nil, err
	}
	out := &QueryValidatorDistributionInfoResponse{OperatorAddress: accAddr(op), SelfBondRewards: []DecCoin{}, Commission: decCoins(commission)}
	for _, rw := range rs {
		if rw.Validator == op {
			out.SelfBondRewards = decCoins(rw.Reward)
		}
	}
	return out, nil
}

// DistributionDelegatorValidators lists the validators a delegator has
// delegated to, by operator address.
func (q *Querier) DistributionDelegatorValidators(ctx context.Context, r *QueryDistDelegatorValidatorsRequest) (*QueryDistDelegatorValidatorsResponse, error) {
	del, err := parseAddress(AccountPrefix, "delegator address", r.DelegatorAddress)
	if err != nil {
		return nil, err
	}
	n, err := q.native(ctx)
	if err != nil {
		return nil, err
	}
	ds, err := n.Delegations(del)
	if err != nil {
		return nil, err
	}
	out := &QueryDistDelegatorValidatorsResponse{Validators: make([]string, len(ds))}
	for i, d := range ds {
		out.Validators[i] = valAddr(d.Validator)
	}
	return out, nil
}

// DelegatorWithdrawAddress is where a delegator's rewards are paid: the
// delegator itself unless it set another address.
func (q *Querier) DelegatorWithdrawAddress(ctx context.Context, r *QueryDelegatorWithdrawAddressRequest) (*QueryDelegatorWithdrawAddressResponse, error) {
	del, err := parseAddress(AccountPrefix, "delegator address", r.DelegatorAddress)
	if err != nil {
		return nil, err
	}
	n, err := q.native(ctx)
	if err != nil {
		return nil, err
	}
	w, err := n.s.WithdrawAddress(n.at, del)
	if err != nil {
		return nil, nativeErr(err)
	}
	if w == (types.Address{}) {
		w = del
	}
	return &QueryDelegatorWithdrawAddressResponse{WithdrawAddress: accAddr(w)}, nil
}
