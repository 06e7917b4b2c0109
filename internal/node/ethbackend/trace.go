package ethbackend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
	"github.com/holiman/uint256"
)

// txTracer observes one transaction and renders its trace.
type txTracer interface {
	hooks() *evm.Hooks
	result(res *evm.Result) (any, error)
	spent() int // bytes charged to the budget so far
}

func newTxTracer(cfg *backend.TraceConfig, st *state.StateDB, b *traceBudget) (txTracer, error) {
	switch cfg.Tracer {
	case "":
		return &structLogger{cfg: cfg, st: st, budget: b}, nil
	case "callTracer":
		return &callTracer{onlyTop: cfg.OnlyTopCall, withLog: cfg.WithLog, budget: b}, nil
	}
	return nil, fmt.Errorf("tracer %q is not supported (the default struct logger and callTracer are)", cfg.Tracer)
}

// DefaultTraceBytes is the size cap of one trace answer: the JSON-RPC
// response cap, which a larger trace could never be sent under anyway.
const DefaultTraceBytes = 25 << 20

// TraceSizeError is the answer to a trace that would exceed the node's
// size cap: a struct log of a memory-heavy transaction grows by the whole
// memory at every step, hundreds of MiB for a small transaction.
type TraceSizeError struct{ Limit int }

func (e *TraceSizeError) Error() string {
	return fmt.Sprintf("trace exceeds the node's limit of %d bytes (ask for less: limit, disableStack, disableStorage, enableMemory off, or the callTracer)", e.Limit)
}

// traceBudget bounds the size of one trace answer, over all the
// transactions it traces. Tracers spend an estimate of the JSON they will
// render before they build it; once the budget is gone the tracer records
// nothing more and the execution is stopped.
type traceBudget struct {
	limit, used int
	err         error
	stop        func() // cancels the EVM
}

// spend charges n bytes and reports whether they fit.
func (b *traceBudget) spend(n int) bool {
	if b.err != nil {
		return false
	}
	if b.used += n; b.used > b.limit {
		b.err = &TraceSizeError{Limit: b.limit}
		b.stop()
		return false
	}
	return true
}

// traceTimeout is the time cap of a trace: the node's call cap, or less
// when the request's timeout asks for less.
func (b *Backend) traceTimeout(cfg *backend.TraceConfig) time.Duration {
	if cfg.Timeout > 0 && cfg.Timeout < b.opts.CallTimeout {
		return cfg.Timeout
	}
	return b.opts.CallTimeout
}

// TraceBlock replays blk on its parent's state and traces every
// transaction.
func (b *Backend) TraceBlock(ctx context.Context, blk *types.Block, cfg *backend.TraceConfig) ([]backend.TxTrace, error) {
	return b.traceBlock(ctx, blk, cfg, -1)
}

// TraceTransaction replays blk up to its transaction at index and traces
// that one.
func (b *Backend) TraceTransaction(ctx context.Context, blk *types.Block, index int, cfg *backend.TraceConfig) (json.RawMessage, error) {
	res, err := b.traceBlock(ctx, blk, cfg, index)
	if err != nil {
		return nil, err
	}
	if len(res) != 1 {
		var h types.Hash
		if txs := blk.Transactions(); index >= 0 && index < len(txs) {
			h = txs[index].Hash()
		}
		return nil, fmt.Errorf("transaction %s not at index %d of its block", h, index)
	}
	return res[0].Result, nil
}

// traceBlock replays blk on its parent's state, tracing the transaction at
// index only (or every one when only < 0).
func (b *Backend) traceBlock(ctx context.Context, blk *types.Block, cfg *backend.TraceConfig, only int) ([]backend.TxTrace, error) {
	if blk.Number() == 0 {
		return nil, errors.New("genesis is not traceable")
	}
	parent, err := b.chain.DB().Block(blk.ParentHash())
	if err != nil {
		return nil, fmt.Errorf("parent of block %s: %w", blk.Hash(), err)
	}
	// The state the block was built on: on a dev chain, the parent's with
	// the test helpers' changes.
	st, err := b.view.State(parent.HeaderRef())
	if err != nil {
		return nil, err
	}
	x, err := b.chain.Rules().Open(blk.Header(), st, b.chain.GetHash, nil)
	if err != nil {
		return nil, err
	}
	// The whole request runs under one time cap and one size budget; the
	// client going away stops it too.
	limit := b.traceTimeout(cfg)
	deadline := time.Now().Add(limit)
	timer := time.AfterFunc(limit, x.EVM.Cancel)
	defer timer.Stop()
	defer context.AfterFunc(ctx, x.EVM.Cancel)()
	budget := &traceBudget{limit: b.opts.TraceBytes, stop: x.EVM.Cancel}
	var out []backend.TxTrace
	for i, tx := range blk.Transactions() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !time.Now().Before(deadline) {
			return nil, &TimeoutError{Limit: limit}
		}
		if only >= 0 && i > only {
			break
		}
		from, err := x.Signer.Sender(tx)
		if err != nil {
			return nil, err
		}
		var tr txTracer
		x.EVM.Config.Tracer = nil
		if only < 0 || i == only {
			if tr, err = newTxTracer(cfg, st, budget); err != nil {
				return nil, err
			}
			x.EVM.Config.Tracer = tr.hooks()
		}
		_, res, err := x.Apply(tx, evm.TransactionToMessage(tx, from))
		if budget.err != nil {
			return nil, budget.err
		}
		if err == nil && errors.Is(res.Err, evm.ErrCancelled) {
			if err = ctx.Err(); err == nil {
				err = &TimeoutError{Limit: limit}
			}
			return nil, err
		}
		if err == nil {
			err = st.Error() // a read a fork's upstream failed voids the trace
		}
		if err != nil {
			return nil, fmt.Errorf("transaction %s: %w", tx.Hash(), err)
		}
		if tr != nil {
			r, err := tr.result(res)
			if err != nil {
				return nil, err
			}
			raw, err := json.Marshal(r)
			if err != nil {
				return nil, err
			}
			if !budget.spend(len(raw) - tr.spent()) { // the estimate, corrected
				return nil, budget.err
			}
			t := backend.TxTrace{TxHash: tx.Hash(), Result: raw}
			if only >= 0 {
				return []backend.TxTrace{t}, nil
			}
			out = append(out, t)
		}
	}
	if out == nil {
		out = []backend.TxTrace{}
	}
	return out, nil
}

