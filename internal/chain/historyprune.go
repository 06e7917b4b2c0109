package chain

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
)

// migrateHistory drops the first version's history index (one ordinal
// key and one list key per transaction and address) from a data
// directory that holds it: the index then starts again with the next
// block, as for a data directory older than the index, and the old
// blocks' transactions are answered as unknown ones. A store without it
// is only marked.
func (db *DB) migrateHistory() error {
	if _, err := db.kv.Get(keyTxIndexVersion); err == nil {
		return nil
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	var b store.Batch
	legacy := false
	for _, p := range [][]byte{prefixTxOrdinal, prefixAddrTxV1, prefixAddrTxCountV1, prefixTxCumul} {
		err := db.kv.IterateKeys(p, func(k []byte) bool {
			if !slices.Equal(p, prefixTxCumul) {
				legacy = true
			}
			b.Delete(append([]byte(nil), k...))
			return true
		})
		if err != nil {
			return err
		}
	}
	if !legacy {
		b.Reset() // running totals of the current version: kept
	} else if hh, ok := db.HeadHash(); ok {
		if n, ok := db.BlockNumber(hh); ok {
			b.Put(keyTxIndexFrom, numKey(n+1))
		}
	}
	b.Put(keyTxIndexVersion, []byte{2})
	return db.kv.Write(&b)
}

// HistoryPruneStats reports what one PruneHistory call did.
type HistoryPruneStats struct {
	Blocks int           // blocks whose history went
	From   uint64        // the first block the index covers afterwards
	Pause  time.Duration // how long the chain was held
}

// PruneHistory drops the history index of blocks older than the last keep
// (0: keep all): their transaction lookups, running totals, transfer
// records and the address-list chunks that hold only them. It does at
// most budget blocks per call, so the chain is held for a bounded time:
// the senders are recovered before the chain is locked, and under the
// lock there are only lookups and deletions. Callers loop until Blocks
// is 0.
func (c *Chain) PruneHistory(keep uint64, budget int) (HistoryPruneStats, error) {
	head := c.Head().Number()
	from, err := c.db.TxIndexFrom()
	if err != nil || keep == 0 || head+1 <= keep {
		return HistoryPruneStats{From: from}, err
	}
	cutoff := head + 1 - keep
	type pruned struct {
		b     *types.Block
		addrs []types.Address
	}
	var todo []pruned
	for n := from; n < cutoff && len(todo) < budget; n++ {
		b, err := c.BlockByNumber(n)
		if err != nil {
			return HistoryPruneStats{From: from}, fmt.Errorf("history prune: block %d: %w", n, err)
		}
		p := pruned{b: b}
		if n > 0 && len(b.Transactions()) > 0 {
			transfers, err := (&indexBatch{db: c.db}).transfers(b, c.reexecTransfers)
			if err != nil {
				return HistoryPruneStats{From: from}, err
			}
			err = historyTouches(b, c.Config.blockSigner(b), transfers, func(_ int, a types.Address) error {
				p.addrs = append(p.addrs, a)
				return nil
			})
			if err != nil {
				return HistoryPruneStats{From: from}, err
			}
		}
		todo = append(todo, p)
	}
	if len(todo) == 0 {
		return HistoryPruneStats{From: from}, nil
	}
	c.wmu.Lock()
	start := time.Now()
	defer c.wmu.Unlock()
	// A canonical change meanwhile (blocks this deep only move in a
	// reorganisation past the kept history): try again next time.
	if now, err := c.db.TxIndexFrom(); err != nil || now != from {
		return HistoryPruneStats{From: now}, err
	}
	w := &indexBatch{db: c.db, view: map[string][]byte{}}
	var lists []types.Address
	seen := map[types.Address]bool{}
	for _, p := range todo {
		b := p.b
		if h, ok := c.db.CanonicalHash(b.Number()); !ok || h != b.Hash() {
			return HistoryPruneStats{From: from}, nil
		}
		for _, tx := range b.Transactions() {
			th := tx.Hash()
			w.delKey(prefixTxLookup, th[:])
		}
		if n := b.Number(); n > 0 {
			w.del(key(prefixTxCumul, numKey(n-1))) // the block's own total stays: the next one counts from it
		}
		h := b.Hash()
		w.delKey(prefixTransfers, h[:])
		for _, a := range p.addrs {
			if !seen[a] {
				seen[a] = true
				lists = append(lists, a)
			}
		}
	}
	newFrom := todo[len(todo)-1].b.Number() + 1
	for _, a := range lists {
		l, err := w.addrList(a)
		if err != nil {
			return HistoryPruneStats{From: from}, err
		}
		first := l.first
		// Only whole chunks go; the last, still growing, stays.
		for (l.first+1)*addrChunk < l.count {
			es, err := w.chunk(a, l.first)
			if err != nil {
				return HistoryPruneStats{From: from}, err
			}
			if len(es) == addrChunk && es[addrChunk-1].block >= newFrom {
				break
			}
			w.delNum(prefixAddrTx, a[:], l.first)
			l.first++
		}
		if l.first != first {
			w.putAddrList(a, l)
		}
	}
	w.put(keyTxIndexFrom, numKey(newFrom))
	if err := c.db.Flush(); err != nil {
		c.db.Discard()
		return HistoryPruneStats{From: from}, err
	}
	return HistoryPruneStats{Blocks: len(todo), From: newFrom, Pause: time.Since(start)}, nil
}
