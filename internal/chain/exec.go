package chain

import (
	"errors"
	"fmt"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
	"github.com/chaind/chaind/trie"
	"github.com/holiman/uint256"
)

// This file is the one block executor of the node. Importing a block,
// building one, eth_simulateV1, testing_buildBlockV1 and debug_trace* all
// run a block the same way, in the order of Ethereum's execution
// specification:
//
//  1. Open: the DAO fork's irregular state change on its block, then the
//     system calls that start a block — the EIP-4788 beacon root (Cancun),
//     then the EIP-2935 parent hash (Prague).
//  2. Apply, once per transaction.
//  3. Finish: withdrawals are credited (Shanghai), proof-of-work rewards
//     paid before the Merge, the chain's end-of-block hook runs, then the
//     EIP-7685 requests are collected (Prague: deposits from the logs, then
//     the EIP-7002 and EIP-7251 queues), and the state root is computed.
//  4. Seal (builders only): the header fields execution determines.

// ErrMissingPrecompile is returned when a transaction reaches a precompile
// that this build does not implement: executing on would give a result
// other nodes disagree with.
var ErrMissingPrecompile = errors.New("transaction reaches a precompile this build lacks")

// Attributes are a proposer's choices for a new block: what its parent does
// not determine.
type Attributes struct {
	Coinbase types.Address
	Time     uint64
	// TimeMs, when set, is the block's time in Unix milliseconds for an
	// engine that records it (a TimeRule): Prepare orders it after the
	// parent's and sets Time to its seconds, or clears it.
	TimeMs uint64
	// GasLimit is the gas limit to steer toward, as far as the 1/1024 step
	// allows; 0 keeps the parent's.
	GasLimit         uint64
	Extra            []byte
	Random           types.Hash  // PREVRANDAO
	ParentBeaconRoot *types.Hash // Cancun and later; nil is the zero hash
	// ParentCert, if set, is the parent's commit certificate for an engine
	// that makes blocks commit to it: a proposer's certificate holding
	// precommits that arrived after the one stored was built. Nil means
	// the stored one.
	ParentCert []byte
	// BaseFee, if set, replaces the EIP-1559 base fee the parent gives
	// (London and later): a development chain's test helper
	// (hardhat_setNextBlockBaseFeePerGas). Validators of such a block
	// refuse it, as Ethereum's rule says; only the node that made it keeps it.
	BaseFee *uint256.Int
	// DevGasLimit, if set, is the block's gas limit exactly, however far
	// from the parent's: a development chain's test helper
	// (evm_setBlockGasLimit) and the one exception to the 1/1024 step.
	// Validators refuse such a block as they refuse a chosen BaseFee.
	DevGasLimit uint64
}

// NextHeader returns the header of a child of parent: the fields the parent
// and attributes determine are set, those execution determines are left for
// Exec.Seal. chaind builds proof-of-stake blocks only.
func (c *Config) NextHeader(parent *types.Header, a Attributes) (*types.Header, error) {
	number := parent.Number + 1
	if !c.IsMerged(number) {
		return nil, errors.New("chaind builds proof-of-stake blocks only; the chain config is pre-merge at this height")
	}
	// A block whose engine records its time in milliseconds (TimeMs set
	// by the engine's Prepare) may share its parent's second; the engine's
	// TimeRule orders it.
	if a.Time < parent.Time || (a.Time == parent.Time && a.TimeMs == 0) {
		return nil, fmt.Errorf("%w: %d <= %d", ErrBadTimestamp, a.Time, parent.Time)
	}
	nb := c.NextBlockParams(parent, &a)
	h := &types.Header{
		ParentHash:  parent.Hash(),
		UncleHash:   types.EmptyUncleHash,
		Coinbase:    nb.Coinbase,
		Number:      nb.Number,
		GasLimit:    nb.GasLimit,
		Time:        nb.Time,
		Extra:       append([]byte(nil), a.Extra...),
		MixDigest:   nb.Random,
		TxHash:      types.EmptyRootHash,
		ReceiptHash: types.EmptyRootHash,
		BaseFee:     nb.BaseFee,
	}
	if nb.Fork >= forks.Shanghai {
		wr := types.EmptyRootHash
		h.WithdrawalsHash = &wr
	}
	if nb.Fork >= forks.Cancun {
		var used uint64
		h.ExcessBlobGas, h.BlobGasUsed = nb.ExcessBlobGas, &used
		var br types.Hash
		if a.ParentBeaconRoot != nil {
			br = *a.ParentBeaconRoot
		}
		h.ParentBeaconRoot = &br
	}
	return h, nil
}

