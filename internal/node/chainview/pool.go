package chainview

import (
	"log/slog"
	"sync"

	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/txpool"
	"github.com/chaind/chaind/internal/types"
)

// PoolHead describes the next block on the head to the pool: the signer,
// fork, gas limit, base fee and blob fee of NextBlockParams (a development
// node's base fee among them) and the head's state as the view reads it.
func (v *View) PoolHead() (txpool.Head, error) {
	h := v.chain.Head().HeaderRef()
	st, err := v.State(h)
	if err != nil {
		return txpool.Head{}, err
	}
	nb := v.NextBlockParams(h, nil)
	ph := txpool.Head{Signer: nb.Signer, Fork: nb.Fork, GasLimit: nb.GasLimit, State: st, BaseFee: nb.BaseFee, MaxCodeSize: v.chain.Config.MaxCodeSize}
	if nb.Fork >= forks.Cancun {
		ph.MaxBlobs, ph.BlobBaseFee = nb.Blob.Max, nb.BlobBaseFee
	}
	return ph, nil
}

// PoolKeeper keeps a transaction pool on the view's head: re-validated
// against the head's state and the next block's parameters whenever
// either changes.
type PoolKeeper struct {
	v    *View
	pool *txpool.Pool
	log  *slog.Logger

	mu sync.Mutex
	at types.Hash // the head the pool was last moved to
}

// KeepPool returns the keeper of p, which stands on the head now. The
// pool moves itself to a new head before it validates a transaction or
// answers a nonce (txpool.Pool.SetSync), so a client never meets a pool
// older than the head it can read, whether or not Reset has run yet.
func (v *View) KeepPool(p *txpool.Pool, log *slog.Logger) *PoolKeeper {
	k := &PoolKeeper{v: v, pool: p, log: log, at: v.chain.Head().Hash()}
	p.SetSync(k.Reset)
	return k
}

// Reset moves the pool to the chain's head, once per head: the consensus
// application calls it right after committing (so the next block is built
// from a pool that knows what the last one took), the node for blocks
// from elsewhere, the pool itself before it admits a transaction.
// A pool whose head state failed a read (txpool.Pool.StateErr) is given a
// fresh state of the same head: the read error may have passed, and
// without this the pool would refuse every transaction until the next
// block, on a development node possibly for good.
func (k *PoolKeeper) Reset() {
	k.mu.Lock()
	defer k.mu.Unlock()
	head := k.v.chain.Head().Hash()
	if head == k.at && k.pool.StateErr() == nil {
		return
	}
	ph, err := k.v.PoolHead()
	if err != nil {
		k.log.Error("pool reset", "err", err)
		return
	}
	if k.pool.Reset(ph) != nil {
		return // the pool logged it and kept its transactions; the next call tries again
	}
	k.at = head
}

// Follow moves the pool to every new head until stop is closed: blocks
// from elsewhere (sync, import) and the node's own alike. Beside it the
// trie paths of the accounts the pool's new transactions change are
// warmed for the blocks that will run them (warm.go).
func (k *PoolKeeper) Follow(stop <-chan struct{}) {
	warmed := make(chan struct{})
	go func() {
		defer close(warmed)
		k.warm(stop)
	}()
	defer func() { <-warmed }()
	heads, cancel := k.v.chain.Subscribe(64)
	defer cancel()
	for {
		select {
		case <-stop:
			return
		case _, ok := <-heads:
			if !ok {
				return
			}
			k.Reset()
		}
	}
}

// Refresh re-validates the pool against the head's state even when the
// head block is the same (its state changed, or the chain was rewound to
// it).
func (k *PoolKeeper) Refresh() {
	k.mu.Lock()
	k.at = types.Hash{}
	k.mu.Unlock()
	k.Reset()
}

// Restore puts the pool's saved transactions back, validated against the
// head's state.
func (k *PoolKeeper) Restore(saved txpool.Saved) {
	k.mu.Lock()
	defer k.mu.Unlock()
	head := k.v.chain.Head().Hash()
	ph, err := k.v.PoolHead()
	if err != nil {
		k.log.Error("pool restore", "err", err)
		return
	}
	if k.pool.Restore(saved, ph) != nil {
		return // the pool logged it and kept the saved transactions
	}
	k.at = head
}
