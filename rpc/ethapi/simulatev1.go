package ethapi

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
)

// simWithdrawal is a withdrawal in the JSON shape block overrides use.
type simWithdrawal struct {
	Index     types.HexUint64 `json:"index"`
	Validator types.HexUint64 `json:"validatorIndex"`
	Address   types.Address   `json:"address"`
	Amount    types.HexUint64 `json:"amount"`
}

// simBlockOverrides are the header fields a simulated block may set.
type simBlockOverrides struct {
	Number       *types.HexUint64 `json:"number"`
	Difficulty   *types.HexU256   `json:"difficulty"`
	Time         *types.HexUint64 `json:"time"`
	GasLimit     *types.HexUint64 `json:"gasLimit"`
	FeeRecipient *types.Address   `json:"feeRecipient"`
	PrevRandao   *types.Hash      `json:"prevRandao"`
	BaseFee      *types.HexU256   `json:"baseFeePerGas"`
	BlobBaseFee  *types.HexU256   `json:"blobBaseFee"`
	BeaconRoot   *types.Hash      `json:"beaconRoot"`
	Withdrawals  []simWithdrawal  `json:"withdrawals"`
}

type simBlock struct {
	BlockOverrides *simBlockOverrides              `json:"blockOverrides"`
	StateOverrides map[types.Address]StateOverride `json:"stateOverrides"`
	Calls          []CallArgs                      `json:"calls"`
}

type simOpts struct {
	BlockStateCalls        []simBlock `json:"blockStateCalls"`
	TraceTransfers         bool       `json:"traceTransfers"`
	Validation             bool       `json:"validation"`
	ReturnFullTransactions bool       `json:"returnFullTransactions"`
}

type simCallError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    string `json:"data,omitempty"`
}

type simCallResult struct {
	ReturnData types.HexBytes  `json:"returnData"`
	Logs       []*types.Log    `json:"logs"`
	GasUsed    types.HexUint64 `json:"gasUsed"`
	MaxUsedGas types.HexUint64 `json:"maxUsedGas"`
	Status     types.HexUint64 `json:"status"`
	Error      *simCallError   `json:"error,omitempty"`
}

func (w simWithdrawal) toBackend() types.Withdrawal {
	return types.Withdrawal{Index: uint64(w.Index), Validator: uint64(w.Validator), Address: w.Address, Amount: uint64(w.Amount)}
}

func (o *simBlockOverrides) toBackend() *backend.SimBlockOverrides {
	if o == nil {
		return nil
	}
	out := &backend.SimBlockOverrides{
		Number: (*uint64)(o.Number), Time: (*uint64)(o.Time), GasLimit: (*uint64)(o.GasLimit),
		Difficulty: u256(o.Difficulty), FeeRecipient: o.FeeRecipient, PrevRandao: o.PrevRandao, BeaconRoot: o.BeaconRoot,
		BaseFee: u256(o.BaseFee), BlobBaseFee: u256(o.BlobBaseFee),
	}
	for _, w := range o.Withdrawals {
		out.Withdrawals = append(out.Withdrawals, w.toBackend())
	}
	return out
}

func (api *ethAPI) simulate(ctx context.Context, p rpc.Params) (any, error) {
	var opts simOpts
	if err := p.Decode(0, &opts); err != nil {
		return nil, err
	}
	if len(opts.BlockStateCalls) == 0 {
		return nil, rpc.InvalidParams(0, errors.New("empty input"))
	}
	if len(opts.BlockStateCalls) > backend.MaxSimulateBlocks {
		return nil, &rpc.Error{Code: codeClientLimit, Message: "too many blocks"}
	}
	ref, err := blockRef(p, 1)
	if err != nil {
		return nil, err
	}
	blk, err := resolveState(api.b, ref)
	if err != nil {
		return nil, err
	}
	req := &backend.SimulateRequest{Base: blk, TraceTransfers: opts.TraceTransfers, Validation: opts.Validation}
	for _, b := range opts.BlockStateCalls {
		sb := backend.SimBlock{Overrides: b.BlockOverrides.toBackend(), StateOverrides: stateOverrides(b.StateOverrides)}
		for i := range b.Calls {
			sb.Calls = append(sb.Calls, b.Calls[i].toBackend())
		}
		req.Blocks = append(req.Blocks, sb)
	}
	blocks, err := api.b.Simulate(ctx, req)
	if err != nil {
		return nil, err
	}
	out := make([]json.RawMessage, 0, len(blocks))
	for _, sb := range blocks {
		calls := make([]simCallResult, len(sb.Calls))
		for i, c := range sb.Calls {
			calls[i] = simCallResult{
				ReturnData: c.ReturnData, Logs: c.Logs, GasUsed: types.HexUint64(c.GasUsed),
				MaxUsedGas: types.HexUint64(c.MaxUsedGas), Status: types.HexUint64(c.Status),
			}
			var rev *backend.RevertError
			switch {
			case errors.As(c.Err, &rev):
				calls[i].Error = &simCallError{Code: rpc.CodeReverted, Message: rev.Error(), Data: string(types.AppendHexBytes(nil, rev.Data))}
			case c.Err != nil:
				calls[i].Error = &simCallError{Code: codeVMError, Message: c.Err.Error()}
			}
		}
		rendered, err := renderSimBlock(sb.Block, calls, sb.Senders, opts.ReturnFullTransactions)
		if err != nil {
			return nil, err
		}
		out = append(out, rendered)
	}
	return out, nil
}

// render is the block object with the call results, and with full
// transactions carrying the senders the calls named (they are unsigned).
func renderSimBlock(blk *types.Block, calls []simCallResult, senders []types.Address, fullTx bool) (json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(types.BlockJSON(blk, types.BlockJSONOptions{}), &obj); err != nil {
		return nil, err
	}
	c, err := json.Marshal(calls)
	if err != nil {
		return nil, err
	}
	obj["calls"] = c
	if fullTx {
		h := blk.HeaderRef()
		list := make([]json.RawMessage, len(blk.Transactions()))
		for i, tx := range blk.Transactions() {
			list[i] = types.TxJSON(tx, senders[i], &types.TxLocation{
				BlockHash: blk.Hash(), BlockNumber: h.Number, BlockTime: h.Time, Index: uint64(i), BaseFee: h.BaseFee,
			})
		}
		t, err := json.Marshal(list)
		if err != nil {
			return nil, err
		}
		obj["transactions"] = t
	}
	return json.Marshal(obj)
}
