package node

import (
	"context"
	"crypto/rand"
	"fmt"
	"sync"
	"time"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/node/bft"
	"github.com/chaind/chaind/internal/txpool"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc/ethapi"
	"github.com/chaind/chaind/state"
	"github.com/holiman/uint256"
)

// devTools implements backend.DevTools for a --dev node.
//
// Snapshots are cheap: the chain's state is versioned by root, so a
// snapshot is the head block, the root of the head's state (which the
// set* helpers may have changed without a block) and the dev clock. A
// revert rewinds the chain to that block and points the head's state at
// that root; nothing is copied either way.
type devTools struct {
	n        *Node
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
}

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

// enableDevTools prepares the test helpers of a --dev node; the node
// registers them on its JSON-RPC server and runs its consensus under their
// mining control.
func (n *Node) enableDevTools() {
	d := &devTools{n: n, miner: newDevMiner(n.Pool, n.cfg.BlockTime), imp: map[types.Address]bool{}, nextID: 1}
	d.miner.head = func() types.Hash { return n.Chain.Head().Hash() }
	rand.Read(d.instance[:])
	// Impersonated transactions carry a marker instead of a signature;
	// only this chain's signer accepts them.
	n.Chain.Config.Impersonation = true
	seed := map[types.Address][]types.Hash{}
	for a, acc := range n.cfg.Genesis.Alloc {
		slots := []types.Hash{}
		for k := range acc.Storage {
			slots = append(slots, k)
		}
		seed[a] = slots
	}
	n.Chain.RecordKeys(seed)
	n.keys.imp = d
	n.dev = d
	n.backend.SetNextBlockHook(d.miner.nextOn)
	n.backend.SetSentHook(func(ctx context.Context, tx *types.Transaction) {
		h := tx.Hash()
		d.miner.waitMined(ctx, func() bool { _, _, ok := n.Chain.DB().TxLookup(h); return ok })
	})
	go func() {
		<-n.stop
		d.miner.close()
	}()
	ethapi.RegisterDevTools(n.RPC, n.backend, d, ethapi.EthOptions{ClientVersion: n.cfg.ClientVersion})
}

// devClientVersion is web3_clientVersion of a node serving the test
// helpers. Hardhat's network helpers (loadFixture, time, impersonation…)
// refuse to run unless the version starts with "anvil" or
// "HardhatNetwork"; "anvil-compatible" says what the node offers and the
// rest says what it is.
func devClientVersion(v string) string { return "anvil-compatible " + v }

// transport is the consensus transport of the dev validator: one made
// at the first start and kept.
func (d *devTools) transport(chainID uint64, self types.Address) bft.Transport {
	d.trMu.Lock()
	defer d.trMu.Unlock()
	if d.tr == nil {
		d.tr = bft.NewMemNetwork(chainID).Join(self)
	}
	return d.tr
}

// devCommitted tells the mining control of a committed block.
func (n *Node) devCommitted(b *types.Block) {
	if n.dev != nil {
		n.dev.miner.committed(b)
	}
}

// devMinerOf is the consensus application's Miner: nil without --dev.
func (n *Node) devMinerOf() *devMiner {
	if n.dev == nil {
		return nil
	}
	return n.dev.miner
}

// Snapshot implements backend.DevTools.
func (d *devTools) Snapshot() uint64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	var s devSnapshot
	d.miner.mu.Lock()
	s.offset, s.nextTime, s.next = d.miner.offset, d.miner.nextTime, d.miner.next
	d.miner.mu.Unlock()
	s.pool = d.n.Pool.Save()
	head := d.n.Chain.Head()
	s.id, s.head, s.number, s.root = d.nextID, head.Hash(), head.Number(), d.n.Chain.StateRoot(head.HeaderRef())
	d.nextID++
	d.snaps = append(d.snaps, s)
	return s.id
}

