package ethbackend

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"time"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
	"github.com/chaind/chaind/trie"
	"github.com/holiman/uint256"
)

// simTimeStep is the time between simulated blocks whose time is not
// given, one slot of the beacon chain.
const simTimeStep = 12

// simulator runs the blocks of one eth_simulateV1 request on one state.
type simulator struct {
	b        *Backend
	cfg      *chain.Config
	st       *state.StateDB
	base     *types.Header
	gp       evm.GasPool // the node's gas cap, shared by every call of the request
	validate bool
	trace    bool
	headers  []*types.Header // finished simulated blocks, for BLOCKHASH
	// deadline ends the whole request, as the node's call time cap ends
	// one eth_call: many blocks of calls are no way around it.
	deadline time.Time
}

// Simulate executes the blocks of an eth_simulateV1 request, each on the
// state the previous one left.
func (b *Backend) Simulate(ctx context.Context, req *backend.SimulateRequest) ([]*backend.SimulatedBlock, error) {
	blk := req.Base
	st, done, err := b.view.PinnedState(blk.HeaderRef())
	if err != nil {
		return nil, err
	}
	defer done()
	sim := &simulator{
		b: b, cfg: b.chain.Config, st: st, base: blk.Header(),
		gp: evm.GasPool(b.opts.GasCap), validate: req.Validation,
		trace: req.TraceTransfers, deadline: time.Now().Add(b.opts.CallTimeout),
	}
	blocks, err := sim.sanitize(req.Blocks)
	if err != nil {
		return nil, err
	}
	out := make([]*backend.SimulatedBlock, 0, len(blocks))
	parent := sim.base
	for i := range blocks {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if !time.Now().Before(sim.deadline) {
			return nil, &TimeoutError{Limit: b.opts.CallTimeout}
		}
		res, h, err := sim.processBlock(&blocks[i], parent)
		if err == nil {
			err = st.Error() // a read a fork's upstream failed voids the result
		}
		if err != nil {
			return nil, err
		}
		out = append(out, res)
		sim.headers = append(sim.headers, h)
		parent = h
	}
	return out, nil
}

// sanitize fills in block numbers and times, inserting empty blocks into
// gaps between numbers, and rejects numbers or times out of order.
func (sim *simulator) sanitize(blocks []backend.SimBlock) ([]backend.SimBlock, error) {
	var (
		out      []backend.SimBlock
		prevNum  = sim.base.Number
		prevTime = sim.base.Time
	)
	for _, b := range blocks {
		o := backend.SimBlockOverrides{}
		if b.Overrides != nil {
			o = *b.Overrides
		}
		num := prevNum + 1
		if o.Number != nil {
			num = *o.Number
		}
		if num <= prevNum {
			return nil, &backend.SimulateError{Kind: backend.SimBlockNumber, Msg: fmt.Sprintf("block numbers must be in order: %d <= %d", num, prevNum)}
		}
		if num-sim.base.Number > backend.MaxSimulateBlocks {
			return nil, &backend.SimulateError{Kind: backend.SimClientLimit, Msg: "too many blocks"}
		}
		for n := prevNum + 1; n < num; n++ {
			prevTime += simTimeStep
			gn, gt := n, prevTime
			out = append(out, backend.SimBlock{Overrides: &backend.SimBlockOverrides{Number: &gn, Time: &gt}})
		}
		prevNum = num
		t := prevTime + simTimeStep
		if o.Time != nil {
			t = *o.Time
			if t <= prevTime {
				return nil, &backend.SimulateError{Kind: backend.SimBlockTimestamp, Msg: fmt.Sprintf("block timestamps must be in order: %d <= %d", t, prevTime)}
			}
		}
		prevTime = t
		n, tt := num, t
		o.Number, o.Time = &n, &tt
		b.Overrides = &o
		out = append(out, b)
	}
	return out, nil
}

// getHash answers BLOCKHASH in a simulated block: the simulated blocks
// before it, else the canonical chain below the base.
func (sim *simulator) getHash(n uint64) types.Hash {
	if n == sim.base.Number {
		return sim.base.Hash()
	}
	if n < sim.base.Number {
		return sim.b.chain.GetHash(n)
	}
	for _, h := range sim.headers {
		if h.Number == n {
			return h.Hash()
		}
	}
	return types.Hash{}
}

