// Package dev is the test-helper side of a development node (anvil's and
// Hardhat's evm_*, hardhat_* and anvil_* methods, backend.DevTools):
// snapshots and reverts, mining control (automine, interval mining, mine
// on demand, timestamps), state edits at the head, impersonation, the
// choices for the next block, and state dumps. Its edits and choices are
// laid over the chain in one place, the node's chain view
// (internal/node/chainview), which every backend reads; the chain itself
// knows none of them. The node wires it: it registers the helpers on its
// JSON-RPC server, runs its consensus with the Miner, and takes the
// consensus and pool steps a revert needs (Node).
package dev

import (
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/node/bft"
	"github.com/chaind/chaind/internal/node/chainview"
	"github.com/chaind/chaind/internal/txpool"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
	"github.com/holiman/uint256"
)

// Tools implements backend.DevTools for a --dev node.
//
// Snapshots are cheap: the chain's state is versioned by root, so a
// snapshot is the head block, the root of the head's state (which the
// set* helpers may have changed without a block) and the dev clock. A
// revert rewinds the chain to that block and points the head's state at
// that root; nothing is copied either way.
type Tools struct {
	n        *node
	miner    *devMiner
	instance types.Hash

	mu     sync.Mutex // serialises snapshots and reverts
	snaps  []devSnapshot
	nextID uint64

	trMu sync.Mutex
	tr   bft.Transport // the node's in-process consensus transport, kept across reverts

	impMu   sync.RWMutex
	imp     map[types.Address]bool
	autoImp bool

	quiet atomic.Bool // hardhat_/anvil_setLoggingEnabled(false): the console prints nothing
}

// Node is what the helpers need the node to do: stop and restart its
// validator around a rewind, and put its pool back on the head.
type Node interface {
	// StopConsensus stops the validator and waits until its driver has
	// returned.
	StopConsensus()
	StartConsensus() error
	// RestorePool puts saved transactions back, validated against the
	// head's state; RefreshPool re-validates the pool against it even
	// when the head block is the same.
	RestorePool(saved txpool.Saved)
	RefreshPool()
}

// Config configures the helpers.
type Config struct {
	// View is the node's chain view: the helpers' state edits and
	// next-block choices go there, where every backend reads them. Its
	// chain must have been opened with impersonation on (Impersonation).
	View          *chainview.View
	Pool          *txpool.Pool
	Genesis       *chain.Genesis // its accounts' storage keys seed the key record
	BlockTime     time.Duration  // the interval mining starts with (0: automine)
	ClientVersion string
	Node          Node
}

// node is the node as the helpers see it.
type node struct {
	View  *chainview.View
	Chain *chain.Chain
	Pool  *txpool.Pool
	cfg   Config
	Node
}

func (n *node) stopConsensusAndWait()          { n.StopConsensus() }
func (n *node) startConsensus() error          { return n.StartConsensus() }
func (n *node) restorePool(saved txpool.Saved) { n.RestorePool(saved) }
func (n *node) refreshPool()                   { n.RefreshPool() }

type devSnapshot struct {
	id       uint64
	head     types.Hash
	number   uint64
	root     types.Hash // the head's state
	offset   int64
	nextTime uint64
	next     devNext      // the choices for the next blocks (devnext.go)
	pool     txpool.Saved // the pool's transactions
}

// New prepares the test helpers of a --dev node over its chain and pool;
// the node registers them on its JSON-RPC server (they implement
// backend.DevTools) and runs its consensus under their mining control
// (Miner).
func New(cfg Config) *Tools {
	n := &node{View: cfg.View, Chain: cfg.View.Chain(), Pool: cfg.Pool, cfg: cfg, Node: cfg.Node}
	d := &Tools{n: n, miner: newDevMiner(n.Pool, n.cfg.BlockTime), imp: map[types.Address]bool{}, nextID: 1}
	rand.Read(d.instance[:])
	cfg.View.SetChoices(d.miner.nextOn)
	seed := map[types.Address][]types.Hash{}
	for a, acc := range n.cfg.Genesis.Alloc {
		slots := []types.Hash{}
		for k := range acc.Storage {
			slots = append(slots, k)
		}
		seed[a] = slots
	}
	n.Chain.RecordKeys(seed)
	return d
}

