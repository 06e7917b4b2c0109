package ethbackend

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
	"github.com/holiman/uint256"
)

// message builds the EVM message of a call with gas limit gas.
func message(a *backend.CallArgs, gas uint64) (*evm.Message, error) {
	if a.GasPrice != nil && (a.MaxFeePerGas != nil || a.MaxPriorityFeePerGas != nil) {
		return nil, &backend.ParamError{Msg: "both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified"}
	}
	data, err := a.CallData()
	if err != nil {
		return nil, err
	}
	msg := &evm.Message{
		To:               a.To,
		GasLimit:         gas,
		Value:            new(uint256.Int),
		Data:             data,
		SkipNonceChecks:  true,
		SkipFromEOACheck: true,
	}
	if a.From != nil {
		msg.From = *a.From
	}
	if a.Value != nil {
		msg.Value.Set(a.Value)
	}
	if a.Nonce != nil {
		msg.Nonce = uint64(*a.Nonce)
	}
	if a.AccessList != nil {
		msg.AccessList = *a.AccessList
	}
	switch {
	case a.GasPrice != nil:
		msg.GasPrice = new(uint256.Int).Set(a.GasPrice)
	case a.MaxFeePerGas != nil || a.MaxPriorityFeePerGas != nil:
		msg.GasFeeCap, msg.GasTipCap = new(uint256.Int), new(uint256.Int)
		if a.MaxFeePerGas != nil {
			msg.GasFeeCap.Set(a.MaxFeePerGas)
		}
		if a.MaxPriorityFeePerGas != nil {
			msg.GasTipCap.Set(a.MaxPriorityFeePerGas)
		}
		if a.MaxFeePerGas == nil {
			msg.GasFeeCap.Set(msg.GasTipCap) // lets a tip-only call run under NoBaseFee rules
		}
	default:
		msg.GasPrice = new(uint256.Int)
	}
	if a.BlobHashes != nil {
		msg.BlobHashes = a.BlobHashes
		msg.BlobGasFeeCap = new(uint256.Int)
		if a.MaxFeePerBlobGas != nil {
			msg.BlobGasFeeCap.Set(a.MaxFeePerBlobGas)
		}
	}
	if a.AuthorizationList != nil {
		msg.AuthList = a.AuthorizationList
	}
	return msg, nil
}

func applyOverrides(st *state.StateDB, overrides map[types.Address]backend.StateOverride) error {
	for addr, o := range overrides {
		if o.State != nil && o.StateDiff != nil {
			return fmt.Errorf("account %s has both 'state' and 'stateDiff'", addr)
		}
		if o.MovePrecompileTo != nil {
			return fmt.Errorf("account %s: movePrecompileToAddress is not supported", addr)
		}
		if o.Balance != nil {
			st.SetBalance(addr, o.Balance)
		}
		if o.Nonce != nil {
			st.SetNonce(addr, uint64(*o.Nonce))
		}
		if o.Code != nil {
			st.SetCode(addr, *o.Code)
		}
		if o.State != nil {
			st.SetStorage(addr, o.State)
		}
		for k, v := range o.StateDiff {
			st.SetState(addr, k, v)
		}
	}
	st.Finalise(false)
	return nil
}

// applyBlockOverrides changes the block context of a call.
func applyBlockOverrides(o *backend.BlockOverrides, ctx *evm.BlockContext) {
	if o == nil {
		return
	}
	if o.Number != nil {
		ctx.Number = uint64(*o.Number)
	}
	if o.Time != nil {
		ctx.Time = uint64(*o.Time)
	}
	if o.GasLimit != nil {
		ctx.GasLimit = uint64(*o.GasLimit)
	}
	if o.Coinbase != nil {
		ctx.Coinbase = *o.Coinbase
	}
	if o.PrevRandao != nil {
		r := *o.PrevRandao
		ctx.Random = &r
	}
	if o.BaseFee != nil {
		ctx.BaseFee = new(uint256.Int).Set(o.BaseFee)
	}
	if o.BlobBaseFee != nil {
		ctx.BlobBaseFee = new(uint256.Int).Set(o.BlobBaseFee)
	}
}

