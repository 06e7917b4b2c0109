package ethbackend

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/evm/tracers"
	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
)

// DefaultTraceBytes is the size cap of one trace answer: the JSON-RPC
// response cap, which a larger trace could never be sent under anyway.
const DefaultTraceBytes = 25 << 20

// TraceSizeError is the answer to a trace that would exceed the node's
// size cap.
type TraceSizeError = tracers.SizeError

// traceTimeout is the time cap of a trace: the node's call cap, or less
// when the request's timeout asks for less.
func (b *Backend) traceTimeout(cfg *backend.TraceConfig) time.Duration {
	if cfg.Timeout > 0 && cfg.Timeout < b.opts.CallTimeout {
		return cfg.Timeout
	}
	return b.opts.CallTimeout
}

// newTracer builds the tracer cfg names for one transaction.
func newTracer(cfg *backend.TraceConfig, ctx *tracers.Context) (evm.Tracer, error) {
	ctx.Log = tracers.LogConfig{DisableStack: cfg.DisableStack, DisableStorage: cfg.DisableStorage,
		EnableMemory: cfg.EnableMemory, EnableReturnData: cfg.EnableReturnData, Limit: cfg.Limit}
	t, err := tracers.New(cfg.Tracer, ctx, cfg.TracerConfig)
	if err != nil {
		return nil, &backend.ParamError{Msg: err.Error()}
	}
	return t, nil
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

// traceBlock traces the transaction of blk at index only (or every one
// when only < 0) with the tracer cfg names.
func (b *Backend) traceBlock(ctx context.Context, blk *types.Block, cfg *backend.TraceConfig, only int) ([]backend.TxTrace, error) {
	out := []backend.TxTrace{}
	err := b.replay(ctx, blk, b.traceTimeout(cfg), only, func(i int, tx *types.Transaction, tc *tracers.Context) (evm.Tracer, error) {
		if only >= 0 && i != only {
			return nil, nil
		}
		return newTracer(cfg, tc)
	}, func(_ int, tx *types.Transaction, raw json.RawMessage) error {
		out = append(out, backend.TxTrace{TxHash: tx.Hash(), Result: raw})
		return nil
	})
	return out, err
}

// replay re-executes blk on its parent's state, up to its transaction at
// last (every one when last < 0). pick gives the tracer of each
// transaction (nil: it runs untraced); done gets each traced
// transaction's answer. The whole replay runs under one time cap and one
// size budget (the node's response cap), and the client going away stops
// it too.
func (b *Backend) replay(ctx context.Context, blk *types.Block, limit time.Duration, last int,
	pick func(i int, tx *types.Transaction, tc *tracers.Context) (evm.Tracer, error),
	done func(i int, tx *types.Transaction, raw json.RawMessage) error) error {
	_, release, err := b.replayState(ctx, blk, limit, last, pick, done)
	if err == nil {
		release()
	}
	return err
}

// errStopReplay, from replayState's pick, ends the replay before the
// transaction it was asked about, with no error.
var errStopReplay = errors.New("stop the replay here")

// replayState is replay that also answers the state the replayed
// transactions left, kept from pruning (chainview.PinnedState) until the
// caller calls release; on an error it is released already.
func (b *Backend) replayState(ctx context.Context, blk *types.Block, limit time.Duration, last int,
	pick func(i int, tx *types.Transaction, tc *tracers.Context) (evm.Tracer, error),
	done func(i int, tx *types.Transaction, raw json.RawMessage) error) (_ *state.StateDB, release func(), err error) {
	if blk.Number() == 0 {
		return nil, nil, errors.New("genesis is not traceable")
	}
	parent, err := b.chain.DB().Block(blk.ParentHash())
	if err != nil {
		return nil, nil, fmt.Errorf("parent of block %s: %w", blk.Hash(), err)
	}
	// The state the block was built on: on a dev chain, the parent's with
	// the test helpers' changes.
	st, unpin, err := b.view.PinnedState(parent.HeaderRef())
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if err != nil {
			unpin()
		}
	}()
	x, err := b.chain.Rules().Open(blk.Header(), st, b.chain.GetHash, nil)
	if err != nil {
		return nil, nil, err
	}
	deadline := time.Now().Add(limit)
	timer := time.AfterFunc(limit, x.EVM.Cancel)
	defer timer.Stop()
	defer context.AfterFunc(ctx, x.EVM.Cancel)()
	budget := tracers.NewBudget(b.opts.TraceBytes, x.EVM.Cancel)
	for i, tx := range blk.Transactions() {
		if last >= 0 && i > last {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		if !time.Now().Before(deadline) {
			return nil, nil, &TimeoutError{Limit: limit}
		}
		from, err := x.Signer.Sender(tx)
		if err != nil {
			return nil, nil, err
		}
		tc := &tracers.Context{Budget: budget, BlockHash: blk.Hash(), BlockNumber: blk.Number(), TxIndex: i, TxHash: tx.Hash()}
		tr, err := pick(i, tx, tc)
		if errors.Is(err, errStopReplay) {
			return st, unpin, nil
		}
		if err != nil {
			return nil, nil, err
		}
		x.EVM.Config.Tracer = nil
		if tr != nil {
			x.EVM.Config.Tracer = tr.Hooks()
		}
		mark := budget.Used()
		_, res, err := x.Apply(tx, evm.TransactionToMessage(tx, from))
		if err := traceStopped(ctx, budget, res, err, limit); err != nil {
			return nil, nil, err
		}
		if err == nil {
			err = st.Error() // a read a fork's upstream failed voids the trace
		}
		if err != nil {
			return nil, nil, fmt.Errorf("transaction %s: %w", tx.Hash(), err)
		}
		if tr == nil {
			continue
		}
		raw, err := tr.Result()
		if err != nil {
			return nil, nil, err
		}
		if !budget.Settle(mark, len(raw)) { // the estimate, corrected
			return nil, nil, budget.Err()
		}
		if err := done(i, tx, raw); err != nil {
			return nil, nil, err
		}
	}
	return st, unpin, nil
}

// traceStopped is the error of a traced execution that was stopped: by
// the size budget, the client leaving or the time cap.
func traceStopped(ctx context.Context, budget *tracers.Budget, res *evm.Result, err error, limit time.Duration) error {
	if budget.Err() != nil {
		return budget.Err()
	}
	if err == nil && res != nil && errors.Is(res.Err, evm.ErrCancelled) {
		if err := ctx.Err(); err != nil {
			return err
		}
		return &TimeoutError{Limit: limit}
	}
	return nil
}

// TraceCall runs a call on the state of req.Block, with its overrides,
// and traces it as debug_traceCall does.
func (b *Backend) TraceCall(ctx context.Context, req *backend.CallRequest, cfg *backend.TraceConfig) (json.RawMessage, error) {
	env := newCallEnv(req)
	st, done, err := b.callState(env)
	if err != nil {
		return nil, err
	}
	defer done()
	limit := b.traceTimeout(cfg)
	env.limit, env.deadline = limit, time.Now().Add(limit)
	return b.traceCallOn(ctx, st, env, &req.Args, cfg)
}

// TraceCallMany runs calls one after the other on the state of block,
// each seeing what the ones before it changed, and traces each with its
// own config (trace_callMany). They share one time cap, the node's.
func (b *Backend) TraceCallMany(ctx context.Context, block *types.Block, calls []backend.CallArgs, cfgs []*backend.TraceConfig) ([]json.RawMessage, error) {
	if len(calls) != len(cfgs) {
		return nil, fmt.Errorf("%d calls, %d trace configs", len(calls), len(cfgs))
	}
	st, done, err := b.callState(newCallEnv(&backend.CallRequest{Block: block}))
	if err != nil {
		return nil, err
	}
	defer done()
	deadline := time.Now().Add(b.opts.CallTimeout)
	out := make([]json.RawMessage, len(calls))
	for i := range calls {
		env := newCallEnv(&backend.CallRequest{Block: block, Args: calls[i]})
		env.limit, env.deadline = b.opts.CallTimeout, deadline
		if out[i], err = b.traceCallOn(ctx, st, env, &calls[i], cfgs[i]); err != nil {
			return nil, fmt.Errorf("call %d: %w", i, err)
		}
		st.Finalise(true) // the next call sees this one's changes as committed
	}
	return out, nil
}

// traceCallOn runs the call args on st, in env, with the tracer cfg
// names.
func (b *Backend) traceCallOn(ctx context.Context, st *state.StateDB, env *callEnv, args *backend.CallArgs, cfg *backend.TraceConfig) (json.RawMessage, error) {
	msg, err := message(args, b.callGas(args, env))
	if err != nil {
		return nil, err
	}
	limit := env.limit
	var tr evm.Tracer
	var budget *tracers.Budget
	env.attach = func(vm *evm.EVM) error {
		budget = tracers.NewBudget(b.opts.TraceBytes, vm.Cancel)
		blk := env.blk.HeaderRef()
		var err error
		if tr, err = newTracer(cfg, &tracers.Context{Budget: budget, BlockNumber: blk.Number}); err != nil {
			return err
		}
		vm.Config.Tracer = tr.Hooks()
		context.AfterFunc(ctx, vm.Cancel)
		return nil
	}
	res, err := b.executeOn(st, env, msg, nil)
	if budget != nil {
		if err := traceStopped(ctx, budget, res, nil, limit); err != nil {
			return nil, err
		}
	}
	if err != nil {
		return nil, err
	}
	raw, err := tr.Result()
	if err != nil {
		return nil, err
	}
	if !budget.Settle(0, len(raw)) {
		return nil, budget.Err()
	}
	return raw, nil
}

// StorageRangeAt replays blk up to its transaction at txIndex and pages
// addr's storage as that transaction finds it.
func (b *Backend) StorageRangeAt(ctx context.Context, blk *types.Block, txIndex int, addr types.Address, start types.Hash, max int) (*backend.StorageRange, error) {
	if txIndex < 0 || txIndex > len(blk.Transactions()) {
		return nil, &backend.ParamError{Msg: fmt.Sprintf("transaction index %d out of range (block %d has %d)", txIndex, blk.Number(), len(blk.Transactions()))}
	}
	st, release, err := b.replayState(ctx, blk, b.opts.CallTimeout, -1, func(i int, _ *types.Transaction, _ *tracers.Context) (evm.Tracer, error) {
		if i == txIndex {
			return nil, errStopReplay
		}
		return nil, nil
	}, nil)
	if err != nil {
		return nil, err
	}
	defer release()
	st.IntermediateRoot(true) // the block's writes so far into the storage tries
	slots, next, err := st.StorageRange(addr, start, max)
	if err != nil {
		return nil, err
	}
	out := &backend.StorageRange{Slots: make([]backend.StorageSlot, len(slots)), Next: next}
	for i, sl := range slots {
		out.Slots[i] = backend.StorageSlot{KeyHash: sl.KeyHash, Value: sl.Value}
	}
	return out, nil
}
