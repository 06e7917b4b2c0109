// Package txgossip is the transaction reactor: it gossips every
// transaction the pool accepts (from RPC or from a peer) to the peers that
// lack it, and puts the transactions peers gossip into the pool.
package txgossip

import (
	"sync"
	"sync/atomic"

	"github.com/chaind/chaind/internal/protocol/wire"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/p2p"
)

// Pool is the transaction pool the reactor feeds and reads.
type Pool interface {
	Add(tx *types.Transaction) error
	// Subscribe delivers every transaction the pool accepts.
	Subscribe(buffer int) (<-chan *types.Transaction, func())
}

// Reactor gossips transactions on one host.
type Reactor struct {
	host  *p2p.Host
	pool  Pool
	known *knownTxs
	// LateTxs counts gossiped transactions that arrived after their
	// block was committed.
	LateTxs atomic.Uint64
}

// New makes the reactor and registers its topic on host.
func New(host *p2p.Host, pool Pool) *Reactor {
	r := &Reactor{host: host, pool: pool, known: newKnownTxs(1 << 16)}
	host.Handle(wire.TopicTx, p2p.TopicConfig{Priority: p2p.Low, Gossip: true}, r.onTx)
	return r
}

// onTx puts a gossiped transaction into the pool; the pool's feed then
// passes it on to peers that lack it. A transaction the pool refuses
// (already known, nonce too low) is not an offence; one of a block we
// already executed is not checked again (see knownTxs).
func (r *Reactor) onTx(_ p2p.ID, b []byte) error {
	tx, err := types.DecodeTx(b)
	if err != nil {
		return err
	}
	committed, validated := r.known.lookup(tx.Hash())
	if committed {
		r.LateTxs.Add(1)
		return nil
	}
	if validated != nil {
		tx.ShareSender(validated)
	}
	r.pool.Add(tx)
	return nil
}

// Run sends every transaction the pool accepts, from RPC or from a peer,
// to the peers that do not have it, until stop is closed.
func (r *Reactor) Run(stop <-chan struct{}) {
	txs, cancel := r.pool.Subscribe(4096)
	defer cancel()
	for {
		select {
		case <-stop:
			return
		case tx, ok := <-txs:
			if !ok {
				return
			}
			if b, err := tx.MarshalBinary(); err == nil {
				r.host.Broadcast(wire.TopicTx, b)
			}
		}
	}
}

// Validated remembers the transactions of a block this validator has
// validated (see knownTxs).
func (r *Reactor) Validated(b *types.Block) { r.known.add(b, false) }

// Committed remembers the transactions of a committed block (see
// knownTxs).
func (r *Reactor) Committed(b *types.Block) { r.known.add(b, true) }

// knownTxs remembers the transactions of recent blocks this node has
// executed, so that a gossiped copy costs no second signature check: the
// transactions travel at low priority and the blocks at high, so copies
// often arrive after their block. A copy of a transaction of a committed
// block is dropped; one of a validated block not yet decided takes the
// sender recovered during validation and goes to the pool (the block may
// yet lose its round).
type knownTxs struct {
	mu        sync.Mutex
	max       int
	cur, prev map[types.Hash]*types.Transaction // nil: committed
}

func newKnownTxs(max int) *knownTxs {
	return &knownTxs{max: max, cur: make(map[types.Hash]*types.Transaction), prev: make(map[types.Hash]*types.Transaction)}
}

func (s *knownTxs) add(b *types.Block, committed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, tx := range b.Transactions() {
		v := tx
		if committed {
			v = nil
		}
		s.cur[tx.Hash()] = v
		if len(s.cur) >= s.max {
			s.prev, s.cur = s.cur, make(map[types.Hash]*types.Transaction, s.max)
		}
	}
}

// lookup reports whether h is in a committed block, or else the copy of
// it a validated block holds (nil if none).
func (s *knownTxs) lookup(h types.Hash) (committed bool, validated *types.Transaction) {
	s.mu.Lock()
	defer s.mu.Unlock()
	tx, ok := s.cur[h]
	if !ok {
		tx, ok = s.prev[h]
	}
	return ok && tx == nil, tx
}
