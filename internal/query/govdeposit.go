package query

import (
	"context"

	"github.com/chaind/chaind/internal/protobuf"
)

// One depositor's deposit on a proposal (cosmos.gov.v1beta1 Query/Deposit;
// v1 answers from the same lookup).

type QueryDepositRequest struct {
	ProposalID uint64 `pb:"1,proposal_id"`
	Depositor  string `pb:"2,depositor"`
}

func (QueryDepositRequest) ProtoName() string { return "cosmos.gov.v1beta1.QueryDepositRequest" }

type QueryDepositResponse struct {
	Deposit Deposit `pb:"1,deposit"`
}

func (QueryDepositResponse) ProtoName() string { return "cosmos.gov.v1beta1.QueryDepositResponse" }

var govDepositMessages = []protobuf.Message{QueryDepositRequest{}, QueryDepositResponse{}}

// deposit finds depositor's deposit on proposal id: NotFound for an
// unknown proposal or a depositor who made none.
func (q *Querier) deposit(ctx context.Context, id uint64, depositor string) (vDeposit, error) {
	if err := proposalID(id); err != nil {
		return vDeposit{}, err
	}
	d, err := parseAddress(AccountPrefix, "depositor address", depositor)
	if err != nil {
		return vDeposit{}, err
	}
	deps, err := q.deposits(ctx, id)
	if err != nil {
		return vDeposit{}, err
	}
	for _, dep := range deps {
		if dep.Depositor == d {
			return dep, nil
		}
	}
	return vDeposit{}, Errorf(NotFound, "depositor: %v not found for proposal: %v", depositor, id)
}

// Deposit returns one depositor's deposit on a proposal.
func (q *Querier) Deposit(ctx context.Context, r *QueryDepositRequest) (*QueryDepositResponse, error) {
	d, err := q.deposit(ctx, r.ProposalID, r.Depositor)
	if err != nil {
		return nil, err
	}
	return &QueryDepositResponse{Deposit: depositOf(d)}, nil
}