// postMerge reports whether a simulated block at (number, time) gets
// difficulty 0. go-ethereum's rule, which differs from the chain's own
// schedule where a simulation's explicit numbers and times leave it: the
// chain merged at genesis, or the block is at or past the merge netsplit
// block, or at or past Shanghai's time. Otherwise the block inherits its
// parent's difficulty (and is a proof-of-work block).
func (sim *simulator) postMerge(number, time uint64) bool {
	c := sim.cfg
	return (c.TerminalTotalDifficulty != nil && (*big.Int)(c.TerminalTotalDifficulty).Sign() == 0) ||
		(c.MergeNetsplitBlock != nil && number >= *c.MergeNetsplitBlock) ||
		(c.ShanghaiTime != nil && time >= *c.ShanghaiTime)
}

// header builds the header of a simulated block before execution.
func (sim *simulator) header(o *backend.SimBlockOverrides, parent *types.Header) *types.Header {
	num, t := *o.Number, *o.Time
	h := &types.Header{
		ParentHash:  parent.Hash(),
		UncleHash:   types.EmptyUncleHash,
		Coinbase:    parent.Coinbase,
		Number:      num,
		Time:        t,
		GasLimit:    parent.GasLimit,
		TxHash:      types.EmptyRootHash,
		ReceiptHash: types.EmptyRootHash,
	}
	if !sim.postMerge(num, t) {
		h.Difficulty = parent.Difficulty
	}
	if o.Difficulty != nil {
		h.Difficulty = *o.Difficulty
	}
	if o.GasLimit != nil {
		h.GasLimit = uint64(*o.GasLimit)
	}
	if o.FeeRecipient != nil {
		h.Coinbase = *o.FeeRecipient
	}
	if o.PrevRandao != nil {
		h.MixDigest = *o.PrevRandao
	}
	fork := sim.cfg.Fork(num, t)
	if fork >= forks.London {
		switch {
		case o.BaseFee != nil:
			h.BaseFee = new(uint256.Int).Set(o.BaseFee)
		case sim.validate:
			h.BaseFee = sim.cfg.CalcBaseFee(parent)
		default:
			// Without validation a zero base fee lets calls with no price run.
			h.BaseFee = new(uint256.Int)
		}
	}
	if fork >= forks.Shanghai {
		wr := types.EmptyRootHash
		h.WithdrawalsHash = &wr
	}
	if fork >= forks.Cancun {
		excess, used := sim.cfg.NextExcessBlobGas(parent, num, t), uint64(0)
		h.ExcessBlobGas, h.BlobGasUsed = &excess, &used
		br := types.Hash{}
		if o.BeaconRoot != nil {
			br = *o.BeaconRoot
		}
		h.ParentBeaconRoot = &br
	}
	return h
}

// simError gives a transaction validation error its simulation kind.
func simError(err error) error {
	msg := "err: " + err.Error()
	kind := backend.SimInternal
	switch {
	case errors.Is(err, evm.ErrNonceTooHigh):
		kind = backend.SimNonceTooHigh
	case errors.Is(err, evm.ErrNonceTooLow):
		kind = backend.SimNonceTooLow
	case errors.Is(err, evm.ErrSenderNoEOA):
		kind = backend.SimSenderNotEOA
	case errors.Is(err, evm.ErrFeeCapTooLow):
		kind = backend.SimFeeTooLow
	case errors.Is(err, evm.ErrFeeCapVeryHigh), errors.Is(err, evm.ErrTipVeryHigh), errors.Is(err, evm.ErrTipAboveFeeCap):
		return &backend.ParamError{Msg: msg}
	case errors.Is(err, evm.ErrInsufficientFunds), errors.Is(err, evm.ErrInsufficientFundsValue):
		kind = backend.SimInsufficientFunds
	case errors.Is(err, evm.ErrIntrinsicGas):
		kind = backend.SimIntrinsicGas
	case errors.Is(err, evm.ErrMaxInitCodeSizeExceeded):
		kind = backend.SimInitCodeTooLarge
	}
	return &backend.SimulateError{Kind: kind, Msg: msg}
}