// Options are the anvil flags a development node's chain and pool take
// when they open.
type Options struct {
	// MaxCodeSize is --code-size-limit (0: EIP-170's limit;
	// evm.NoCodeSizeLimit: --disable-code-size-limit), chain.Config's.
	MaxCodeSize uint64
	// FIFO is --order fifo: blocks take transactions in the order they
	// arrived rather than by tip (txpool.Config.FIFO).
	FIFO bool
}

// Rules returns the genesis g with its chain's signer accepting the
// marker signatures of impersonated transactions
// (types.ImpersonatedSignature), o's code size limit and a chain ID
// anvil_setChainId may move (chain.NewChainIDs): a development node opens
// its chain with it, since a chain's config does not change once open. g
// is not changed.
func Rules(g *chain.Genesis, o Options) *chain.Genesis {
	out, cfg := *g, *g.Config
	cfg.Impersonation = true
	cfg.MaxCodeSize = o.MaxCodeSize
	cfg.ChainIDs = chain.NewChainIDs()
	out.Config = &cfg
	return &out
}

// PoolConfig is the transaction pool's config under o, logging to log and
// holding at most maxBytes (0: txpool.DefaultConfig's). Every node's pool
// is made here; o is the zero Options on a node without --dev.
func (o Options) PoolConfig(log *slog.Logger, maxBytes int64) txpool.Config {
	c := txpool.DefaultConfig
	c.FIFO, c.Log = o.FIFO, log
	if maxBytes > 0 {
		c.MaxBytes = maxBytes
	}
	return c
}

// ClientVersion is web3_clientVersion of a node serving the test
// helpers. Hardhat's network helpers (loadFixture, time, impersonation…)
// refuse to run unless the version starts with "anvil" or
// "HardhatNetwork"; "anvil-compatible" says what the node offers and the
// rest says what it is.
func ClientVersion(v string) string { return "anvil-compatible " + v }

// Transport is the consensus transport of the dev validator: one made
// at the first start and kept (a revert restarts consensus on it).
func (d *Tools) Transport(chainID uint64, self types.Address) bft.Transport {
	d.trMu.Lock()
	defer d.trMu.Unlock()
	if d.tr == nil {
		d.tr = bft.NewMemNetwork(chainID).Join(self)
	}
	return d.tr
}

// Committed tells the mining control of a committed block.
func (d *Tools) Committed(b *types.Block) { d.miner.committed(b) }

// Miner is the consensus application's Miner: blocks are built when the
// mining control says.
func (d *Tools) Miner() bft.Miner { return d.miner }

// WaitMined waits, when automining, until mined reports a sent
// transaction mined (or ctx ends).
func (d *Tools) WaitMined(ctx context.Context, mined func() bool) error {
	return d.miner.waitMined(ctx, mined)
}

// Close stops the mining control.
func (d *Tools) Close() { d.miner.close() }

// Snapshot implements backend.DevTools.
func (d *Tools) Snapshot() uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	var s devSnapshot
	d.miner.mu.Lock()
	s.offset, s.nextTime, s.next = d.miner.offset, d.miner.nextTime, d.miner.next
	d.miner.mu.Unlock()
	s.pool = d.n.Pool.Save()
	head := d.n.Chain.Head()
	s.id, s.head, s.number, s.root = d.nextID, head.Hash(), head.Number(), d.n.View.StateRoot(head.HeaderRef())
	d.nextID++
	d.snaps = append(d.snaps, s)
	return s.id
}