// callEnv is everything one execution of a call needs.
type callEnv struct {
	blk       *types.Block
	overrides map[types.Address]backend.StateOverride
	blockOver *backend.BlockOverrides
	// unpriced: the call pays nothing for gas (no price, or a zero one), so
	// it runs with base fee 0; unpricedBlobs: a call carrying blobs pays
	// nothing for blob gas, so it runs with blob base fee 0.
	unpriced, unpricedBlobs bool
	// deadline is when the request's time cap ends; set by its first
	// execution, so a gas search shares one cap over all its runs. limit
	// is that cap, named in the error of a call stopped by it: the node's
	// call cap, unless the request set a shorter one (a trace's timeout).
	deadline time.Time
	limit    time.Duration
	// attach, when set, is given the EVM before it runs (a trace puts
	// its hooks on).
	attach func(*evm.EVM) error
	// noLogs: nobody reads the run's logs (see evm.Config.NoLogs).
	noLogs bool
}

func newCallEnv(req *backend.CallRequest) *callEnv {
	return &callEnv{blk: req.Block, overrides: req.StateOverrides, blockOver: req.BlockOverrides,
		unpriced:      unpriced(&req.Args),
		unpricedBlobs: req.Args.BlobHashes != nil && (req.Args.MaxFeePerBlobGas == nil || req.Args.MaxFeePerBlobGas.IsZero())}
}

// unpriced reports whether a call's gas price comes out zero: no price
// given, or a zero gas price or fee cap (a tip alone buys nothing without a
// fee cap to pay it from).
func unpriced(a *backend.CallArgs) bool {
	if a.GasPrice != nil {
		return a.GasPrice.IsZero()
	}
	return a.MaxFeePerGas == nil || a.MaxFeePerGas.IsZero()
}

// execute runs msg on a fresh copy of the environment's state, which is
// dropped afterwards: its callers (eth_call, eth_estimateGas,
// eth_createAccessList) answer from the result alone, so the run builds no
// logs.
func (b *Backend) execute(env *callEnv, msg *evm.Message, wrap func(*state.StateDB) evm.StateDB) (*evm.Result, error) {
	st, done, err := b.callState(env)
	if err != nil {
		return nil, err
	}
	defer done()
	env.noLogs = true
	return b.executeOn(st, env, msg, wrap)
}

// callState is a fresh copy of the environment's state with its
// overrides applied, kept from pruning until done (chainview.PinnedState).
func (b *Backend) callState(env *callEnv) (st *state.StateDB, done func(), err error) {
	st, done, err = b.view.PinnedState(env.blk.HeaderRef())
	if err != nil {
		return nil, nil, err
	}
	if err := applyOverrides(st, env.overrides); err != nil {
		done()
		return nil, nil, err
	}
	return st, done, nil
}

