package ethapi

import (
	"context"
	"fmt"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
	"github.com/holiman/uint256"
)

// CallArgs is the transaction object of eth_call, eth_estimateGas,
// eth_createAccessList, eth_sendTransaction and eth_signTransaction.
type CallArgs struct {
	From                 *types.Address               `json:"from"`
	To                   *types.Address               `json:"to"`
	Gas                  *types.HexUint64             `json:"gas"`
	GasPrice             *types.HexU256               `json:"gasPrice"`
	MaxFeePerGas         *types.HexU256               `json:"maxFeePerGas"`
	MaxPriorityFeePerGas *types.HexU256               `json:"maxPriorityFeePerGas"`
	Value                *types.HexU256               `json:"value"`
	Nonce                *types.HexUint64             `json:"nonce"`
	Data                 *types.HexBytes              `json:"data"`
	Input                *types.HexBytes              `json:"input"`
	AccessList           *types.AccessList            `json:"accessList"`
	ChainID              *types.HexU256               `json:"chainId"`
	BlobHashes           []types.Hash                 `json:"blobVersionedHashes"`
	MaxFeePerBlobGas     *types.HexU256               `json:"maxFeePerBlobGas"`
	AuthorizationList    []types.SetCodeAuthorization `json:"authorizationList"`
	Type                 *types.HexUint64             `json:"type"`
}

// toBackend is the call the arguments describe. The pointers it holds
// share the decoded values.
func (a *CallArgs) toBackend() backend.CallArgs {
	return backend.CallArgs{
		From: a.From, To: a.To, Gas: (*uint64)(a.Gas),
		GasPrice: u256(a.GasPrice), MaxFeePerGas: u256(a.MaxFeePerGas), MaxPriorityFeePerGas: u256(a.MaxPriorityFeePerGas),
		Value: u256(a.Value), Nonce: (*uint64)(a.Nonce),
		Input: (*[]byte)(a.Input), Data: (*[]byte)(a.Data),
		AccessList: a.AccessList, ChainID: u256(a.ChainID), BlobHashes: a.BlobHashes,
		MaxFeePerBlobGas: u256(a.MaxFeePerBlobGas), AuthorizationList: a.AuthorizationList,
	}
}

func u256(x *types.HexU256) *uint256.Int { return (*uint256.Int)(x) }

// StateOverride replaces parts of an account for one call.
type StateOverride struct {
	Balance          *types.HexU256            `json:"balance"`
	Nonce            *types.HexUint64          `json:"nonce"`
	Code             *types.HexBytes           `json:"code"`
	State            map[types.Hash]types.Hash `json:"state"`
	StateDiff        map[types.Hash]types.Hash `json:"stateDiff"`
	MovePrecompileTo *types.Address            `json:"movePrecompileToAddress"`
}

func (o *StateOverride) toBackend() backend.StateOverride {
	return backend.StateOverride{
		Balance: u256(o.Balance), Nonce: (*uint64)(o.Nonce), Code: (*[]byte)(o.Code),
		State: o.State, StateDiff: o.StateDiff, MovePrecompileTo: o.MovePrecompileTo,
	}
}

func stateOverrides(m map[types.Address]StateOverride) map[types.Address]backend.StateOverride {
	if m == nil {
		return nil
	}
	out := make(map[types.Address]backend.StateOverride, len(m))
	for addr, o := range m {
		out[addr] = o.toBackend()
	}
	return out
}

// BlockOverrides changes the block context of a call.
type BlockOverrides struct {
	Number      *types.HexUint64 `json:"number"`
	Time        *types.HexUint64 `json:"time"`
	GasLimit    *types.HexUint64 `json:"gasLimit"`
	Coinbase    *types.Address   `json:"feeRecipient"`
	PrevRandao  *types.Hash      `json:"prevRandao"`
	BaseFee     *types.HexU256   `json:"baseFeePerGas"`
	BlobBaseFee *types.HexU256   `json:"blobBaseFee"`
}

func (o *BlockOverrides) toBackend() *backend.BlockOverrides {
	if o == nil {
		return nil
	}
	return &backend.BlockOverrides{
		Number: (*uint64)(o.Number), Time: (*uint64)(o.Time), GasLimit: (*uint64)(o.GasLimit),
		Coinbase: o.Coinbase, PrevRandao: o.PrevRandao, BaseFee: u256(o.BaseFee), BlobBaseFee: u256(o.BlobBaseFee),
	}
}

// decodeCall reads [args, block?, stateOverrides?, blockOverrides?].
func (api *ethAPI) decodeCall(p rpc.Params) (*backend.CallRequest, error) {
	var args CallArgs
	if err := p.Decode(0, &args); err != nil {
		return nil, err
	}
	ref, err := blockRef(p, 1)
	if err != nil {
		return nil, err
	}
	var (
		overrides map[types.Address]StateOverride
		blockOver *BlockOverrides
	)
	if _, err := p.Optional(2, &overrides); err != nil {
		return nil, err
	}
	if _, err := p.Optional(3, &blockOver); err != nil {
		return nil, err
	}
	blk, err := resolveState(api.b, ref)
	if err != nil {
		return nil, err
	}
	return &backend.CallRequest{Block: blk, Args: args.toBackend(),
		StateOverrides: stateOverrides(overrides), BlockOverrides: blockOver.toBackend()}, nil
}

func (api *ethAPI) call(ctx context.Context, p rpc.Params) (any, error) {
	req, err := api.decodeCall(p)
	if err != nil {
		return nil, err
	}
	out, err := api.b.Call(ctx, req)
	if err != nil {
		return nil, err
	}
	if len(out) > api.opts.ReturnDataLimit {
		return nil, &rpc.Error{Code: rpc.CodeLimitExceeded, Message: fmt.Sprintf("return data too large: %d bytes, over the %d-byte eth_call return data limit", len(out), api.opts.ReturnDataLimit)}
	}
	return types.HexBytes(out), nil
}

func (api *ethAPI) estimateGas(ctx context.Context, p rpc.Params) (any, error) {
	req, err := api.decodeCall(p)
	if err != nil {
		return nil, err
	}
	gas, err := api.b.EstimateGas(ctx, req)
	if err != nil {
		return nil, err
	}
	return types.HexUint64(gas), nil
}

func (api *ethAPI) createAccessList(ctx context.Context, p rpc.Params) (any, error) {
	req, err := api.decodeCall(p)
	if err != nil {
		return nil, err
	}
	res, err := api.b.CreateAccessList(ctx, req)
	if err != nil {
		return nil, err
	}
	out := struct {
		AccessList types.AccessList `json:"accessList"`
		GasUsed    types.HexUint64  `json:"gasUsed"`
		Error      string           `json:"error,omitempty"`
	}{AccessList: res.AccessList, GasUsed: types.HexUint64(res.GasUsed)}
	if res.Err != nil {
		out.Error = res.Err.Error()
	}
	return out, nil
}