// Revert implements backend.DevTools.
func (d *Tools) Revert(ctx context.Context, id uint64, opts backend.RevertOptions) (bool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	i := -1
	for j, s := range d.snaps {
		if s.id == id {
			i = j
			break
		}
	}
	if i < 0 {
		return false, nil
	}
	s := d.snaps[i]
	if err := d.miner.pause(ctx); err != nil {
		return false, err
	}
	defer d.miner.resume()
	c := d.n.Chain
	if c.Head().Hash() != s.head {
		d.n.stopConsensusAndWait()
		err := d.n.View.Rewind(s.number)
		if err == nil && c.Head().Hash() != s.head {
			err = fmt.Errorf("block %d is no longer the snapshot's", s.number)
		}
		if rerr := d.n.startConsensus(); err == nil {
			err = rerr
		}
		if err != nil {
			return false, fmt.Errorf("revert to snapshot %d: %w", id, err)
		}
	}
	if err := d.n.View.UseHeadState(s.head, s.root); err != nil {
		return false, fmt.Errorf("revert to snapshot %d: %w", id, err)
	}
	d.snaps = d.snaps[:i]
	d.miner.mu.Lock()
	d.miner.offset, d.miner.nextTime = s.offset, s.nextTime
	next := s.next
	if !opts.Coinbase {
		// anvil keeps its node-wide choices across a revert: the fee
		// recipient and the block gas limit.
		next.coinbase, next.gasLimit = d.miner.next.coinbase, d.miner.next.gasLimit
	}
	if !opts.NextRandao {
		next.randao = nil
	}
	d.miner.next = next
	d.miner.mu.Unlock()
	if opts.Pool {
		d.n.restorePool(s.pool)
	} else {
		d.n.refreshPool()
	}
	return true, nil
}

// Mine implements backend.DevTools.
func (d *Tools) Mine(ctx context.Context, blocks, first, interval uint64) error {
	if blocks == 0 {
		return nil
	}
	times := make([]uint64, blocks)
	if first != 0 || interval != 0 {
		t := first
		if t == 0 {
			d.miner.mu.Lock()
			t = d.miner.clock()
			d.miner.mu.Unlock()
			// A block is always stamped after its parent.
			t = max(t, d.n.Chain.Head().Time()+1)
		}
		for i := range times {
			times[i] = t + uint64(i)*interval
		}
	}
	_, err := d.miner.mine(ctx, times)
	return err
}

// IncreaseTime implements backend.DevTools.
func (d *Tools) IncreaseTime(seconds uint64) int64 {
	var total int64
	d.miner.with(func(m *devMiner) {
		m.offset += int64(seconds)
		total = m.offset
	})
	return total
}

// SetNextBlockTimestamp implements backend.DevTools.
func (d *Tools) SetNextBlockTimestamp(ts uint64) error {
	if head := d.n.Chain.Head(); ts <= head.Time() {
		return fmt.Errorf("%w: %d is not after %d", backend.ErrTimestampNotAfterHead, ts, head.Time())
	}
	d.miner.with(func(m *devMiner) { m.nextTime = ts })
	return nil
}

// SetAutomine implements backend.DevTools.
func (d *Tools) SetAutomine(on bool) { d.miner.with(func(m *devMiner) { m.automine = on }) }

// Automine implements backend.DevTools.
func (d *Tools) Automine() bool {
	d.miner.mu.Lock()
	defer d.miner.mu.Unlock()
	return d.miner.automine
}

// SetIntervalMining implements backend.DevTools.
func (d *Tools) SetIntervalMining(lo, hi time.Duration) {
	d.miner.with(func(m *devMiner) {
		m.intervalMin, m.intervalMax = lo, hi
		m.nextInterval()
		m.last = m.now()
	})
}