// executeOn runs msg on st, which it leaves holding the call's changes.
func (b *Backend) executeOn(st *state.StateDB, env *callEnv, msg *evm.Message, wrap func(*state.StateDB) evm.StateDB) (*evm.Result, error) {
	cfg := b.chain.Config
	h := env.blk.HeaderRef()
	bctx := cfg.BlockContext(h, b.chain.GetHash)
	applyBlockOverrides(env.blockOver, &bctx)
	// Every call path (eth_call, eth_estimateGas, eth_createAccessList)
	// runs an unpriced call with base fee 0, as go-ethereum does: its price
	// would otherwise sit below the base fee, which no real transaction can,
	// and BASEFEE would report a fee the call never paid. The same holds for
	// blob gas and BLOBBASEFEE.
	if env.unpriced && bctx.BaseFee != nil {
		bctx.BaseFee = new(uint256.Int)
	}
	if env.unpricedBlobs && bctx.BlobBaseFee != nil {
		bctx.BlobBaseFee = new(uint256.Int)
	}
	var sdb evm.StateDB = st
	if wrap != nil {
		sdb = wrap(st)
	}
	// A call on the state of block h runs as a transaction of the block
	// after it would: under that block's chain ID.
	vm := evm.NewEVM(bctx, sdb, cfg.ChainIDAt(h.Number+1), cfg.ContextFork(&bctx))
	vm.Config.NoBaseFee = true
	vm.Config.MaxCodeSize = cfg.MaxCodeSize
	vm.Config.NoLogs = env.noLogs
	vm.SetNatives(b.chain.Engine().Natives())
	if env.attach != nil {
		if err := env.attach(vm); err != nil {
			return nil, err
		}
	}
	if env.deadline.IsZero() {
		env.limit = b.opts.CallTimeout
		env.deadline = time.Now().Add(env.limit)
	}
	timer := time.AfterFunc(time.Until(env.deadline), vm.Cancel)
	defer timer.Stop()
	st.BeginTx(types.Hash{}, 0)
	gp := evm.GasPool(math.MaxUint64)
	res, err := evm.ApplyMessage(vm, msg, &gp)
	if err == nil {
		// A read the state could not make (a fork's upstream failing)
		// voids the result.
		err = st.Error()
	}
	if err == nil && errors.Is(res.Err, evm.ErrCancelled) {
		err = &TimeoutError{Limit: env.limit}
	}
	if err != nil {
		return nil, err
	}
	if len(res.MissingPrecompiles) > 0 {
		return nil, fmt.Errorf("call reached precompile %s, which this build lacks", res.MissingPrecompiles[0])
	}
	return res, nil
}

// TimeoutError is the answer to a call that ran past the node's time cap.
type TimeoutError struct{ Limit time.Duration }

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("execution aborted (timeout = %v)", e.Limit)
}

// callGas is the gas a call runs with: the given gas, else the cap, never
// above the cap.
func (b *Backend) callGas(args *backend.CallArgs, env *callEnv) uint64 {
	gas := b.txGasCap(env)
	if args.Gas != nil && uint64(*args.Gas) < gas {
		gas = uint64(*args.Gas)
	}
	return gas
}

// txGasCap is the most gas one call may use: the node's cap, and from
// Osaka also the protocol's per-transaction cap (EIP-7825).
func (b *Backend) txGasCap(env *callEnv) uint64 {
	gas := b.opts.GasCap
	h := env.blk.HeaderRef()
	if b.chain.Config.Fork(h.Number, h.Time) >= forks.Osaka {
		gas = min(gas, evm.MaxTxGas)
	}
	return gas
}

// Call runs a call on the state of req.Block.
func (b *Backend) Call(ctx context.Context, req *backend.CallRequest) ([]byte, error) {
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
	if errors.Is(res.Err, evm.ErrExecutionReverted) {
		return nil, backend.NewRevertError(res.ReturnData)
	}
	if res.Err != nil {
		return nil, fmt.Errorf("%w", res.Err)
	}
	return res.ReturnData, nil
}

// EstimateGas finds the smallest gas limit with which the call succeeds,
// by binary search between the gas the call used and the allowance.
func (b *Backend) EstimateGas(ctx context.Context, req *backend.CallRequest) (uint64, error) {
	return b.estimate(&req.Args, newCallEnv(req))
}

