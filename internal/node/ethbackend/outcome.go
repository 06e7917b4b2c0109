package ethbackend

import (
	"context"
	"errors"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/backend"
)

var (
	_ backend.CallOutcomes = (*Backend)(nil)
)

// CallOutcome runs a call like Call but reports a failure inside the EVM
// as an outcome with status 0 and the gas it used.
func (b *Backend) CallOutcome(ctx context.Context, req *backend.CallRequest) (*backend.CallOutcome, error) {
	args, env := &req.Args, newCallEnv(req)
	msg, err := message(args, b.callGas(args, env))
	if err != nil {
		return nil, err
	}
	flush := b.consoleFor(env)
	res, err := b.execute(env, msg, nil)
	flush()
	if err != nil {
		return nil, err
	}
	out := &backend.CallOutcome{GasUsed: res.UsedGas, Status: 1}
	switch {
	case errors.Is(res.Err, evm.ErrExecutionReverted):
		out.Status, out.Data = 0, res.ReturnData
	case res.Err != nil:
		out.Status = 0
	default:
		out.Data = res.ReturnData
	}
	return out, nil
}
