package ethapi

import (
	"context"
	"errors"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
)

// eth_simulateV1 error codes (execution-apis, src/eth/execute.yaml).
const (
	codeNonceTooLow       = -38010
	codeNonceTooHigh      = -38011
	codeFeeTooLow         = -38012
	codeIntrinsicGas      = -38013
	codeInsufficientFunds = -38014
	codeBlockGasLimit     = -38015
	codeBlockNumber       = -38020
	codeBlockTimestamp    = -38021
	codeSenderNotEOA      = -38024
	codeInitCodeTooLarge  = -38025
	codeClientLimit       = -38026
	codeVMError           = -32015
)

var simulateCodes = map[backend.SimulateErrorKind]int{
	backend.SimInternal:          rpc.CodeInternal,
	backend.SimNonceTooLow:       codeNonceTooLow,
	backend.SimNonceTooHigh:      codeNonceTooHigh,
	backend.SimFeeTooLow:         codeFeeTooLow,
	backend.SimIntrinsicGas:      codeIntrinsicGas,
	backend.SimInsufficientFunds: codeInsufficientFunds,
	backend.SimBlockGasLimit:     codeBlockGasLimit,
	backend.SimBlockNumber:       codeBlockNumber,
	backend.SimBlockTimestamp:    codeBlockTimestamp,
	backend.SimSenderNotEOA:      codeSenderNotEOA,
	backend.SimInitCodeTooLarge:  codeInitCodeTooLarge,
	backend.SimClientLimit:       codeClientLimit,
}

// apiError gives the backend's typed errors their JSON-RPC codes; any
// other error goes to the transport as it is (code -32000, its text).
func apiError(err error) error {
	var rev *backend.RevertError
	if errors.As(err, &rev) {
		return &rpc.Error{Code: rpc.CodeReverted, Message: err.Error(), Data: types.HexBytes(rev.Data)}
	}
	var pe *backend.ParamError
	if errors.As(err, &pe) {
		return rpc.InvalidParams(pe.Arg, errors.New(pe.Msg))
	}
	var se *backend.SimulateError
	if errors.As(err, &se) {
		code, ok := simulateCodes[se.Kind]
		if !ok {
			code = rpc.CodeInternal
		}
		return &rpc.Error{Code: code, Message: se.Msg}
	}
	return err
}

// register installs a method whose errors pass through apiError.
func register(s *rpc.Server, name string, min, max int, h rpc.Handler) {
	s.Register(name, min, max, func(ctx context.Context, p rpc.Params) (any, error) {
		res, err := h(ctx, p)
		if err != nil {
			return nil, apiError(err)
		}
		return res, nil
	})
}
