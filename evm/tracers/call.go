package tracers

import (
	"encoding/json"
	"errors"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

func init() {
	register("callTracer", func(ctx *Context, cfg json.RawMessage) (evm.Tracer, error) {
		var c callConfig
		if err := decodeConfig("callTracer", cfg, &c); err != nil {
			return nil, err
		}
		return newCallTracer(ctx, c), nil
	})
}

type callConfig struct {
	OnlyTopCall bool `json:"onlyTopCall"` // no inner frames
	WithLog     bool `json:"withLog"`     // the logs each frame emitted
}

// callFrame is one frame of go-ethereum's callTracer.
type callFrame struct {
	Type         string          `json:"type"`
	From         types.Address   `json:"from"`
	Gas          types.HexUint64 `json:"gas"`
	GasUsed      types.HexUint64 `json:"gasUsed"`
	To           *types.Address  `json:"to,omitempty"`
	Input        types.HexBytes  `json:"input"`
	Output       types.HexBytes  `json:"output,omitempty"`
	Error        string          `json:"error,omitempty"`
	RevertReason string          `json:"revertReason,omitempty"`
	Calls        []*callFrame    `json:"calls,omitempty"`
	Logs         []callLog       `json:"logs,omitempty"`
	Value        *types.HexU256  `json:"value,omitempty"`

	typ      byte
	reverted bool // the frame's state changes were undone
}

// callLog is a log with its place among the frame's calls: position is
// the number of calls the frame had made when it was emitted.
type callLog struct {
	Address  types.Address   `json:"address"`
	Topics   []types.Hash    `json:"topics"`
	Data     types.HexBytes  `json:"data"`
	Position types.HexUint64 `json:"position"`
}

// callTracer builds the tree of call frames. The flat and parity tracers
// are built on it.
type callTracer struct {
	cfg      callConfig
	budget   *Budget
	gasLimit uint64
	depth    int
	stack    []*callFrame
	root     *callFrame
}

func newCallTracer(ctx *Context, cfg callConfig) *callTracer {
	return &callTracer{cfg: cfg, budget: ctx.Budget}
}

func (t *callTracer) Hooks() *evm.Hooks {
	h := &evm.Hooks{
		OnTxStart: func(_ *evm.EVM, msg *evm.Message) { t.gasLimit = msg.GasLimit },
		OnTxEnd:   t.onTxEnd,
		OnEnter:   t.onEnter,
		OnExit:    t.onExit,
	}
	if t.cfg.WithLog {
		h.OnLog = t.onLog
	}
	return h
}

func (t *callTracer) onEnter(depth int, typ byte, from, to types.Address, input []byte, gas uint64, value *uint256.Int) {
	t.depth = depth
	if t.cfg.OnlyTopCall && depth > 0 {
		return
	}
	// A frame left out once the budget is gone: the trace fails anyway.
	if !t.budget.Spend(callFrameBytes + 2*len(input)) {
		return
	}
	to2 := to
	f := &callFrame{Type: evm.OpCode(typ).String(), typ: typ, From: from, Gas: types.HexUint64(gas), To: &to2, Input: append([]byte{}, input...)}
	// The top frame's gas is the transaction's gas limit (go-ethereum
	// since its PR 27029): intrinsic gas included.
	if depth == 0 {
		f.Gas = types.HexUint64(t.gasLimit)
	}
	if value != nil && typ != evm.FrameStaticCall {
		f.Value = (*types.HexU256)(new(uint256.Int).Set(value))
	}
	if depth == 0 {
		t.root = f
	}
	t.stack = append(t.stack, f)
}

func (t *callTracer) onExit(depth int, output []byte, gasUsed uint64, err error, reverted bool) {
	t.depth = depth - 1
	if t.cfg.OnlyTopCall && depth > 0 {
		return
	}
	n := len(t.stack)
	if n == 0 {
		return
	}
	f := t.stack[n-1]
	t.stack = t.stack[:n-1]
	f.GasUsed = types.HexUint64(gasUsed)
	if !t.budget.Spend(2*len(output) + 2*len(errString(err))) {
		return
	}
	f.setOutput(output, err, reverted)
	if n > 1 {
		parent := t.stack[n-2]
		parent.Calls = append(parent.Calls, f)
	}
}

// setOutput records how the frame ended, as go-ethereum does: the output
// of a success, the error (and for a revert its data and decoded reason)
// of a failure; a failed creation has no address.
func (f *callFrame) setOutput(output []byte, err error, reverted bool) {
	if err != nil && !reverted {
		err = nil // a pre-Homestead code-store out of gas keeps the frame
	}
	if err == nil {
		if len(output) > 0 {
			f.Output = append([]byte{}, output...)
		}
		return
	}
	f.Error, f.reverted = err.Error(), true
	if f.typ == evm.FrameCreate || f.typ == evm.FrameCreate2 {
		f.To = nil
	}
	if !errors.Is(err, evm.ErrExecutionReverted) || len(output) == 0 {
		return
	}
	f.Output = append([]byte{}, output...)
	if reason, ok := types.UnpackRevert(output); ok {
		f.RevertReason = reason
	}
}

func (t *callTracer) onLog(l *types.Log) {
	if t.cfg.OnlyTopCall && t.depth > 0 || len(t.stack) == 0 {
		return
	}
	if !t.budget.Spend(200 + 2*len(l.Data) + len(l.Topics)*wordBytes) {
		return
	}
	f := t.stack[len(t.stack)-1]
	f.Logs = append(f.Logs, callLog{Address: l.Address, Topics: append([]types.Hash{}, l.Topics...),
		Data: append([]byte{}, l.Data...), Position: types.HexUint64(len(f.Calls))})
}

func (t *callTracer) onTxEnd(res *evm.Result, err error) {
	if err != nil || t.root == nil {
		return
	}
	// The top frame reports the transaction's gas, intrinsic cost and
	// refund included.
	t.root.GasUsed = types.HexUint64(res.UsedGas)
	clearFailedLogs(t.root, false)
}

// clearFailedLogs drops the logs of failed frames and of every frame
// under one: the EVM took them back.
func clearFailedLogs(f *callFrame, parentFailed bool) {
	failed := parentFailed || f.reverted
	if failed {
		f.Logs = nil
	}
	for _, c := range f.Calls {
		clearFailedLogs(c, failed)
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func (t *callTracer) Result() (json.RawMessage, error) {
	if t.root == nil || len(t.stack) != 0 {
		return nil, errors.New("callTracer: incorrect number of top-level calls")
	}
	return json.Marshal(t.root)
}
