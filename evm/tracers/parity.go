package tracers

import (
	"encoding/json"
	"errors"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

func init() {
	register("parityTracer", func(ctx *Context, cfg json.RawMessage) (evm.Tracer, error) {
		var c parityConfig
		if err := decodeConfig("parityTracer", cfg, &c); err != nil {
			return nil, err
		}
		if c.VMTrace {
			return nil, errors.New("parityTracer: vmTrace is not supported by chaind (trace and stateDiff are)")
		}
		t := &parityTracer{cfg: c, ctx: ctx, call: newCallTracer(ctx, callConfig{})}
		if c.StateDiff {
			t.pre = &prestateTracer{cfg: prestateConfig{IncludeEmpty: true}, budget: ctx.Budget, pre: stateMap{},
				post: stateMap{}, created: map[types.Address]bool{}, deleted: map[types.Address]bool{}}
		}
		return t, nil
	})
}

// parityConfig picks the parts of a parity replay (the trace_* methods'
// traceTypes); Located adds the block and transaction fields trace_block
// and trace_transaction put on every trace.
type parityConfig struct {
	Trace     bool `json:"trace"`
	StateDiff bool `json:"stateDiff"`
	VMTrace   bool `json:"vmTrace"`
	Located   bool `json:"located"`
}

// parityTracer answers the parity trace_* shapes (Erigon's, Nethermind's
// and anvil's): the call tree flattened with parity's error words, the
// top frame's gas and gas used without intrinsic gas, and the state diff.
type parityTracer struct {
	cfg     parityConfig
	ctx     *Context
	call    *callTracer
	pre     *prestateTracer
	vm      *evm.EVM
	topGas  uint64
	topUsed uint64
	output  []byte
}

func (t *parityTracer) Hooks() *evm.Hooks {
	h := t.call.Hooks()
	start, enter, exit, end := h.OnTxStart, h.OnEnter, h.OnExit, h.OnTxEnd
	h.OnTxStart = func(vm *evm.EVM, msg *evm.Message) {
		t.vm = vm
		start(vm, msg)
		if t.pre != nil {
			t.pre.onTxStart(vm, msg)
		}
	}
	h.OnEnter = func(depth int, typ byte, from, to types.Address, input []byte, gas uint64, value *uint256.Int) {
		if depth == 0 {
			t.topGas = gas
		}
		enter(depth, typ, from, to, input, gas, value)
	}
	h.OnExit = func(depth int, output []byte, gasUsed uint64, err error, reverted bool) {
		if depth == 0 {
			t.topUsed, t.output = gasUsed, append([]byte{}, output...)
		}
		exit(depth, output, gasUsed, err, reverted)
	}
	h.OnTxEnd = func(res *evm.Result, err error) {
		end(res, err)
	}
	if t.pre != nil {
		h.OnOpcode = t.pre.onOpcode
	}
	return h
}

// Result is the replay object {output, stateDiff, trace, vmTrace}, or
// with Located the list of traces alone.
func (t *parityTracer) Result() (json.RawMessage, error) {
	if t.call.root == nil {
		return nil, errors.New("parityTracer: no call frame")
	}
	var traces []flatFrame
	if t.cfg.Trace || t.cfg.Located {
		root := *t.call.root
		root.Gas, root.GasUsed = types.HexUint64(t.topGas), types.HexUint64(t.topUsed)
		var loc *Context
		if t.cfg.Located {
			loc = t.ctx
		}
		flatten(&root, []int{}, true, loc, &traces)
		if !t.cfg.Located {
			for i := range traces {
				traces[i].BlockHash, traces[i].TransactionHash = nil, nil
			}
		}
	}
	if t.cfg.Located {
		return json.Marshal(locatedTraces(traces))
	}
	out := struct {
		Output    types.HexBytes `json:"output"`
		StateDiff any            `json:"stateDiff"`
		Trace     any            `json:"trace"`
		VMTrace   any            `json:"vmTrace"`
	}{Output: t.output, Trace: []flatFrame{}}
	if t.cfg.Trace {
		out.Trace = unlocatedTraces(traces)
	}
	if t.cfg.StateDiff {
		d, err := t.stateDiff()
		if err != nil {
			return nil, err
		}
		out.StateDiff = d
	}
	return json.Marshal(out)
}

// locatedTraces are traces with their block and transaction.
type locatedTraces []flatFrame

// unlocatedTraces are a replay's traces: the same frames without where
// they sit, which a replay does not say.
type unlocatedTraces []flatFrame

func (u unlocatedTraces) MarshalJSON() ([]byte, error) {
	type unlocated struct {
		Action       flatAction  `json:"action"`
		Error        string      `json:"error,omitempty"`
		Result       *flatResult `json:"result"`
		Subtraces    int         `json:"subtraces"`
		TraceAddress []int       `json:"traceAddress"`
		Type         string      `json:"type"`
	}
	out := make([]unlocated, len(u))
	for i, f := range u {
		out[i] = unlocated{f.Action, f.Error, f.Result, f.Subtraces, f.TraceAddress, f.Type}
	}
	return json.Marshal(out)
}

// diffValue is one field of a parity state diff: "=" unchanged, {"+": v}
// born, {"-": v} died, {"*": {"from": a, "to": b}} changed.
func diffValue(born, died bool, from, to any, same bool) any {
	switch {
	case born:
		return map[string]any{"+": to}
	case died:
		return map[string]any{"-": from}
	case same:
		return "="
	}
	return map[string]any{"*": map[string]any{"from": from, "to": to}}
}

// stateDiff compares every account and slot the transaction touched
// with its value after it.
func (t *parityTracer) stateDiff() (map[types.Address]any, error) {
	if t.pre.failed != nil {
		return nil, t.pre.failed
	}
	st := t.vm.StateDB
	out := map[types.Address]any{}
	for addr, pre := range t.pre.pre {
		existed := !pre.empty
		gone := t.pre.deleted[addr] || !st.Exist(addr) || st.Empty(addr) && !existed
		if !existed && gone {
			continue
		}
		born, died := !existed, existed && (t.pre.deleted[addr] || !st.Exist(addr))
		preBal := (*uint256.Int)(pre.Balance)
		postBal, postNonce, postCode := st.GetBalance(addr), st.GetNonce(addr), st.GetCode(addr)
		if died {
			postBal, postNonce, postCode = new(uint256.Int), 0, nil
		}
		storage := map[types.Hash]any{}
		for k, v := range pre.Storage {
			nv := st.GetState(addr, k)
			if died {
				nv = types.Hash{}
			}
			switch {
			case born && nv != (types.Hash{}):
				storage[k] = map[string]any{"+": nv}
			case died && v != (types.Hash{}):
				storage[k] = map[string]any{"-": v}
			case !born && !died && v != nv:
				storage[k] = map[string]any{"*": map[string]any{"from": v, "to": nv}}
			}
		}
		acct := map[string]any{
			"balance": diffValue(born, died, (*types.HexU256)(preBal), (*types.HexU256)(new(uint256.Int).Set(postBal)), preBal.Eq(postBal)),
			"nonce":   diffValue(born, died, types.HexUint64(pre.Nonce), types.HexUint64(postNonce), pre.Nonce == postNonce),
			"code":    diffValue(born, died, pre.Code, types.HexBytes(postCode), string(pre.Code) == string(postCode)),
			"storage": storage,
		}
		if !born && !died && acct["balance"] == "=" && acct["nonce"] == "=" && acct["code"] == "=" && len(storage) == 0 {
			continue
		}
		out[addr] = acct
	}
	return out, nil
}