// ---- struct logger ----

type structLog struct {
	PC         uint64            `json:"pc"`
	Op         string            `json:"op"`
	Gas        uint64            `json:"gas"`
	GasCost    uint64            `json:"gasCost"`
	Depth      int               `json:"depth"`
	Stack      *[]string         `json:"stack,omitempty"`
	Memory     *[]string         `json:"memory,omitempty"`
	ReturnData string            `json:"returnData,omitempty"`
	Storage    map[string]string `json:"storage,omitempty"`
	Refund     uint64            `json:"refund,omitempty"`
	Error      string            `json:"error,omitempty"`
}

// structLogger records every executed opcode (go-ethereum's default
// tracer): the stack, optionally memory and the storage slots the
// current contract touched so far.
type structLogger struct {
	cfg     *backend.TraceConfig
	st      *state.StateDB
	budget  *traceBudget
	est     int // bytes charged to the budget
	logs    []structLog
	ctxs    []types.Address // storage context of each open frame
	storage map[types.Address]map[types.Hash]types.Hash
	lastRet []byte
}

func (l *structLogger) hooks() *evm.Hooks {
	l.storage = map[types.Address]map[types.Hash]types.Hash{}
	return &evm.Hooks{
		OnEnter: func(_ int, typ byte, from, to types.Address, _ []byte, _ uint64, _ *uint256.Int) {
			ctx := to
			if typ == evm.FrameDelegateCall || typ == evm.FrameCallCode {
				ctx = from
			}
			l.ctxs = append(l.ctxs, ctx)
		},
		OnExit: func(_ int, output []byte, _ uint64, _ error, _ bool) {
			if n := len(l.ctxs); n > 0 {
				l.ctxs = l.ctxs[:n-1]
			}
			l.lastRet = append(l.lastRet[:0], output...)
		},
		OnOpcode: l.onOpcode,
	}
}

// Upper bounds of the JSON of a struct log entry's parts, charged before
// the entry is built: the fixed fields, a stack item or memory word
// ("0x" and 64 digits, quotes, comma) and a storage slot (two of them).
const (
	structLogBytes = 160
	wordBytes      = 69
	slotBytes      = 2 * wordBytes
)

func (l *structLogger) spent() int { return l.est }

// entryBytes bounds the JSON of the entry onOpcode is about to record.
func (l *structLogger) entryBytes(op byte, stack, memory int, err error) int {
	n := structLogBytes + len(evm.OpCode(op).String())
	if err != nil {
		n += 2 * len(err.Error()) // escaping at worst doubles it
	}
	if !l.cfg.DisableStack {
		n += stack * wordBytes
	}
	if l.cfg.EnableMemory {
		n += memory / 32 * wordBytes
	}
	if l.cfg.EnableReturnData {
		n += 2*len(l.lastRet) + 4
	}
	if !l.cfg.DisableStorage && (evm.OpCode(op) == evm.SLOAD || evm.OpCode(op) == evm.SSTORE) && len(l.ctxs) > 0 {
		n += (len(l.storage[l.ctxs[len(l.ctxs)-1]]) + 1) * slotBytes
	}
	return n
}