// processBlock executes one simulated block and renders its result.
func (sim *simulator) processBlock(b *backend.SimBlock, parent *types.Header) (*backend.SimulatedBlock, *types.Header, error) {
	o := b.Overrides
	h := sim.header(o, parent)
	precs, err := sim.applyOverrides(b.StateOverrides)
	if err != nil {
		return nil, nil, err
	}
	tr := &logTracer{StateDB: sim.st, transfers: sim.trace, marks: map[int]int{}}
	x, err := sim.b.chain.Rules().Open(h, sim.st, sim.getHash, &chain.ExecOptions{
		NoBaseFee:       !sim.validate,
		WrapState:       func(*state.StateDB) evm.StateDB { return tr },
		Precompiles:     precs,
		BlobBaseFee:     o.BlobBaseFee,
		GasPool:         &sim.gp,
		PoSByDifficulty: true,
	})
	if err != nil {
		return nil, nil, err
	}
	timer := time.AfterFunc(time.Until(sim.deadline), x.EVM.Cancel)
	defer timer.Stop()
	var (
		senders = make([]types.Address, 0, len(b.Calls))
		calls   = make([]backend.SimCallResult, 0, len(b.Calls))
	)
	for i := range b.Calls {
		call := b.Calls[i]
		tx, msg, err := sim.prepareCall(&call, h, h.GasLimit, x.GasUsed)
		if err != nil {
			return nil, nil, err
		}
		tr.reset()
		rc, res, err := x.Apply(tx, msg)
		if errors.Is(err, chain.ErrMissingPrecompile) {
			return nil, nil, err
		}
		if err != nil {
			return nil, nil, simError(err)
		}
		if errors.Is(res.Err, evm.ErrCancelled) {
			return nil, nil, &TimeoutError{Limit: sim.b.opts.CallTimeout}
		}
		senders = append(senders, msg.From)
		cr := backend.SimCallResult{
			ReturnData: res.ReturnData,
			GasUsed:    res.UsedGas,
			MaxUsedGas: res.UsedGas + res.Refund,
			Status:     rc.Status,
			Logs:       tr.logs,
		}
		switch {
		case errors.Is(res.Err, evm.ErrExecutionReverted):
			cr.Err = backend.NewRevertError(res.ReturnData)
			cr.Logs, cr.ReturnData = nil, nil
		case res.Err != nil:
			cr.Err = res.Err
			cr.Logs, cr.ReturnData = nil, nil
		}
		if cr.Logs == nil {
			cr.Logs = []*types.Log{}
		}
		calls = append(calls, cr)
	}
	// A simulated block carries a withdrawals list (empty unless given)
	// exactly when it is a proof-of-stake block, whatever its fork: so
	// go-ethereum assembles them, and the block hash depends on it.
	pos := h.Difficulty.IsZero()
	withdrawals := toWithdrawals(o.Withdrawals)
	switch {
	case !pos && len(withdrawals) > 0:
		return nil, nil, errors.New("withdrawals in a proof-of-work block")
	case pos && x.Fork < forks.Shanghai && len(withdrawals) > 0:
		return nil, nil, errors.New("withdrawals set before Shanghai activation")
	case pos && withdrawals == nil:
		withdrawals = []*types.Withdrawal{}
	}
	res, err := x.Finish(withdrawals, nil)
	if err != nil {
		return nil, nil, err
	}
	blk := x.Seal(res)
	if hasList := blk.Withdrawals() != nil; hasList != pos {
		sh := blk.Header()
		body := &types.Body{Transactions: blk.Transactions()}
		sh.WithdrawalsHash = nil
		if pos {
			wr := types.DeriveWithdrawalsRoot(withdrawals, trie.NewStackTrie())
			sh.WithdrawalsHash, body.Withdrawals = &wr, withdrawals
		}
		blk = types.NewBlock(sh, body)
	}
	hash := blk.Hash()
	for i := range calls {
		for _, l := range calls[i].Logs {
			l.BlockHash, l.BlockNumber, l.BlockTimestamp = hash, h.Number, h.Time
			l.TxHash, l.TxIndex = x.Txs[i].Hash(), uint(i)
		}
	}
	return &backend.SimulatedBlock{Block: blk, Senders: senders, Calls: calls}, blk.Header(), nil
}

