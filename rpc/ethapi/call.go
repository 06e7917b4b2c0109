package ethapi

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
	"github.com/chaind/chaind/state"
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

// data returns input, or data when input is absent; both given must agree.
func (a *CallArgs) data() ([]byte, error) {
	if a.Input != nil && a.Data != nil && string(*a.Input) != string(*a.Data) {
		return nil, errors.New(`both "data" and "input" are set and not equal. Please use "input" to pass transaction call data`)
	}
	if a.Input != nil {
		return *a.Input, nil
	}
	if a.Data != nil {
		return *a.Data, nil
	}
	return nil, nil
}

// message builds the EVM message of a call with gas limit gas.
func (a *CallArgs) message(gas uint64) (*evm.Message, error) {
	if a.GasPrice != nil && (a.MaxFeePerGas != nil || a.MaxPriorityFeePerGas != nil) {
		return nil, errors.New("both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified")
	}
	data, err := a.data()
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
		msg.Value.Set(a.Value.Int())
	}
	if a.Nonce != nil {
		msg.Nonce = uint64(*a.Nonce)
	}
	if a.AccessList != nil {
		msg.AccessList = *a.AccessList
	}
	switch {
	case a.GasPrice != nil:
		msg.GasPrice = new(uint256.Int).Set(a.GasPrice.Int())
	case a.MaxFeePerGas != nil || a.MaxPriorityFeePerGas != nil:
		msg.GasFeeCap, msg.GasTipCap = new(uint256.Int), new(uint256.Int)
		if a.MaxFeePerGas != nil {
			msg.GasFeeCap.Set(a.MaxFeePerGas.Int())
		}
		if a.MaxPriorityFeePerGas != nil {
			msg.GasTipCap.Set(a.MaxPriorityFeePerGas.Int())
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
			msg.BlobGasFeeCap.Set(a.MaxFeePerBlobGas.Int())
		}
	}
	if a.AuthorizationList != nil {
		msg.AuthList = a.AuthorizationList
	}
	return msg, nil
}

// StateOverride replaces parts of an account for one call.
type StateOverride struct {
	Balance          *types.HexU256            `json:"balance"`
	Nonce            *types.HexUint64          `json:"nonce"`
	Code             *types.HexBytes           `json:"code"`
	State            map[types.Hash]types.Hash `json:"state"`
	StateDiff        map[types.Hash]types.Hash `json:"stateDiff"`
	MovePrecompileTo *types.Address            `json:"movePrecompileToAddress"`
}