// estimate is eth_estimateGas on decoded arguments.
func (b *Backend) estimate(args *backend.CallArgs, env *callEnv) (uint64, error) {
	// Every run of the search on the same state, kept from pruning
	// between the runs too.
	release, err := b.chain.PinState(env.blk.Number())
	if err != nil {
		return 0, err
	}
	defer release()
	hi := env.blk.GasLimit()
	if env.blockOver != nil && env.blockOver.GasLimit != nil {
		hi = uint64(*env.blockOver.GasLimit)
	}
	if args.Gas != nil && uint64(*args.Gas) >= 21000 && uint64(*args.Gas) < hi {
		hi = uint64(*args.Gas)
	}
	if cap := b.txGasCap(env); hi > cap {
		hi = cap
	}
	// A sender paying for gas can afford only balance / price of it.
	if allowance, ok, err := b.allowance(args, env); err != nil {
		return 0, err
	} else if ok && allowance < hi {
		hi = allowance
	}
	run := func(gas uint64) (*evm.Result, error) {
		msg, err := message(args, gas)
		if err != nil {
			return nil, err
		}
		return b.execute(env, msg, nil)
	}
	flush := b.consoleFor(env)
	res, err := run(hi)
	flush()
	if err != nil {
		if errors.Is(err, evm.ErrIntrinsicGas) {
			return 0, fmt.Errorf("gas required exceeds allowance (%d)", hi)
		}
		return 0, err
	}
	if res.Failed() {
		if errors.Is(res.Err, evm.ErrExecutionReverted) {
			return 0, backend.NewRevertError(res.ReturnData)
		}
		if errors.Is(res.Err, evm.ErrOutOfGas) {
			return 0, fmt.Errorf("gas required exceeds allowance (%d)", hi)
		}
		return 0, res.Err
	}
	// A call that runs no code needs exactly what it used before its
	// refund: a plain transfer, or a creation with empty init code. (Only
	// an EIP-7702 authorization of an existing account refunds here, and
	// the limit must still cover its full intrinsic cost.)
	data, _ := args.CallData()
	if args.To == nil && len(data) == 0 {
		return res.UsedGas + res.Refund, nil
	}
	if args.To != nil && len(data) == 0 {
		if st, err := b.view.State(env.blk.HeaderRef()); err == nil && len(st.GetCode(*args.To)) == 0 && st.Error() == nil && env.overrides == nil {
			return res.UsedGas + res.Refund, nil
		}
	}
	lo := res.UsedGas - 1
	// A call that had nothing refunded and never neared the 63/64 reserve
	// succeeds with exactly what it used, which is then the answer: no
	// limit below the gas a successful run used can succeed.
	if res.Refund == 0 && res.UsedGas < hi {
		if r, err := run(res.UsedGas); err == nil && !r.Failed() {
			return res.UsedGas, nil
		}
	}
	// Most calls succeed with what they used plus the refund and the
	// 63/64 reserve; try that first to save most of the search.
	if guess := (res.UsedGas + res.Refund + 2300) * 64 / 63; guess < hi {
		if r, err := run(guess); err == nil && !r.Failed() {
			hi = guess
		} else {
			lo = max(lo, guess)
		}
	}
	for lo+1 < hi {
		mid := lo + (hi-lo)/2
		if hi/mid < 2 && (hi-lo)*1000/hi < 15 {
			break // within 1.5%: good enough, as go-ethereum does
		}
		r, err := run(mid)
		if err != nil && !errors.Is(err, evm.ErrIntrinsicGas) {
			return 0, err
		}
		if err != nil || r.Failed() {
			lo = mid
		} else {
			hi = mid
		}
	}
	return hi, nil
}

// allowance is how much gas the sender's balance pays for at the call's
// price; ok is false when the call has no price.
func (b *Backend) allowance(args *backend.CallArgs, env *callEnv) (uint64, bool, error) {
	var price *uint256.Int
	switch {
	case args.GasPrice != nil:
		price = args.GasPrice
	case args.MaxFeePerGas != nil:
		price = args.MaxFeePerGas
	}
	if price == nil || price.IsZero() || args.From == nil {
		return 0, false, nil
	}
	st, err := b.view.State(env.blk.HeaderRef())
	if err != nil {
		return 0, false, err
	}
	if err := applyOverrides(st, env.overrides); err != nil {
		return 0, false, err
	}
	bal := new(uint256.Int).Set(st.GetBalance(*args.From))
	if err := st.Error(); err != nil {
		return 0, false, err
	}
	if args.Value != nil {
		if bal.Lt(args.Value) {
			return 0, false, errors.New("insufficient funds for transfer")
		}
		bal.Sub(bal, args.Value)
	}
	q := new(uint256.Int).Div(bal, price)
	if !q.IsUint64() {
		return math.MaxUint64, true, nil
	}
	return q.Uint64(), true, nil
}

// accessRecorder records every address and slot the EVM warms, to build
// an access list.
type accessRecorder struct {
	*state.StateDB
	addrs map[types.Address]map[types.Hash]struct{}
	order []types.Address
}