// NextExcessBlobGas is the EIP-4844 excess blob gas of a block at (number,
// time) whose parent is parent: zero for the first Cancun block.
func (c *Config) NextExcessBlobGas(parent *types.Header, number, time uint64) uint64 {
	if !c.IsCancunAt(parent) || parent.ExcessBlobGas == nil || parent.BlobGasUsed == nil {
		return 0
	}
	// The new block's schedule sets the target, as go-ethereum does at a
	// BPO boundary.
	return c.Blob(number, time).ExcessBlobGas(c.Fork(number, time), *parent.ExcessBlobGas, *parent.BlobGasUsed, parent.BaseFee)
}

// nextGasLimit moves the gas limit toward the desired one as far as the
// 1/1024 bound allows.
func nextGasLimit(parent, desired uint64) uint64 {
	delta := parent/gasLimitBoundDivisor - 1
	switch {
	case desired > parent:
		return min(desired, parent+delta)
	case desired < parent:
		return max(desired, parent-delta, minGasLimit)
	}
	return parent
}

// ExecOptions change how a block runs for callers that are not importing
// or building a real block. The zero value runs a block as consensus does.
type ExecOptions struct {
	// NoBaseFee lets transactions priced below the base fee run (calls and
	// simulations that give no gas price), as go-ethereum's no-base-fee mode.
	NoBaseFee bool
	// WrapState puts an observer between the EVM and the state (the
	// transfer logs of eth_simulateV1).
	WrapState func(*state.StateDB) evm.StateDB
	// Precompiles replaces the fork's precompiled contracts (state
	// overrides that move or replace them); nil keeps the fork's.
	Precompiles map[types.Address]evm.Precompile
	// BlobBaseFee replaces the BLOBBASEFEE the header's excess blob gas
	// gives.
	BlobBaseFee *uint256.Int
	// GasPool is gas shared beyond one block (a simulation's gas cap); nil
	// gives the block its own gas limit.
	GasPool *evm.GasPool
	// Transfers records, per transaction, the addresses that received
	// value inside it (Exec.Transfers), for the history index.
	Transfers bool
	// PoSByDifficulty decides proof of stake by the header's difficulty
	// alone, as go-ethereum's engine and EVM context do: 0 is proof of
	// stake (PREVRANDAO, no block reward); otherwise the block pays the
	// proof-of-work reward and its EVM runs without the forks that build on
	// the Merge (Shanghai and later), and a failing beacon-root call is
	// ignored. A simulated block may carry any number, time and difficulty,
	// so the chain's schedule cannot say.
	PoSByDifficulty bool
}

// Exec is one block being executed on its parent's state.
type Exec struct {
	Config *Config
	Engine Engine
	Header *types.Header
	State  *state.StateDB
	EVM    *evm.EVM
	Fork   forks.Fork
	Signer types.Signer

	Txs         []*types.Transaction
	Receipts    types.Receipts
	GasUsed     uint64
	BlobGasUsed uint64
	// Transfers are, per transaction, the addresses that received value
	// inside it (with ExecOptions.Transfers; nil otherwise).
	Transfers [][]types.Address

	rec *transferRecorder

	pos         bool // proof-of-stake block: no block reward
	gp          *evm.GasPool
	deleteEmpty bool
	withdrawals []*types.Withdrawal
	finished    bool
}