// Revert implements backend.DevTools.
func (d *devTools) Revert(ctx context.Context, id uint64, opts backend.RevertOptions) (bool, error) {
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
		err := c.Rewind(s.number)
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
	if err := c.UseHeadStateRoot(s.head, s.root); err != nil {
		return false, fmt.Errorf("revert to snapshot %d: %w", id, err)
	}
	d.snaps = d.snaps[:i]
	d.miner.mu.Lock()
	d.miner.offset, d.miner.nextTime = s.offset, s.nextTime
	next := s.next
	if !opts.Coinbase {
		next.coinbase = d.miner.next.coinbase
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
func (d *devTools) Mine(ctx context.Context, blocks, first, interval uint64) error {
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
func (d *devTools) IncreaseTime(seconds uint64) int64 {
	var total int64
	d.miner.with(func(m *devMiner) {
		m.offset += int64(seconds)
		total = m.offset
	})
	return total
}

// SetNextBlockTimestamp implements backend.DevTools.
func (d *devTools) SetNextBlockTimestamp(ts uint64) error {
	if head := d.n.Chain.Head(); ts <= head.Time() {
		return fmt.Errorf("%w: %d is not after %d", backend.ErrTimestampNotAfterHead, ts, head.Time())
	}
	d.miner.with(func(m *devMiner) { m.nextTime = ts })
	return nil
}

// SetAutomine implements backend.DevTools.
func (d *devTools) SetAutomine(on bool) { d.miner.with(func(m *devMiner) { m.automine = on }) }

// Automine implements backend.DevTools.
func (d *devTools) Automine() bool {
	d.miner.mu.Lock()
	defer d.miner.mu.Unlock()
	return d.miner.automine
}

// SetIntervalMining implements backend.DevTools.
func (d *devTools) SetIntervalMining(lo, hi time.Duration) {
	d.miner.with(func(m *devMiner) {
		m.intervalMin, m.intervalMax = lo, hi
		m.nextInterval()
		m.last = m.now()
	})
}

// modify changes the head's state with f; reads of "latest" see the
// change at once, the pool re-validates against it and the next block is
// built on it.
func (d *devTools) modify(ctx context.Context, f func(st *state.StateDB)) error {
	err := d.miner.quiet(ctx, func() error {
		c := d.n.Chain
		head := c.Head()
		st, err := c.StateAt(c.StateRoot(head.HeaderRef()))
		if err != nil {
			return err
		}
		f(st)
		_, err = c.SetHeadState(head.Hash(), st)
		return err
	})
	if err == nil {
		d.n.refreshPool()
	}
	return err
}

// SetBalance implements backend.DevTools.
func (d *devTools) SetBalance(ctx context.Context, a types.Address, bal *uint256.Int) error {
	return d.modify(ctx, func(st *state.StateDB) { st.SetBalance(a, bal) })
}

// SetCode implements backend.DevTools.
func (d *devTools) SetCode(ctx context.Context, a types.Address, code []byte) error {
	return d.modify(ctx, func(st *state.StateDB) { st.SetCode(a, code) })
}

// SetNonce implements backend.DevTools.
func (d *devTools) SetNonce(ctx context.Context, a types.Address, nonce uint64) error {
	return d.modify(ctx, func(st *state.StateDB) { st.SetNonce(a, nonce) })
}

// SetStorageAt implements backend.DevTools.
func (d *devTools) SetStorageAt(ctx context.Context, a types.Address, slot, value types.Hash) error {
	return d.modify(ctx, func(st *state.StateDB) { st.SetState(a, slot, value) })
}

// Impersonate implements backend.DevTools.
func (d *devTools) Impersonate(a types.Address) {
	d.impMu.Lock()
	defer d.impMu.Unlock()
	d.imp[a] = true
}

// StopImpersonating implements backend.DevTools.
func (d *devTools) StopImpersonating(a types.Address) {
	d.impMu.Lock()
	defer d.impMu.Unlock()
	delete(d.imp, a)
}

// AutoImpersonate implements backend.DevTools.
func (d *devTools) AutoImpersonate(on bool) {
	d.impMu.Lock()
	defer d.impMu.Unlock()
	d.autoImp = on
}

// Impersonating implements backend.Impersonator for the node's keyring.
func (d *devTools) Impersonating(a types.Address) bool {
	d.impMu.RLock()
	defer d.impMu.RUnlock()
	return d.autoImp || d.imp[a]
}

// Metadata implements backend.DevTools.
func (d *devTools) Metadata() backend.DevMetadata {
	head := d.n.Chain.Head()
	d.miner.mu.Lock()
	defer d.miner.mu.Unlock()
	m := backend.DevMetadata{ClientVersion: d.n.cfg.ClientVersion, ChainID: d.n.Chain.Config.ChainID, InstanceID: d.instance,
		LatestBlockNumber: head.Number(), LatestBlockHash: head.Hash(), Automine: d.miner.automine, TimeOffset: d.miner.offset}
	if fp := d.n.Chain.Fork(); fp != nil {
		m.Forked = &backend.DevFork{BlockNumber: uint64(fp.Number), BlockHash: fp.Hash}
		if up := d.n.Upstream(); up != nil {
			m.Forked.ChainID = up.ChainID
		}
	}
	return m
}

// forget drops every snapshot (after a reset none of them is on the
// chain) and the choices for the next blocks: a reset node starts afresh,
// as Hardhat's and anvil's do.
func (d *devTools) forget() {
	d.mu.Lock()
	d.snaps = nil
	d.mu.Unlock()
	d.miner.with(func(m *devMiner) { m.next = devNext{} })
}

// restorePool puts the pool's saved transactions back, validated against
// the head's state.
func (n *Node) restorePool(saved txpool.Saved) {
	n.resetMu.Lock()
	defer n.resetMu.Unlock()
	head := n.Chain.Head().Hash()
	ph, err := n.nextPoolHead()
	if err != nil {
		n.log.Error("pool restore", "err", err)
		return
	}
	n.Pool.Restore(saved, ph)
	n.poolAt = head
}

// refreshPool re-validates the pool against the head's state even when
// the head block is the same (its state changed, or the chain was
// rewound to it).
func (n *Node) refreshPool() {
	n.resetMu.Lock()
	n.poolAt = types.Hash{}
	n.resetMu.Unlock()
	n.resetPool()
}