// modify changes the head's state with f; reads of "latest" see the
// change at once, the pool re-validates against it and the next block is
// built on it.
func (d *Tools) modify(ctx context.Context, f func(st *state.StateDB)) error {
	err := d.miner.quiet(ctx, func() error {
		v := d.n.View
		head := v.Chain().Head()
		st, err := v.State(head.HeaderRef())
		if err != nil {
			return err
		}
		f(st)
		_, err = v.SetHeadState(head.Hash(), st)
		return err
	})
	if err == nil {
		d.n.refreshPool()
	}
	return err
}

// SetBalance implements backend.DevTools.
func (d *Tools) SetBalance(ctx context.Context, a types.Address, bal *uint256.Int) error {
	return d.modify(ctx, func(st *state.StateDB) { st.SetBalance(a, bal) })
}

// SetCode implements backend.DevTools.
func (d *Tools) SetCode(ctx context.Context, a types.Address, code []byte) error {
	return d.modify(ctx, func(st *state.StateDB) { st.SetCode(a, code) })
}

// SetNonce implements backend.DevTools.
func (d *Tools) SetNonce(ctx context.Context, a types.Address, nonce uint64) error {
	return d.modify(ctx, func(st *state.StateDB) { st.SetNonce(a, nonce) })
}

// SetStorageAt implements backend.DevTools.
func (d *Tools) SetStorageAt(ctx context.Context, a types.Address, slot, value types.Hash) error {
	return d.modify(ctx, func(st *state.StateDB) { st.SetState(a, slot, value) })
}

// Impersonate implements backend.DevTools.
func (d *Tools) Impersonate(a types.Address) {
	d.impMu.Lock()
	defer d.impMu.Unlock()
	d.imp[a] = true
}

// StopImpersonating implements backend.DevTools.
func (d *Tools) StopImpersonating(a types.Address) {
	d.impMu.Lock()
	defer d.impMu.Unlock()
	delete(d.imp, a)
}

// AutoImpersonate implements backend.DevTools.
func (d *Tools) AutoImpersonate(on bool) {
	d.impMu.Lock()
	defer d.impMu.Unlock()
	d.autoImp = on
}

// Impersonating implements backend.Impersonator for the node's keyring.
func (d *Tools) Impersonating(a types.Address) bool {
	d.impMu.RLock()
	defer d.impMu.RUnlock()
	return d.autoImp || d.imp[a]
}

// Metadata implements backend.DevTools.
func (d *Tools) Metadata() backend.DevMetadata {
	head := d.n.Chain.Head()
	d.miner.mu.Lock()
	defer d.miner.mu.Unlock()
	m := backend.DevMetadata{ClientVersion: d.n.cfg.ClientVersion, ChainID: d.chainID(), InstanceID: d.instance,
		LatestBlockNumber: head.Number(), LatestBlockHash: head.Hash(), Automine: d.miner.automine, TimeOffset: d.miner.offset}
	if fp := d.n.Chain.Fork(); fp != nil {
		m.Forked = &backend.DevFork{BlockNumber: uint64(fp.Number), BlockHash: fp.Hash}
		if up := d.n.View.Upstream(); up != nil {
			m.Forked.ChainID = up.ChainID
		}
	}
	return m
}

// Forget drops every snapshot (after a reset none of them is on the
// chain) and the choices for the next blocks: a reset node starts afresh,
// as Hardhat's and anvil's do.
func (d *Tools) Forget() {
	d.mu.Lock()
	d.snaps = nil
	d.mu.Unlock()
	d.miner.with(func(m *devMiner) { m.next = devNext{} })
}

// SetLoggingEnabled turns the node's development log on or off: the
// console's block and transaction lines and the console.log lines of
// transactions and calls (hardhat_setLoggingEnabled,
// anvil_setLoggingEnabled). It is on from the start, as on both.
func (d *Tools) SetLoggingEnabled(on bool) { d.quiet.Store(!on) }

// LoggingEnabled reports whether the development log is on.
func (d *Tools) LoggingEnabled() bool { return !d.quiet.Load() }
