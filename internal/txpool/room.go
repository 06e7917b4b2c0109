package txpool

import (
	"container/heap"
	"slices"

	"github.com/chaind/chaind/internal/types"
)

// entrySize is what e counts against Config.MaxBytes: the transaction's
// encoded size and, for a blob transaction, its blobs, commitments and
// proofs, which are what make it large (up to 128 KiB a blob).
func entrySize(tx *types.Transaction, sc *types.BlobSidecar) int64 {
	n := int64(tx.Size())
	if sc != nil {
		for _, part := range [][][]byte{sc.Blobs, sc.Commitments, sc.Proofs} {
			for _, b := range part {
				n += int64(len(b))
			}
		}
	}
	return n
}

// makeRoom evicts transactions paying a lower fee cap than tx so that
// slots more transactions and size more bytes fit under GlobalSlots and
// MaxBytes, cheapest first and each sender's from its highest nonce
// down (so no sender is left with a gap). Nothing is evicted unless all
// the room can be made: a transaction that cannot be admitted must not
// cost the pool anything. tx's own sender gives up only nonces above
// tx's, so tx never ends behind a gap it made itself. Called with p.mu
// held, when the pool is full in count or in bytes; O(n log n) then.
func (p *Pool) makeRoom(tx *types.Transaction, from types.Address, slots int, size int64) bool {
	fee := tx.GasFeeCap()
	var h victimHeap
	for a, acc := range p.accounts {
		var top *entry
		for _, e := range acc.txs {
			if top == nil || e.tx.Nonce() > top.tx.Nonce() {
				top = e
			}
		}
		if top != nil && top.tx.GasFeeCap().Lt(fee) && (a != from || top.tx.Nonce() > tx.Nonce()) {
			h = append(h, &victims{acc: acc, top: top, own: a == from})
		}
	}
	heap.Init(&h)
	var out []*entry
	for (slots > 0 || size > 0) && len(h) > 0 {
		v := h[0]
		out = append(out, v.top)
		slots--
		size -= v.top.size
		if v.next(tx) {
			heap.Fix(&h, 0)
		} else {
			heap.Pop(&h)
		}
	}
	if slots > 0 || size > 0 {
		return false
	}
	for _, e := range out {
		p.remove(e)
	}
	return true
}

// victims is one sender's evictable transactions: top, then the ones
// below it in nonce order while they stay cheaper than the newcomer.
type victims struct {
	acc    *account
	top    *entry
	own    bool     // the newcomer's sender: only nonces above its own go
	nonces []uint64 // the sender's nonces, ascending; sorted on first use
	i      int      // index of top in nonces
}

// next moves v to its sender's next lower transaction; false when that
// one may not be evicted for tx (none, not cheaper, or tx's own nonce or
// below).
func (v *victims) next(tx *types.Transaction) bool {
	if v.nonces == nil {
		v.nonces = make([]uint64, 0, len(v.acc.txs))
		for n := range v.acc.txs {
			v.nonces = append(v.nonces, n)
		}
		slices.Sort(v.nonces)
		v.i = len(v.nonces) - 1
	}
	if v.i--; v.i < 0 {
		return false
	}
	e := v.acc.txs[v.nonces[v.i]]
	if !e.tx.GasFeeCap().Lt(tx.GasFeeCap()) || v.own && e.tx.Nonce() <= tx.Nonce() {
		return false
	}
	v.top = e
	return true
}

// victimHeap orders senders by the fee cap of their next victim, lowest
// first.
type victimHeap []*victims

func (h victimHeap) Len() int           { return len(h) }
func (h victimHeap) Less(i, j int) bool { return h[i].top.tx.GasFeeCap().Lt(h[j].top.tx.GasFeeCap()) }
func (h victimHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *victimHeap) Push(x any)        { *h = append(*h, x.(*victims)) }
func (h *victimHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
