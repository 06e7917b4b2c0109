package tracers

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/types"
)

func init() {
	register("flatCallTracer", func(ctx *Context, cfg json.RawMessage) (evm.Tracer, error) {
		var c flatConfig
		if err := decodeConfig("flatCallTracer", cfg, &c); err != nil {
			return nil, err
		}
		return &flatCallTracer{call: newCallTracer(ctx, callConfig{}), ctx: ctx, cfg: c}, nil
	})
}

type flatConfig struct {
	ConvertParityErrors bool `json:"convertParityErrors"` // errors in parity's words
	IncludePrecompiles  bool `json:"includePrecompiles"`  // keep calls to precompiles
}

// flatCallTracer lists the call tree depth first in parity's trace shape
// (go-ethereum's flatCallTracer; trace_* serves the same frames).
type flatCallTracer struct {
	call        *callTracer
	ctx         *Context
	cfg         flatConfig
	precompiles []types.Address
}

func (t *flatCallTracer) Hooks() *evm.Hooks {
	h := t.call.Hooks()
	start := h.OnTxStart
	h.OnTxStart = func(vm *evm.EVM, msg *evm.Message) {
		start(vm, msg)
		t.precompiles = vm.PrecompileAddresses()
	}
	exit := h.OnExit
	h.OnExit = func(depth int, output []byte, gasUsed uint64, err error, reverted bool) {
		exit(depth, output, gasUsed, err, reverted)
		if depth == 0 || t.cfg.IncludePrecompiles || len(t.call.stack) == 0 {
			return
		}
		// A plain or static call to a precompile is left out.
		parent := t.call.stack[len(t.call.stack)-1]
		if n := len(parent.Calls); n > 0 {
			c := parent.Calls[n-1]
			if (c.typ == evm.FrameCall || c.typ == evm.FrameStaticCall) && c.To != nil && slices.Contains(t.precompiles, *c.To) {
				parent.Calls = parent.Calls[:n-1]
			}
		}
	}
	return h
}

func (t *flatCallTracer) Result() (json.RawMessage, error) {
	if t.call.root == nil {
		return nil, errors.New("flatCallTracer: no call frame")
	}
	var out []flatFrame
	flatten(t.call.root, []int{}, t.cfg.ConvertParityErrors, t.ctx, &out)
	return json.Marshal(out)
}

// flatFrame is one frame in parity's trace shape.
type flatFrame struct {
	Action              flatAction  `json:"action"`
	BlockHash           *types.Hash `json:"blockHash"`
	BlockNumber         uint64      `json:"blockNumber"`
	Error               string      `json:"error,omitempty"`
	Result              *flatResult `json:"result,omitempty"`
	Subtraces           int         `json:"subtraces"`
	TraceAddress        []int       `json:"traceAddress"`
	TransactionHash     *types.Hash `json:"transactionHash"`
	TransactionPosition uint64      `json:"transactionPosition"`
	Type                string      `json:"type"`
}

type flatAction struct {
	SelfDestructed *types.Address   `json:"address,omitempty"`
	Balance        *types.HexU256   `json:"balance,omitempty"`
	CallType       string           `json:"callType,omitempty"`
	CreationMethod string           `json:"creationMethod,omitempty"`
	From           *types.Address   `json:"from,omitempty"`
	Gas            *types.HexUint64 `json:"gas,omitempty"`
	Init           *types.HexBytes  `json:"init,omitempty"`
	Input          *types.HexBytes  `json:"input,omitempty"`
	RefundAddress  *types.Address   `json:"refundAddress,omitempty"`
	To             *types.Address   `json:"to,omitempty"`
	Value          *types.HexU256   `json:"value,omitempty"`
}

type flatResult struct {
	Address *types.Address   `json:"address,omitempty"`
	Code    *types.HexBytes  `json:"code,omitempty"`
	GasUsed *types.HexUint64 `json:"gasUsed,omitempty"`
	Output  *types.HexBytes  `json:"output,omitempty"`
}

// flatten appends f and the frames under it, depth first, each with its
// path from the top frame.
func flatten(f *callFrame, addr []int, parityErrs bool, ctx *Context, out *[]flatFrame) {
	fr := flatFrame{TraceAddress: addr, Error: f.Error, Subtraces: len(f.Calls)}
	gas, used := f.Gas, f.GasUsed
	zero := new(types.HexU256)
	value := f.Value
	if value == nil {
		value = zero
	}
	switch f.typ {
	case evm.FrameCreate, evm.FrameCreate2:
		init, code := f.Input, f.Output
		fr.Type = "create"
		fr.Action = flatAction{CreationMethod: strings.ToLower(f.Type), From: &f.From, Gas: &gas, Value: value, Init: &init}
		fr.Result = &flatResult{GasUsed: &used, Address: f.To, Code: &code}
	case evm.FrameSelfDestruct:
		fr.Type = "suicide"
		fr.Action = flatAction{SelfDestructed: &f.From, Balance: value, RefundAddress: f.To}
	default:
		in, output := f.Input, f.Output
		fr.Type = "call"
		fr.Action = flatAction{From: &f.From, To: f.To, Gas: &gas, Value: f.Value, CallType: strings.ToLower(f.Type), Input: &in}
		if f.Value == nil && len(addr) > 0 {
			fr.Action.Value = zero
		}
		fr.Result = &flatResult{GasUsed: &used, Output: &output}
	}
	if ctx != nil {
		if ctx.BlockHash != (types.Hash{}) {
			h := ctx.BlockHash
			fr.BlockHash = &h
		}
		fr.BlockNumber = ctx.BlockNumber
		if ctx.TxHash != (types.Hash{}) {
			h := ctx.TxHash
			fr.TransactionHash = &h
		}
		fr.TransactionPosition = uint64(ctx.TxIndex)
	}
	if parityErrs {
		fr.Error = ParityError(fr.Error)
	}
	if f.Error != "" && f.Error != evm.ErrExecutionReverted.Error() {
		fr.Result = nil
	}
	*out = append(*out, fr)
	for i, c := range f.Calls {
		flatten(c, append(slices.Clone(addr), i), parityErrs, ctx, out)
	}
}

// ParityError is an EVM error in the words of parity's traces (the
// mapping Erigon, Nethermind and go-ethereum's flatCallTracer use).
func ParityError(msg string) string {
	switch msg {
	case "":
		return ""
	case evm.ErrCodeStoreOutOfGas.Error(), evm.ErrOutOfGas.Error(), evm.ErrGasUintOverflow.Error(), evm.ErrMaxCodeSizeExceeded.Error():
		return "Out of gas"
	case evm.ErrInvalidJump.Error():
		return "Bad jump destination"
	case evm.ErrExecutionReverted.Error():
		return "Reverted"
	case evm.ErrReturnDataOutOfBounds.Error():
		return "Out of bounds"
	}
	switch {
	case strings.HasPrefix(msg, "out of gas"):
		return "Out of gas"
	case strings.HasPrefix(msg, "invalid opcode"):
		return "Bad instruction"
	case strings.HasPrefix(msg, "stack limit reached"):
		return "Out of stack"
	case strings.HasPrefix(msg, "stack underflow"):
		return "Stack underflow"
	case strings.HasPrefix(msg, "precompile"), strings.HasPrefix(msg, "invalid input length"):
		return "Built-in failed"
	}
	return msg
}