func (l *structLogger) onOpcode(pc uint64, op byte, gas, cost uint64, stack []uint256.Int, memory []byte, depth int, err error) {
	if l.cfg.Limit > 0 && len(l.logs) >= l.cfg.Limit {
		return // go-ethereum's limit: the first entries only, no error
	}
	n := l.entryBytes(op, len(stack), len(memory), err)
	if !l.budget.spend(n) {
		return
	}
	l.est += n
	e := structLog{PC: pc, Op: evm.OpCode(op).String(), Gas: gas, GasCost: cost, Depth: depth, Refund: l.st.GetRefund()}
	if err != nil {
		e.Error = err.Error()
	}
	if !l.cfg.DisableStack {
		s := make([]string, len(stack))
		for i := range stack {
			s[i] = stack[i].Hex()
		}
		e.Stack = &s
	}
	// Memory is a list of 0x-prefixed 32-byte words, left out while it
	// is still empty (as go-ethereum does) and whenever it is not asked
	// for.
	if l.cfg.EnableMemory && len(memory) > 0 {
		m := make([]string, 0, len(memory)/32)
		for i := 0; i+32 <= len(memory); i += 32 {
			m = append(m, string(types.AppendHexBytes(nil, memory[i:i+32])))
		}
		e.Memory = &m
	}
	if l.cfg.EnableReturnData && len(l.lastRet) > 0 {
		e.ReturnData = string(types.AppendHexBytes(nil, l.lastRet))
	}
	if !l.cfg.DisableStorage && (evm.OpCode(op) == evm.SLOAD || evm.OpCode(op) == evm.SSTORE) && len(l.ctxs) > 0 && len(stack) >= 1 {
		addr := l.ctxs[len(l.ctxs)-1]
		slots := l.storage[addr]
		if slots == nil {
			slots = map[types.Hash]types.Hash{}
			l.storage[addr] = slots
		}
		key := types.Hash(stack[len(stack)-1].Bytes32())
		switch {
		case op == 0x54:
			slots[key] = l.st.GetState(addr, key)
		case len(stack) >= 2:
			slots[key] = types.Hash(stack[len(stack)-2].Bytes32())
		}
		e.Storage = make(map[string]string, len(slots))
		for k, v := range slots {
			e.Storage[k.Hex()] = v.Hex()
		}
	}
	l.logs = append(l.logs, e)
}

func (l *structLogger) result(res *evm.Result) (any, error) {
	logs := l.logs
	if logs == nil {
		logs = []structLog{}
	}
	return struct {
		Gas         uint64      `json:"gas"`
		Failed      bool        `json:"failed"`
		ReturnValue string      `json:"returnValue"`
		StructLogs  []structLog `json:"structLogs"`
	}{res.UsedGas, res.Failed(), string(types.AppendHexBytes(nil, res.ReturnData)), logs}, nil
}

// ---- call tracer ----

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
}

type callLog struct {
	Address types.Address  `json:"address"`
	Topics  []types.Hash   `json:"topics"`
	Data    types.HexBytes `json:"data"`
}

// callTracer builds the tree of call frames (go-ethereum's callTracer).
type callTracer struct {
	onlyTop bool
	withLog bool
	budget  *traceBudget
	est     int // bytes charged to the budget
	stack   []*callFrame
	root    *callFrame
}

func (t *callTracer) hooks() *evm.Hooks {
	return &evm.Hooks{
		OnEnter: func(depth int, typ byte, from, to types.Address, input []byte, gas uint64, value *uint256.Int) {
			// A frame left out once the budget is gone: the trace fails.
			n := callFrameBytes + 2*len(input)
			if !t.budget.spend(n) {
				return
			}
			t.est += n
			f := &callFrame{Type: evm.OpCode(typ).String(), From: from, Gas: types.HexUint64(gas), Input: append([]byte{}, input...)}
			toCopy := to
			f.To = &toCopy
			if value != nil && typ != evm.FrameDelegateCall && typ != evm.FrameStaticCall {
				f.Value = (*types.HexU256)(new(uint256.Int).Set(value))
			}
			if depth == 0 {
				t.root = f
			} else if len(t.stack) > 0 && !t.onlyTop {
				parent := t.stack[len(t.stack)-1]
				parent.Calls = append(parent.Calls, f)
			}
			t.stack = append(t.stack, f)
		},
		OnExit: func(_ int, output []byte, gasUsed uint64, err error, reverted bool) {
			n := len(t.stack)
			if n == 0 {
				return
			}
			f := t.stack[n-1]
			t.stack = t.stack[:n-1]
			f.GasUsed = types.HexUint64(gasUsed)
			out := 2*len(output) + 2*len(errString(err))
			if !t.budget.spend(out) {
				return
			}
			t.est += out
			if len(output) > 0 {
				f.Output = append([]byte{}, output...)
			}
			if err != nil {
				f.Error = err.Error()
				if errors.Is(err, evm.ErrExecutionReverted) {
					if reason, ok := backend.UnpackRevert(output); ok {
						f.RevertReason = reason
					}
				}
				if f.Type == "CREATE" || f.Type == "CREATE2" {
					f.To = nil
				}
				f.Logs = nil
			}
		},
	}
}

// callFrameBytes bounds the JSON of a call frame without its input and
// output.
const callFrameBytes = 400

func (t *callTracer) spent() int { return t.est }

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func (t *callTracer) result(res *evm.Result) (any, error) {
	if t.root == nil {
		return nil, errors.New("call tracer saw no call frame")
	}
	// The top frame reports the transaction's gas, intrinsic cost included.
	t.root.GasUsed = types.HexUint64(res.UsedGas)
	return t.root, nil
}
