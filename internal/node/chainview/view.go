// Package chainview is the chain as every backend of the node reads it: the
// state after a block and the parameters of the next block, with a
// development node's edits laid over the chain. The core chain knows only
// the state its headers commit to (chain.StateAt(header.Root)); a --dev
// node's test helpers (package dev: hardhat_setStorageAt, anvil_setBalance,
// snapshots, hardhat_setNextBlockBaseFeePerGas...) write their changes
// here, a forked chain's upstream is held here (fork.go), and ethbackend
// (JSON-RPC, GraphQL, the explorer, REST and gRPC bank queries),
// stakebackend (REST and gRPC staking views, chain_*), the pool and the
// proposer read here, so every interface sees one state, one upstream and
// one next block.
package chainview

import (
	"sync"
	"sync/atomic"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/node/fork"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
	"github.com/holiman/uint256"
)

// View is one chain as the node's backends read it. Its zero edits make it
// the chain itself: a node without the test helpers reads every state at
// its header's root.
type View struct {
	chain *chain.Chain

	// roots are the states the test helpers made of blocks, by block
	// hash: the head's current one, and those of earlier heads, kept as
	// Hardhat and anvil keep them, so a read at a block (a balance before
	// and after a transaction) sees the state the next block was built on.
	mu     sync.RWMutex
	roots  map[types.Hash]types.Hash
	edited atomic.Bool // roots was ever written: the fast path skips the map

	choices func(parent types.Hash) Choices // see SetChoices

	fork *fork.State // a forked chain's upstream (fork.go); nil: none
}

// New returns the view of c, with no edits.
func New(c *chain.Chain) *View { return &View{chain: c} }

// Chain is the chain under the view.
func (v *View) Chain() *chain.Chain { return v.chain }

// StateRoot is the root of the state "after block h": the header's own,
// or the one the test helpers made of it.
func (v *View) StateRoot(h *types.Header) types.Hash {
	if !v.edited.Load() {
		return h.Root
	}
	hash := h.Hash()
	v.mu.RLock()
	root, ok := v.roots[hash]
	v.mu.RUnlock()
	if ok {
		return root
	}
	return h.Root
}

// State opens the state after block h; the caller releases it. A state
// pruning dropped, or began to drop, is refused with chain.ErrStatePruned;
// one read for long should be pinned (PinnedState), or pruning may drop it
// under the read, which then fails on a missing node.
func (v *View) State(h *types.Header) (*state.StateDB, error) {
	if err := v.chain.StateKept(h.Number); err != nil {
		return nil, err
	}
	return v.chain.StateAt(v.StateRoot(h))
}

// PinnedState is State kept from pruning until done is called, which
// also releases the StateDB: for the reads that walk a state for long
// (calls, traces, proofs, simulations), which then answer from the whole
// state or fail with chain.ErrStatePruned at once.
func (v *View) PinnedState(h *types.Header) (st *state.StateDB, done func(), err error) {
	st, release, err := v.chain.StateAtBlock(h.Number, v.StateRoot(h))
	if err != nil {
		return nil, nil, err
	}
	return st, func() { st.Release(); release() }, nil
}

// Choices are a development node's choices for the block it makes on a
// parent (hardhat_setCoinbase, hardhat_setNextBlockBaseFeePerGas,
// hardhat_setPrevRandao, evm_setBlockGasLimit); nil or zero fields are the
// chain's or the proposer's own.
type Choices struct {
	Coinbase *types.Address
	BaseFee  *uint256.Int
	Random   *types.Hash
	GasLimit uint64
}

// Apply lays the choices over a proposer's attributes.
func (x Choices) Apply(a *chain.Attributes) {
	if x.Coinbase != nil {
		a.Coinbase = *x.Coinbase
	}
	if x.BaseFee != nil {
		a.BaseFee = new(uint256.Int).Set(x.BaseFee)
	}
	if x.Random != nil {
		a.Random = *x.Random
	}
	if x.GasLimit != 0 {
		a.DevGasLimit = x.GasLimit
	}
}

// SetChoices installs f, which says what a development node chose for
// its next block on parent. Set before serving.
func (v *View) SetChoices(f func(parent types.Hash) Choices) { v.choices = f }

// ChoicesOn is what was chosen for a block on parent; zero on a node
// without the test helpers.
func (v *View) ChoicesOn(parent types.Hash) Choices {
	if v.choices == nil {
		return Choices{}
	}
	return v.choices(parent)
}

// NextBlockParams is the child of parent, under the proposer's attributes
// a (nil: none, the earliest time) with a development node's choices laid
// over them: the one derivation the pool, the fee methods, the pending
// block and the proposer share (chain.Config.NextBlockParams).
func (v *View) NextBlockParams(parent *types.Header, a *chain.Attributes) chain.NextBlock {
	var attrs chain.Attributes
	if a != nil {
		attrs = *a
	}
	v.ChoicesOn(parent.Hash()).Apply(&attrs)
	return v.chain.Config.NextBlockParams(parent, &attrs)
}