func applyOverrides(st *state.StateDB, overrides map[types.Address]StateOverride) error {
	for addr, o := range overrides {
		if o.State != nil && o.StateDiff != nil {
			return fmt.Errorf("account %s has both 'state' and 'stateDiff'", addr)
		}
		if o.MovePrecompileTo != nil {
			return fmt.Errorf("account %s: movePrecompileToAddress is not supported", addr)
		}
		if o.Balance != nil {
			st.SetBalance(addr, o.Balance.Int())
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

func (o *BlockOverrides) apply(ctx *evm.BlockContext) {
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
		ctx.BaseFee = new(uint256.Int).Set(o.BaseFee.Int())
	}
	if o.BlobBaseFee != nil {
		ctx.BlobBaseFee = new(uint256.Int).Set(o.BlobBaseFee.Int())
	}
}

// callEnv is everything one execution of a call needs.
type callEnv struct {
	blk       *types.Block
	overrides map[types.Address]StateOverride
	blockOver *BlockOverrides
}

// decodeCall reads [args, block?, stateOverrides?, blockOverrides?].
func (api *ethAPI) decodeCall(p rpc.Params) (*CallArgs, *callEnv, error) {
	var args CallArgs
	if err := p.Decode(0, &args); err != nil {
		return nil, nil, err
	}
	ref, err := blockRef(p, 1)
	if err != nil {
		return nil, nil, err
	}
	env := &callEnv{}
	if _, err := p.Optional(2, &env.overrides); err != nil {
		return nil, nil, err
	}
	if _, err := p.Optional(3, &env.blockOver); err != nil {
		return nil, nil, err
	}
	if env.blk, err = resolveState(api.b, ref); err != nil {
		return nil, nil, err
	}
	return &args, env, nil
}

// execute runs msg on a fresh copy of the environment's state.
func (api *ethAPI) execute(env *callEnv, msg *evm.Message, wrap func(*state.StateDB) evm.StateDB) (*evm.Result, error) {
	st, err := api.b.StateAt(env.blk.Root())
	if err != nil {
		return nil, err
	}
	defer st.Release()
	if err := applyOverrides(st, env.overrides); err != nil {
		return nil, err
	}
	cfg := api.b.Config()
	h := env.blk.HeaderRef()
	bctx := cfg.BlockContext(h, api.b.GetHash)
	env.blockOver.apply(&bctx)
	var sdb evm.StateDB = st
	if wrap != nil {
		sdb = wrap(st)
	}
	vm := evm.NewEVM(bctx, sdb, cfg.ChainID, cfg.Fork(bctx.Number, bctx.Time))
	vm.Config.NoBaseFee = true
	st.BeginTx(types.Hash{}, 0)
	gp := evm.GasPool(math.MaxUint64)
	res, err := evm.ApplyMessage(vm, msg, &gp)
	if err != nil {
		return nil, err
	}
	if len(res.MissingPrecompiles) > 0 {
		return nil, fmt.Errorf("call reached precompile %s, which this build lacks", res.MissingPrecompiles[0])
	}
	return res, nil
}

// callGas is the gas a call runs with: the given gas, else the cap, never
// above the cap.
func (api *ethAPI) callGas(args *CallArgs, env *callEnv) uint64 {
	gas := api.txGasCap(env)
	if args.Gas != nil && uint64(*args.Gas) < gas {
		gas = uint64(*args.Gas)
	}
	return gas
}

// txGasCap is the most gas one call may use: the node's cap, and from
// Osaka also the protocol's per-transaction cap (EIP-7825).
func (api *ethAPI) txGasCap(env *callEnv) uint64 {
	gas := api.opts.GasCap
	h := env.blk.HeaderRef()
	if api.b.Config().Fork(h.Number, h.Time) >= forks.Osaka {
		gas = min(gas, evm.MaxTxGas)
	}
	return gas
}

func (api *ethAPI) call(ctx context.Context, p rpc.Params) (any, error) {
	args, env, err := api.decodeCall(p)
	if err != nil {
		return nil, err
	}
	msg, err := args.message(api.callGas(args, env))
	if err != nil {
		return nil, err
	}
	res, err := api.execute(env, msg, nil)
	if err != nil {
		return nil, err
	}
	if errors.Is(res.Err, evm.ErrExecutionReverted) {
		return nil, newRevertError(res.ReturnData)
	}
	if res.Err != nil {
		return nil, fmt.Errorf("%w", res.Err)
	}
	return types.HexBytes(res.ReturnData), nil
}

// RevertError is a reverted call: code 3, the decoded reason in the
// message and the raw revert bytes as data.
type RevertError struct {
	reason string
	data   []byte
}

func newRevertError(data []byte) *RevertError {
	msg := "execution reverted"
	if reason, ok := UnpackRevert(data); ok {
		msg += ": " + reason
	}
	return &RevertError{reason: msg, data: data}
}

func (e *RevertError) Error() string  { return e.reason }
func (e *RevertError) ErrorCode() int { return rpc.CodeReverted }
func (e *RevertError) ErrorData() any { return types.HexBytes(e.data) }

var panicReasons = map[uint64]string{
	0x00: "generic panic",
	0x01: "assert(false)",
	0x11: "arithmetic underflow or overflow",
	0x12: "division or modulo by zero",
	0x21: "enum overflow",
	0x22: "invalid encoded storage byte array accessed",
	0x31: "out-of-bounds array access; popping on an empty array",
	0x32: "out-of-bounds access of an array or bytesN",
	0x41: "out of memory",
	0x51: "uninitialized function",
}

// UnpackRevert decodes Solidity's Error(string) and Panic(uint256) revert
// payloads.
func UnpackRevert(data []byte) (string, bool) {
	if len(data) < 4 {
		return "", false
	}
	switch binary.BigEndian.Uint32(data) {
	case 0x08c379a0: // Error(string)
		body := data[4:]
		if len(body) < 64 {
			return "", false
		}
		off := new(uint256.Int).SetBytes(body[:32])
		if !off.IsUint64() || off.Uint64()+32 > uint64(len(body)) {
			return "", false
		}
		o := off.Uint64()
		n := new(uint256.Int).SetBytes(body[o : o+32])
		if !n.IsUint64() || o+32+n.Uint64() > uint64(len(body)) {
			return "", false
		}
		return string(body[o+32 : o+32+n.Uint64()]), true
	case 0x4e487b71: // Panic(uint256)
		if len(data) != 36 {
			return "", false
		}
		code := new(uint256.Int).SetBytes(data[4:])
		if code.IsUint64() {
			if r, ok := panicReasons[code.Uint64()]; ok {
				return r, true
			}
		}
		return "unknown panic code: " + code.Hex(), true
	}
	return "", false
}

// estimateGas finds the smallest gas limit with which the call succeeds,
// by binary search between the gas the call used and the allowance.
func (api *ethAPI) estimateGas(ctx context.Context, p rpc.Params) (any, error) {
	args, env, err := api.decodeCall(p)
	if err != nil {
		return nil, err
	}
	gas, err := api.estimate(args, env)
	if err != nil {
		return nil, err
	}
	return types.HexUint64(gas), nil
}

// estimate is eth_estimateGas on decoded arguments.
func (api *ethAPI) estimate(args *CallArgs, env *callEnv) (uint64, error) {
	hi := env.blk.GasLimit()
	if env.blockOver != nil && env.blockOver.GasLimit != nil {
		hi = uint64(*env.blockOver.GasLimit)
	}
	if args.Gas != nil && uint64(*args.Gas) >= 21000 && uint64(*args.Gas) < hi {
		hi = uint64(*args.Gas)
	}
	if cap := api.txGasCap(env); hi > cap {
		hi = cap
	}
	// A sender paying for gas can afford only balance / price of it.
	if allowance, ok, err := api.allowance(args, env); err != nil {
		return 0, err
	} else if ok && allowance < hi {
		hi = allowance
	}
	run := func(gas uint64) (*evm.Result, error) {
		msg, err := args.message(gas)
		if err != nil {
			return nil, err
		}
		return api.execute(env, msg, nil)
	}
	res, err := run(hi)
	if err != nil {
		if errors.Is(err, evm.ErrIntrinsicGas) {
			return 0, fmt.Errorf("gas required exceeds allowance (%d)", hi)
		}
		return 0, err
	}
	if res.Failed() {
		if errors.Is(res.Err, evm.ErrExecutionReverted) {
			return 0, newRevertError(res.ReturnData)
		}
		if errors.Is(res.Err, evm.ErrOutOfGas) {
			return 0, fmt.Errorf("gas required exceeds allowance (%d)", hi)
		}
		return 0, res.Err
	}
	// Plain transfers need exactly what they used.
	data, _ := args.data()
	if args.To != nil && len(data) == 0 {
		if st, err := api.b.StateAt(env.blk.Root()); err == nil && len(st.GetCode(*args.To)) == 0 && env.overrides == nil {
			return res.UsedGas, nil
		}
	}
	lo := res.UsedGas - 1
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
func (api *ethAPI) allowance(args *CallArgs, env *callEnv) (uint64, bool, error) {
	var price *uint256.Int
	switch {
	case args.GasPrice != nil:
		price = args.GasPrice.Int()
	case args.MaxFeePerGas != nil:
		price = args.MaxFeePerGas.Int()
	}
	if price == nil || price.IsZero() || args.From == nil {
		return 0, false, nil
	}
	st, err := api.b.StateAt(env.blk.Root())
	if err != nil {
		return 0, false, err
	}
	if err := applyOverrides(st, env.overrides); err != nil {
		return 0, false, err
	}
	bal := new(uint256.Int).Set(st.GetBalance(*args.From))
	if args.Value != nil {
		if bal.Lt(args.Value.Int()) {
			return 0, false, errors.New("insufficient funds for transfer")
		}
		bal.Sub(bal, args.Value.Int())
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

func (api *ethAPI) createAccessList(ctx context.Context, p rpc.Params) (any, error) {
	args, env, err := api.decodeCall(p)
	if err != nil {
		return nil, err
	}
	cfg := api.b.Config()
	fork := cfg.Fork(env.blk.Number(), env.blk.Time())
	vm := evm.NewEVM(cfg.BlockContext(env.blk.HeaderRef(), api.b.GetHash), nil, cfg.ChainID, fork)
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
		st, err := api.b.StateAt(env.blk.Root())
		if err != nil {
			return nil, err
		}
		nonce := st.GetNonce(from)
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
		msg, err := a.message(api.callGas(args, env))
		if err != nil {
			return nil, err
		}
		var rec *accessRecorder
		res, err := api.execute(env, msg, func(st *state.StateDB) evm.StateDB {
			rec = &accessRecorder{StateDB: st, addrs: map[types.Address]map[types.Hash]struct{}{}}
			return rec
		})
		if err != nil {
			return nil, err
		}
		next := rec.list(excluded)
		if accessListEqual(next, list) {
			out := struct {
				AccessList types.AccessList `json:"accessList"`
				GasUsed    types.HexUint64  `json:"gasUsed"`
				Error      string           `json:"error,omitempty"`
			}{AccessList: next, GasUsed: types.HexUint64(res.UsedGas)}
			if res.Err != nil {
				out.Error = res.Err.Error()
			}
			return out, nil
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