// prepareCall fills a call's defaults the way a simulated transaction gets
// them and returns the (unsigned) transaction and the message to run.
func (sim *simulator) prepareCall(a *backend.CallArgs, h *types.Header, gasLimit, gasUsed uint64) (*types.Transaction, *evm.Message, error) {
	if a.GasPrice != nil && (a.MaxFeePerGas != nil || a.MaxPriorityFeePerGas != nil) {
		return nil, nil, &backend.ParamError{Msg: "both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified"}
	}
	from := types.Address{}
	if a.From != nil {
		from = *a.From
	}
	nonce := sim.st.GetNonce(from)
	if a.Nonce != nil {
		nonce = uint64(*a.Nonce)
	}
	gas := gasLimit - gasUsed
	if a.Gas != nil {
		gas = *a.Gas
	}
	if gasUsed+gas > gasLimit {
		return nil, nil, &backend.SimulateError{Kind: backend.SimBlockGasLimit, Msg: fmt.Sprintf("block gas limit reached: %d >= %d", gasUsed, gasLimit)}
	}
	if gp := uint64(sim.gp); gas > gp {
		gas = gp
	}
	chainID := uint256.NewInt(sim.cfg.ChainIDAt(h.Number))
	if a.ChainID != nil && !a.ChainID.Eq(chainID) {
		return nil, nil, &backend.ParamError{Msg: fmt.Sprintf("chainId does not match node's (have=%v, want=%v)", a.ChainID, chainID)}
	}
	data, err := a.CallData()
	if err != nil {
		return nil, nil, err
	}
	value := new(uint256.Int)
	if a.Value != nil {
		value.Set(a.Value)
	}
	u := func(x *uint256.Int) *uint256.Int {
		if x == nil {
			return new(uint256.Int)
		}
		return new(uint256.Int).Set(x)
	}
	var al types.AccessList
	if a.AccessList != nil {
		al = *a.AccessList
	}
	feeCap, tipCap := u(a.MaxFeePerGas), u(a.MaxPriorityFeePerGas)
	msg := &evm.Message{
		From: from, To: a.To, Nonce: nonce, Value: value, GasLimit: gas, Data: data,
		AccessList: al, BlobHashes: a.BlobHashes, AuthList: a.AuthorizationList,
		// Simulated transactions skip the EIP-7825 per-transaction cap,
		// as go-ethereum's do.
		SkipNonceChecks: !sim.validate, SkipFromEOACheck: true, SkipGasLimitCap: true,
	}
	if a.BlobHashes != nil {
		msg.BlobGasFeeCap = u(a.MaxFeePerBlobGas)
	}
	switch {
	case h.BaseFee == nil:
		msg.GasPrice = u(a.GasPrice)
	case a.GasPrice != nil:
		msg.GasPrice = u(a.GasPrice)
		msg.GasFeeCap, msg.GasTipCap = u(a.GasPrice), u(a.GasPrice)
	default:
		msg.GasFeeCap, msg.GasTipCap = feeCap, tipCap
		price := new(uint256.Int)
		if !feeCap.IsZero() || !tipCap.IsZero() {
			price.Add(tipCap, h.BaseFee)
			if price.Gt(feeCap) {
				price.Set(feeCap)
			}
		}
		msg.GasPrice = price
	}

	// The transaction the block carries: the newest type the arguments
	// allow, legacy when a gas price was given.
	var inner types.TxData
	switch {
	case a.GasPrice != nil || h.BaseFee == nil:
		// Before London a call is priced by a gas price (0 when not
		// given), so it is a legacy transaction whatever else it sets.
		inner = &types.LegacyTx{Nonce: nonce, GasPrice: *u(a.GasPrice), Gas: gas, To: a.To, Value: *value, Data: data}
	case a.AuthorizationList != nil && a.To != nil:
		inner = &types.SetCodeTx{ChainID: *chainID, Nonce: nonce, GasTipCap: *tipCap, GasFeeCap: *feeCap, Gas: gas, To: *a.To,
			Value: *value, Data: data, AccessList: nonNilList(al), AuthList: a.AuthorizationList}
	case a.BlobHashes != nil && a.To != nil:
		inner = &types.BlobTx{ChainID: *chainID, Nonce: nonce, GasTipCap: *tipCap, GasFeeCap: *feeCap, Gas: gas, To: *a.To,
			Value: *value, Data: data, AccessList: nonNilList(al), BlobFeeCap: *u(a.MaxFeePerBlobGas), BlobHashes: a.BlobHashes}
	default:
		inner = &types.DynamicFeeTx{ChainID: *chainID, Nonce: nonce, GasTipCap: *tipCap, GasFeeCap: *feeCap, Gas: gas, To: a.To,
			Value: *value, Data: data, AccessList: nonNilList(al)}
	}
	return types.NewTx(inner), msg, nil
}

