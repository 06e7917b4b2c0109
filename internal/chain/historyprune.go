package chain

import (
	"encoding/binary"
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

// keyTxIndexPruned is where the last pass's deletions start, stored with
// its swap and deleted with its deletions: present, the deletions of the
// blocks from there to the index start may not be written (the process
// stopped between the two writes, or the second failed), and the next
// pass writes them first (finishHistoryPrune).
var keyTxIndexPruned = []byte("m:txindex-pruned")

// PruneHistory drops the history index of blocks older than the last keep
// (0: keep all): their transaction lookups, running totals, transfer
// records and the address-list chunks that hold only them. It does at
// most budget blocks per call; callers loop until Blocks is 0.
//
// The chain's writer lock is held only for the swap (swapHistory): to
// check that the index still starts where the pass read it and to take
// its place in the order of writes for the new start and the moved list
// headers, a few keys written once it is let go. The senders are
// recovered, the lists read and the deletions written with no lock of
// the chain held: they are keys of blocks behind the new start and whole
// list chunks, which no commit writes again (a commit extends only a
// list's last chunk and header), so block commits never wait behind the
// prune's deletions. Deletions the last pass did not write (a crash or a
// write error after its swap) are written by the next one first; list
// chunks a failed swap write left below their list's first (a commit had
// stored the headers it staged) are deleted by the next pass meeting the
// list (orphanChunks).
func (c *Chain) PruneHistory(keep uint64, budget int) (HistoryPruneStats, error) {
	c.histMu.Lock()
	defer c.histMu.Unlock()
	head := c.Head().Number()
	from, err := c.db.TxIndexFrom()
	if err == nil {
		err = c.finishHistoryPrune(from)
	}
	if err != nil || keep == 0 || head+1 <= keep {
		return HistoryPruneStats{From: from}, err
	}
	todo, lists, err := c.historyBlocks(from, head+1-keep, budget)
	if err != nil || len(todo) == 0 {
		return HistoryPruneStats{From: from}, err
	}
	newFrom := todo[len(todo)-1].Number() + 1
	var del store.Batch
	historyDeletes(todo, &del)
	// The whole chunks that hold only pruned blocks; the last, still
	// growing, stays.
	var moves []listMove
	r := &indexBatch{db: c.db}
	for _, a := range lists {
		l, err := r.addrList(a)
		if err != nil {
			return HistoryPruneStats{From: from}, err
		}
		if err := r.orphanChunks(a, l.first, &del); err != nil {
			return HistoryPruneStats{From: from}, err
		}
		first := l.first
		for ; (first+1)*addrChunk < l.count; first++ {
			es, err := r.chunk(a, first)
			if err != nil {
				return HistoryPruneStats{From: from}, err
			}
			if len(es) == addrChunk && es[addrChunk-1].block >= newFrom {
				break
			}
			del.Delete(key(prefixAddrTx, a[:], numKey(first)))
		}
		if first != l.first {
			moves = append(moves, listMove{a, l.first, first})
		}
	}
	pause, ok, err := c.swapHistory(from, todo, newFrom, moves)
	if !ok || err != nil {
		return HistoryPruneStats{From: from}, err
	}
	del.Delete(keyTxIndexPruned)
	if err := c.db.kv.Write(&del); err != nil {
		return HistoryPruneStats{From: newFrom}, fmt.Errorf("history prune: %w", err)
	}
	return HistoryPruneStats{Blocks: len(todo), From: newFrom, Pause: pause}, nil
}

// historyBlocks reads the blocks from from up to cutoff (at most budget)
// and the addresses whose lists they touch.
func (c *Chain) historyBlocks(from, cutoff uint64, budget int) ([]*types.Block, []types.Address, error) {
	var todo []*types.Block
	var lists []types.Address
	seen := map[types.Address]bool{}
	for n := from; n < cutoff && len(todo) < budget; n++ {
		b, err := c.BlockByNumber(n)
		if err != nil {
			return nil, nil, fmt.Errorf("history prune: block %d: %w", n, err)
		}
		if n > 0 && len(b.Transactions()) > 0 {
			transfers, err := (&indexBatch{db: c.db}).transfers(b, c.reexecTransfers)
			if err != nil {
				return nil, nil, err
			}
			err = historyTouches(b, c.Config.blockSigner(b), transfers, func(_ int, a types.Address) error {
				if !seen[a] {
					seen[a] = true
					lists = append(lists, a)
				}
				return nil
			})
			if err != nil {
				return nil, nil, err
			}
		}
		todo = append(todo, b)
	}
	return todo, lists, nil
}

// historyDeletes adds to del the blocks' own index keys: their
// transactions' lookups, the running totals before them and their
// transfer records.
func historyDeletes(todo []*types.Block, del *store.Batch) {
	for _, b := range todo {
		for _, tx := range b.Transactions() {
			th := tx.Hash()
			del.Delete(key(prefixTxLookup, th[:]))
		}
		if n := b.Number(); n > 0 {
			del.Delete(key(prefixTxCumul, numKey(n-1))) // the block's own total stays: the next one counts from it
		}
		h := b.Hash()
		del.Delete(key(prefixTransfers, h[:]))
	}
}

// finishHistoryPrune writes the deletions of the last pass if they may not
// have been (keyTxIndexPruned is stored): those of its blocks, from the
// recorded start to the index's start now, and the list chunks the swap
// left below their lists' first. Deleting keys already gone is harmless.
func (c *Chain) finishHistoryPrune(from uint64) error {
	v, err := c.db.kv.Get(keyTxIndexPruned)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(v) != 8 {
		return fmt.Errorf("history prune: record of %d bytes", len(v))
	}
	var del store.Batch
	if was := binary.BigEndian.Uint64(v); was < from {
		todo, lists, err := c.historyBlocks(was, from, int(from-was))
		if err != nil {
			return err
		}
		historyDeletes(todo, &del)
		r := &indexBatch{db: c.db}
		for _, a := range lists {
			l, err := r.addrList(a)
			if err != nil {
				return err
			}
			if err := r.orphanChunks(a, l.first, &del); err != nil {
				return err
			}
		}
	}
	del.Delete(keyTxIndexPruned)
	if err := c.db.kv.Write(&del); err != nil {
		return fmt.Errorf("history prune: finishing the last pass: %w", err)
	}
	return nil
}

// orphanChunks adds to del the chunks of a's list stored below its first,
// which no reader reaches. A pass leaves them when its list deletions are
// not written after its swap: the process stopped between the two writes,
// or the swap's own write failed after a commit had read the moved list
// headers it staged (stagedIndex) and stored them with its block, so the
// headers moved while the index start and the chunks stayed. The start
// staying, the next pass prunes the same blocks, meets the same lists and
// finishes the deletion here. The orphans lie right below first, so the
// walk stops at the first chunk not stored; a list with none costs one
// read.
func (w *indexBatch) orphanChunks(a types.Address, first uint64, del *store.Batch) error {
	for c := first; c > 0; c-- {
		k := key(prefixAddrTx, a[:], numKey(c-1))
		if _, err := w.db.kv.Get(k); errors.Is(err, store.ErrNotFound) {
			return nil
		} else if err != nil {
			return err
		}
		del.Delete(k)
	}
	return nil
}

// listMove is a pruned address list's first chunk, before and after.
type listMove struct {
	a         types.Address
	was, next uint64
}

// swapHistory moves the history index's start to newFrom and the lists'
// first chunks as moves say, and stores that before anything it leaves
// behind is deleted, so a crash or a shutdown never finds a start or a
// list whose keys are gone (the transfer records could not be made again
// once the blocks' states are pruned). ok is false when the chain changed
// the index meanwhile (a reorganisation this deep): nothing is written.
//
// The writer lock is held to check and to take the DB's write order
// (flushMu) before any later commit's write; the few keys are written
// after it is let go, readable meanwhile (stagedIndex), so a commit runs
// meanwhile and its own write waits for this small one at most.
func (c *Chain) swapHistory(from uint64, todo []*types.Block, newFrom uint64, moves []listMove) (time.Duration, bool, error) {
	c.wmu.Lock()
	start := time.Now()
	vals, ok, err := c.historySwap(from, todo, newFrom, moves)
	if !ok || err != nil {
		c.wmu.Unlock()
		return 0, false, err
	}
	db := c.db
	db.flushMu.Lock()
	defer db.flushMu.Unlock()
	db.mu.Lock()
	db.idx = vals
	db.mu.Unlock()
	pause := time.Since(start)
	c.wmu.Unlock()
	var b store.Batch
	for k, v := range vals {
		b.Put([]byte(k), v)
	}
	err = db.kv.Write(&b)
	db.mu.Lock()
	db.idx = nil
	db.mu.Unlock()
	return pause, err == nil, err
}

// historySwap checks, with the writer lock held, that the index still
// starts at from and the blocks are canonical, and returns the values
// that move it to newFrom: the start and the moved lists' headers, their
// counts as the commits since left them.
func (c *Chain) historySwap(from uint64, todo []*types.Block, newFrom uint64, moves []listMove) (map[string][]byte, bool, error) {
	if now, err := c.db.TxIndexFrom(); err != nil || now != from {
		return nil, false, err
	}
	for _, b := range todo {
		if h, ok := c.db.CanonicalHash(b.Number()); !ok || h != b.Hash() {
			return nil, false, nil
		}
	}
	r := &indexBatch{db: c.db}
	vals := make(map[string][]byte, len(moves)+1)
	for _, m := range moves {
		l, err := r.addrList(m.a)
		if err != nil || l.first != m.was {
			return nil, false, err
		}
		l.first = m.next
		vals[string(key(prefixAddrTxCount, m.a[:]))] = l.appendTo(nil)
	}
	vals[string(keyTxIndexFrom)] = numKey(newFrom)
	vals[string(keyTxIndexPruned)] = numKey(from) // until the deletions are written
	return vals, true, nil
}

// stagedIndex returns a value swapHistory is writing.
func (db *DB) stagedIndex(k []byte) ([]byte, bool) {
	db.mu.RLock()
	defer db.mu.RUnlock()
	v, ok := db.idx[string(k)]
	return v, ok
}