// Open starts executing the block with header h on st, which holds the
// parent's post-state, and makes the system calls that open a block.
// getHash answers BLOCKHASH for the block's ancestors.
func (r Rules) Open(h *types.Header, st *state.StateDB, getHash func(uint64) types.Hash, opts *ExecOptions) (*Exec, error) {
	c := r.Config
	if opts == nil {
		opts = &ExecOptions{}
	}
	fork := c.HeaderFork(h)
	bctx := c.BlockContext(h, getHash)
	pos := c.IsPoSHeader(h)
	if opts.PoSByDifficulty {
		pos = h.Difficulty.IsZero()
		bctx.Random, bctx.Difficulty = nil, new(uint256.Int).Set(&h.Difficulty)
		if pos {
			r := h.MixDigest
			bctx.Random, bctx.Difficulty = &r, nil
		}
	}
	if opts.BlobBaseFee != nil {
		bctx.BlobBaseFee = new(uint256.Int).Set(opts.BlobBaseFee)
	}
	evmFork := fork
	if opts.PoSByDifficulty && !pos && evmFork > forks.London {
		evmFork = forks.London
	}
	var vmState evm.StateDB = st
	if opts.WrapState != nil {
		vmState = opts.WrapState(st)
	}
	x := &Exec{
		Config:      c,
		Engine:      r.engine(),
		Header:      h,
		State:       st,
		EVM:         evm.NewEVM(bctx, vmState, c.ChainIDAt(h.Number), evmFork),
		Fork:        fork,
		Signer:      c.Signer(h.Number, h.Time),
		pos:         pos,
		gp:          opts.GasPool,
		deleteEmpty: fork >= forks.SpuriousDragon,
	}
	x.EVM.Config.NoBaseFee = opts.NoBaseFee
	x.EVM.Config.MaxCodeSize = c.MaxCodeSize
	if opts.Precompiles != nil {
		x.EVM.SetPrecompiles(opts.Precompiles)
	}
	if opts.Transfers {
		x.rec = &transferRecorder{}
		x.EVM.Config.Tracer = x.rec.hooks()
	}
	if n := x.Engine.Natives(); n != nil {
		x.EVM.SetNatives(n)
	}
	if x.gp == nil {
		gp := evm.GasPool(h.GasLimit)
		x.gp = &gp
	}
	if c.isDAOForkBlock(h.Number) {
		applyDAOFork(st)
	}
	if fork >= forks.Cancun && h.ParentBeaconRoot != nil {
		if _, err := x.systemCall(BeaconRootsAddress, h.ParentBeaconRoot[:]); err != nil && evmFork == fork {
			return nil, fmt.Errorf("%w: beacon root: %v", ErrSystemCall, err)
		}
	}
	if fork >= forks.Prague && h.Number > 0 {
		if _, err := x.systemCall(HistoryStorageAddress, h.ParentHash[:]); err != nil {
			return nil, fmt.Errorf("%w: parent hash: %v", ErrSystemCall, err)
		}
	}
	return x, nil
}

// GasLeft is the gas the block's pool still holds.
func (x *Exec) GasLeft() uint64 { return uint64(*x.gp) }

// ApplyTx recovers tx's sender and applies it; see Apply.
func (x *Exec) ApplyTx(tx *types.Transaction) (*types.Receipt, *evm.Result, error) {
	from, err := x.Signer.Sender(tx)
	if err != nil {
		return nil, nil, err
	}
	return x.Apply(tx, evm.TransactionToMessage(tx, from))
}

// Apply runs msg as the next transaction of the block; tx is what the
// block records for it (its hash keys the logs). An error means the
// transaction is invalid here (the EVM's validation errors, testable with
// errors.Is, or ErrMissingPrecompile): it is not recorded, but it may have
// touched the state — callers that go on after one use TryApply.
func (x *Exec) Apply(tx *types.Transaction, msg *evm.Message) (*types.Receipt, *evm.Result, error) {
	if x.finished {
		return nil, nil, errors.New("chain: transaction applied to a finished block")
	}
	st := x.State
	st.BeginTx(tx.Hash(), len(x.Txs))
	if x.rec != nil {
		x.rec.reset()
	}
	res, err := evm.ApplyMessage(x.EVM, msg, x.gp)
	if err != nil {
		return nil, nil, err
	}
	if len(res.MissingPrecompiles) > 0 {
		return nil, nil, fmt.Errorf("%w: %s", ErrMissingPrecompile, res.MissingPrecompiles[0])
	}
	x.GasUsed += res.UsedGas
	x.BlobGasUsed += tx.BlobGas()
	rc := &types.Receipt{Type: tx.Type(), CumulativeGasUsed: x.GasUsed}
	if x.Fork >= forks.Byzantium {
		st.Finalise(x.deleteEmpty)
		if !res.Failed() {
			rc.Status = types.ReceiptStatusSuccessful
		}
	} else {
		root := st.IntermediateRoot(x.deleteEmpty)
		rc.PostState = root.Bytes()
	}
	rc.Logs = append([]*types.Log(nil), st.Logs()...)
	rc.Bloom = types.LogsBloom(rc.Logs)
	x.Txs = append(x.Txs, tx)
	x.Receipts = append(x.Receipts, rc)
	if x.rec != nil {
		var to []types.Address
		if !res.Failed() {
			to = x.rec.recipients()
		}
		x.Transfers = append(x.Transfers, to)
	}
	return rc, res, nil
}

// TryApply is Apply that leaves the state as it was when the transaction
// is invalid, for builders that skip such transactions and go on.
func (x *Exec) TryApply(tx *types.Transaction, msg *evm.Message) (*types.Receipt, *evm.Result, error) {
	snap := x.State.Snapshot()
	gas := *x.gp
	rc, res, err := x.Apply(tx, msg)
	if err != nil {
		x.State.RevertToSnapshot(snap)
		*x.gp = gas
	}
	return rc, res, err
}