func nonNilList(al types.AccessList) types.AccessList {
	if al == nil {
		return types.AccessList{}
	}
	return al
}

// applyOverrides applies one block's state overrides and returns the
// precompiles in force for it: those of the base block's fork, minus any
// replaced by code, plus any moved to a new address.
func (sim *simulator) applyOverrides(overrides map[types.Address]backend.StateOverride) (map[types.Address]evm.Precompile, error) {
	precs := evm.PrecompilesFor(sim.cfg.Fork(sim.base.Number, sim.base.Time))
	moved := map[types.Address]bool{}
	for addr, o := range overrides {
		if moved[addr] {
			return nil, fmt.Errorf("account %s has already been overridden by a precompile", addr)
		}
		p, isPrecompile := precs[addr]
		if o.MovePrecompileTo != nil {
			if !isPrecompile {
				return nil, fmt.Errorf("account %s is not a precompile", addr)
			}
			if _, ok := overrides[*o.MovePrecompileTo]; ok {
				return nil, fmt.Errorf("account %s is already overridden", *o.MovePrecompileTo)
			}
			precs[*o.MovePrecompileTo] = p
			moved[*o.MovePrecompileTo] = true
		}
		if isPrecompile {
			delete(precs, addr)
		}
	}
	plain := make(map[types.Address]backend.StateOverride, len(overrides))
	for addr, o := range overrides {
		o.MovePrecompileTo = nil
		plain[addr] = o
	}
	if err := applyOverrides(sim.st, plain); err != nil {
		return nil, err
	}
	return precs, nil
}

// logTracer collects the logs a simulated call reports: its own, and with
// transfers set an ERC-7528 Transfer log for every value transfer between
// accounts. The EVM moves value as a SubBalance immediately followed by an
// AddBalance of the same amount; gas purchase and refunds never pair up
// that way. Logs of reverted frames are dropped with them, but keep the
// block-wide log index they took, as go-ethereum's simulator numbers them.
type logTracer struct {
	*state.StateDB
	transfers bool
	logs      []*types.Log
	count     uint
	marks     map[int]int
	pending   *pendingSub
}

type pendingSub struct {
	from   types.Address
	amount *uint256.Int
}

// transferLogAddress is the ERC-7528 pseudo-address of ETH.
var transferLogAddress = types.MustAddress("0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee")

// transferTopic is keccak256("Transfer(address,address,uint256)").
var transferTopic = types.MustHash("0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef")

func (t *logTracer) capture(l *types.Log) {
	t.logs = append(t.logs, &types.Log{Address: l.Address, Topics: l.Topics, Data: l.Data, Index: t.count})
	t.count++
}

func (t *logTracer) reset() {
	t.logs, t.pending = nil, nil
	clear(t.marks)
}

func (t *logTracer) SubBalance(a types.Address, amount *uint256.Int) {
	t.pending = &pendingSub{from: a, amount: amount}
	t.StateDB.SubBalance(a, amount)
}

func (t *logTracer) AddBalance(a types.Address, amount *uint256.Int) {
	if p := t.pending; t.transfers && p != nil && p.amount == amount && !amount.IsZero() {
		v := amount.Bytes32()
		t.capture(&types.Log{
			Address: transferLogAddress,
			Topics:  []types.Hash{transferTopic, addrTopic(p.from), addrTopic(a)},
			Data:    v[:],
		})
	}
	t.pending = nil
	t.StateDB.AddBalance(a, amount)
}

func addrTopic(a types.Address) types.Hash {
	var h types.Hash
	copy(h[12:], a[:])
	return h
}

func (t *logTracer) AddLog(l *types.Log) {
	t.pending = nil
	t.capture(l)
	t.StateDB.AddLog(l)
}

func (t *logTracer) Snapshot() int {
	t.pending = nil
	id := t.StateDB.Snapshot()
	t.marks[id] = len(t.logs)
	return id
}

func (t *logTracer) RevertToSnapshot(id int) {
	t.pending = nil
	if n, ok := t.marks[id]; ok && n <= len(t.logs) {
		t.logs = t.logs[:n]
	}
	t.StateDB.RevertToSnapshot(id)
}
