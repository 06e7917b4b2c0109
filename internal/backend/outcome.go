package backend

import (
	"context"
)

// CallOutcome is everything a call produced, a failure inside the EVM
// included: GraphQL's CallResult reports data, gas and status even when
// the call reverted, where eth_call only returns an error.
type CallOutcome struct {
	Data    []byte // return data, or the revert data of a reverted call
	GasUsed uint64
	Status  uint64 // 1 success, 0 failure in the EVM
}

// CallOutcomes runs calls and reports their outcome. An error means the
// call could not run at all (bad arguments, unknown state); a call that
// failed in the EVM is an outcome with Status 0.
type CallOutcomes interface {
	CallOutcome(ctx context.Context, req *CallRequest) (*CallOutcome, error)
}