func (r *accessRecorder) note(addr types.Address) map[types.Hash]struct{} {
	m, ok := r.addrs[addr]
	if !ok {
		m = map[types.Hash]struct{}{}
		r.addrs[addr] = m
		r.order = append(r.order, addr)
	}
	return m
}

func (r *accessRecorder) AddAddressToAccessList(a types.Address) {
	r.note(a)
	r.StateDB.AddAddressToAccessList(a)
}

func (r *accessRecorder) AddSlotToAccessList(a types.Address, k types.Hash) {
	r.note(a)[k] = struct{}{}
	r.StateDB.AddSlotToAccessList(a, k)
}

// CreateAccessList runs the call until the access list it needs stops
// changing.
func (b *Backend) CreateAccessList(ctx context.Context, req *backend.CallRequest) (*backend.AccessListResult, error) {
	args, env := &req.Args, newCallEnv(req)
	// Every run on the same state, kept from pruning between the runs too.
	release, err := b.chain.PinState(env.blk.Number())
	if err != nil {
		return nil, err
	}
	defer release()
	cfg := b.chain.Config
	fork := cfg.HeaderFork(env.blk.HeaderRef())
	vm := evm.NewEVM(cfg.BlockContext(env.blk.HeaderRef(), b.chain.GetHash), nil, cfg.ChainIDAt(env.blk.Number()+1), fork)
	excluded := map[types.Address]bool{}
	for _, a := range vm.PrecompileAddresses() {
		excluded[a] = true
	}
	from := types.Address{}
	if args.From != nil {
		from = *args.From
	}
	excluded[from] = true
	// The EVM warms the coinbase itself (EIP-3651); listing it would only
	// cost gas.
	excluded[env.blk.Coinbase()] = true
	if env.blockOver != nil && env.blockOver.Coinbase != nil {
		excluded[*env.blockOver.Coinbase] = true
	}
	if args.To != nil {
		excluded[*args.To] = true
	} else {
		st, err := b.view.State(env.blk.HeaderRef())
		if err != nil {
			return nil, err
		}
		if err := applyOverrides(st, env.overrides); err != nil {
			return nil, err
		}
		nonce := st.GetNonce(from)
		if err := st.Error(); err != nil {
			return nil, err
		}
		if args.Nonce != nil {
			nonce = uint64(*args.Nonce)
		}
		excluded[types.CreateAddress(from, nonce)] = true
	}
	var list types.AccessList
	if args.AccessList != nil {
		list = *args.AccessList
	}
	// Each run may touch new slots through the list itself; stop when the
	// list no longer changes.
	for range 16 {
		a := *args
		a.AccessList = &list
		msg, err := message(&a, b.callGas(args, env))
		if err != nil {
			return nil, err
		}
		var rec *accessRecorder
		res, err := b.execute(env, msg, func(st *state.StateDB) evm.StateDB {
			rec = &accessRecorder{StateDB: st, addrs: map[types.Address]map[types.Hash]struct{}{}}
			return rec
		})
		if err != nil {
			return nil, err
		}
		next := rec.list(excluded)
		if accessListEqual(next, list) {
			return &backend.AccessListResult{AccessList: next, GasUsed: res.UsedGas, Err: res.Err}, nil
		}
		list = next
	}
	return nil, errors.New("access list did not converge")
}

func (r *accessRecorder) list(excluded map[types.Address]bool) types.AccessList {
	al := types.AccessList{}
	for _, a := range r.order {
		if excluded[a] && len(r.addrs[a]) == 0 {
			continue
		}
		t := types.AccessTuple{Address: a, StorageKeys: []types.Hash{}}
		for k := range r.addrs[a] {
			t.StorageKeys = append(t.StorageKeys, k)
		}
		sortHashes(t.StorageKeys)
		al = append(al, t)
	}
	return al
}

func accessListEqual(a, b types.AccessList) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

func sortHashes(hs []types.Hash) {
	slices.SortFunc(hs, func(a, b types.Hash) int { return bytes.Compare(a[:], b[:]) })
}