// Finish ends the block: withdrawals (amounts in gwei) are credited,
// proof-of-work rewards paid before the Merge, the end-of-block hook runs,
// the EIP-7685 requests are collected, and the state root is computed. The
// state then holds the block's post-state.
func (x *Exec) Finish(withdrawals []*types.Withdrawal, uncles []*types.Header) (*Result, error) {
	if x.finished {
		return nil, errors.New("chain: block finished twice")
	}
	x.finished = true
	st, c, h := x.State, x.Config, x.Header
	x.withdrawals = withdrawals
	gwei := uint256.NewInt(1_000_000_000)
	for _, w := range withdrawals {
		st.AddBalance(w.Address, new(uint256.Int).Mul(uint256.NewInt(w.Amount), gwei))
	}
	if !x.pos {
		c.accumulateRewards(x.Fork, h, uncles, st)
	}
	update, err := x.Engine.Finalize(x, burnedFees(h, x.EVM.Context.BlobBaseFee, x.GasUsed, x.BlobGasUsed))
	if err != nil {
		return nil, fmt.Errorf("end of block %d: %w", h.Number, err)
	}
	res := &Result{Receipts: x.Receipts, GasUsed: x.GasUsed, BlobGasUsed: x.BlobGasUsed, Transfers: x.Transfers, Validators: update}
	if x.Fork >= forks.Prague {
		reqs, err := x.collectRequests()
		if err != nil {
			return nil, err
		}
		res.Requests = reqs
	}
	res.Root = st.IntermediateRoot(x.deleteEmpty)
	if err := st.Error(); err != nil {
		return nil, err
	}
	return res, nil
}

// Seal fills in the header fields execution determined and returns the
// block, for callers that build blocks rather than import them.
func (x *Exec) Seal(res *Result) *types.Block {
	h := x.Header
	h.GasUsed = res.GasUsed
	if h.BlobGasUsed != nil {
		*h.BlobGasUsed = res.BlobGasUsed
	}
	if x.Fork >= forks.Prague {
		rh := RequestsHash(res.Requests)
		h.RequestsHash = &rh
	}
	body := &types.Body{Transactions: x.Txs}
	if x.Fork >= forks.Shanghai {
		body.Withdrawals = x.withdrawals
		if body.Withdrawals == nil {
			body.Withdrawals = []*types.Withdrawal{}
		}
		wr := types.DeriveWithdrawalsRoot(body.Withdrawals, trie.NewStackTrie())
		h.WithdrawalsHash = &wr
	}
	h.Root = res.Root
	h.TxHash = types.DeriveTxRoot(x.Txs, trie.NewStackTrie())
	h.ReceiptHash = types.DeriveReceiptRoot(x.Receipts, trie.NewStackTrie())
	h.Bloom = types.CreateBloom(x.Receipts)
	return types.NewBlock(h, body)
}

// systemCall runs a system contract as SYSTEM_ADDRESS (evm.SystemCall: no
// gas is bought, no nonce changes) in a journal scope of its own, finalised
// so the system address is not left touched.
func (x *Exec) systemCall(to types.Address, input []byte) ([]byte, error) {
	x.State.BeginTx(types.Hash{}, -1)
	out, err := x.EVM.SystemCall(to, input)
	x.State.Finalise(x.deleteEmpty)
	return out, err
}

// collectRequests gathers the EIP-7685 requests of a Prague block: deposits
// from the deposit contract's logs (EIP-6110), then the withdrawal (EIP-7002)
// and consolidation (EIP-7251) queues, each drained by a system call that
// must find code there.
func (x *Exec) collectRequests() ([][]byte, error) {
	deposits := []byte{0x00}
	if dc := x.Config.DepositContractAddress; dc != nil {
		for _, r := range x.Receipts {
			for _, l := range r.Logs {
				if l.Address != *dc || len(l.Topics) == 0 || l.Topics[0] != depositEventTopic {
					continue
				}
				d, err := parseDeposit(l.Data)
				if err != nil {
					return nil, err
				}
				deposits = append(deposits, d...)
			}
		}
	}
	reqs := [][]byte{deposits}
	for i, addr := range []types.Address{WithdrawalQueue, ConsolidationQueue} {
		if x.State.GetCodeSize(addr) == 0 {
			return nil, fmt.Errorf("%w: no code at %s", ErrSystemCall, addr)
		}
		out, err := x.systemCall(addr, nil)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrSystemCall, addr, err)
		}
		reqs = append(reqs, append([]byte{byte(i + 1)}, out...))
	}
	return reqs, nil
}
