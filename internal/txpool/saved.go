package txpool

import "github.com/chaind/chaind/internal/types"

// Saved is the content of a pool at one moment, kept by a development
// node's snapshot so that a revert can put the pool back as it was, as
// Hardhat Network's evm_revert does.
type Saved struct {
	entries []entry
}

// Len is the number of transactions saved.
func (s Saved) Len() int { return len(s.entries) }

// Save records the pool's transactions (with their blob sidecars). It
// copies one small record per transaction, never a transaction.
func (p *Pool) Save() Saved {
	p.mu.RLock()
	defer p.mu.RUnlock()
	s := Saved{entries: make([]entry, 0, len(p.all))}
	for _, e := range p.all {
		s.entries = append(s.entries, *e)
	}
	return s
}

// Restore replaces the pool's transactions with saved ones and moves the
// pool to head as Reset does, dropping those the head's state no longer
// admits. A transaction is announced again only if it had never been
// executable before. A head state that fails a read drops nothing and
// returns the error, as Reset.
func (p *Pool) Restore(s Saved, head Head) error {
	p.mu.Lock()
	p.all = make(map[types.Hash]*entry, len(s.entries))
	p.accounts = map[types.Address]*account{}
	p.bytes = 0 // a saved pool was within the bound: Save copies a pool's whole content
	for i := range s.entries {
		e := s.entries[i] // a copy: the saved record stays as it was for a later restore
		acc := p.accounts[e.from]
		if acc == nil {
			acc = &account{txs: map[uint64]*entry{}}
			p.accounts[e.from] = acc
		}
		acc.txs[e.tx.Nonce()] = &e
		p.all[e.tx.Hash()] = &e
		p.bytes += e.size
	}
	ready, err := p.reset(head)
	p.mu.Unlock()
	for _, tx := range ready {
		p.notify(tx)
	}
	return err
}

// Clear drops every transaction of the pool.
func (p *Pool) Clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.all = map[types.Hash]*entry{}
	p.accounts = map[types.Address]*account{}
	p.bytes = 0
}
