package chain

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
)

// Every change of the canonical chain goes through switchCanonical: a new
// block on the head, a proof-of-work reorganisation, a development
// chain's rewind or reset. Each is "unwind canonical blocks base+1 .. the
// old head, then make the new blocks canonical", and every index that
// describes the canonical chain — number to hash, transaction lookups,
// blooms, certificates, the history index — is undone and redone in the
// same atomic batch as the head, so after a crash the indexes always
// describe the chain the head ends.

// canonSwitch describes one change of the canonical chain.
type canonSwitch struct {
	// base is the last block the old and the new chain share; nil only
	// for the genesis block, which has none.
	base    *types.Block
	oldHead uint64 // the old head's number (base's when nothing is dropped)
	// branch are stored blocks that become canonical after base, in order.
	branch []*types.Block
	// tip, when set, is a new block that ends the new chain: it is stored
	// here with its receipts and transfers.
	tip          *types.Block
	tipReceipts  types.Receipts
	tipTransfers [][]types.Address
	// forget deletes the dropped blocks (a development rewind: as if they
	// were never made) instead of keeping them as side blocks.
	forget bool
	// signer, when set, keeps the history index; it needs each block's
	// senders. A store without it (a bare DB in tests) has no history
	// index.
	signer func(*types.Block) types.Signer
	// transfersOf gives the transfers of a stored block that has no
	// record of them (one stored before the record existed).
	transfersOf func(*types.Block) ([][]types.Address, error)
}

// switchCanonical applies s and writes it, with whatever else is pending
// (the tip's state), in one batch. On an error nothing is written and the
// caller discards the pending batch.
func (db *DB) switchCanonical(s *canonSwitch) error {
	w := &indexBatch{db: db}
	if len(s.branch) > 0 || (s.base != nil && s.oldHead > s.base.Number()) {
		// Several blocks' entries meet in one batch: reads must see
		// what this batch already staged.
		w.view = map[string][]byte{}
	}
	newHead := s.tip
	if len(s.branch) > 0 && newHead == nil {
		newHead = s.branch[len(s.branch)-1]
	}
	if newHead == nil {
		newHead = s.base
	}
	if s.base != nil && s.oldHead > s.base.Number() {
		if err := w.unwind(s, newHead.Number()); err != nil {
			return err
		}
	}
	for _, b := range s.branch {
		var transfers [][]types.Address
		if s.signer != nil {
			var err error
			if transfers, err = w.transfers(b, s.transfersOf); err != nil {
				return err
			}
		}
		if err := w.indexBlock(b, s.signer, transfers); err != nil {
			return err
		}
	}
	if b := s.tip; b != nil {
		if err := w.indexBlock(b, s.signer, s.tipTransfers); err != nil {
			return err
		}
		h := b.Hash()
		w.putKey(prefixBlock, h[:], b.EncodeRLP())
		w.putKey(prefixReceipts, h[:], encodeReceipts(s.tipReceipts))
		w.putKey(prefixNumber, h[:], numKey(b.Number()))
		w.putKey(prefixTransfers, h[:], encodeTransfers(s.tipTransfers))
		if b.Number() == 0 {
			w.put(keyGenesis, h[:])
		}
	}
	h := newHead.Hash()
	w.put(keyHead, h[:])
	fc := flatContext{branch: s.branch}
	if s.tip != nil {
		fc.num, fc.hash = s.tip.Number(), s.tip.Hash()
	}
	db.setFlatContext(fc)
	return db.Flush()
}

// unwind stages the removal of canonical blocks base+1 .. s.oldHead from
// every index; newHead is the number the new chain ends at.
func (w *indexBatch) unwind(s *canonSwitch, newHead uint64) error {
	base, old := s.base.Number(), s.oldHead
	dropped := make([]*types.Block, 0, old-base)
	for n := base + 1; n <= old; n++ {
		hv, err := w.get(key(prefixCanonical, numKey(n)))
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		b, err := w.db.Block(types.Hash(hv))
		if err != nil {
			return fmt.Errorf("canonical block %d: %w", n, err)
		}
		dropped = append(dropped, b)
	}
	if s.signer != nil {
		if err := w.unwindHistory(base, old, dropped, s.signer); err != nil {
			return err
		}
	}
	for _, b := range dropped {
		h, n := b.Hash(), numKey(b.Number())
		for _, tx := range b.Transactions() {
			th := tx.Hash()
			w.delKey(prefixTxLookup, th[:])
		}
		w.del(key(prefixCanonical, n))
		w.del(key(prefixCert, n))
		w.del(key(prefixTxCumul, n))
		w.del(key(prefixBlockAddrs, n))
		if s.forget {
			w.delKey(prefixBlock, h[:])
			w.delKey(prefixReceipts, h[:])
			w.delKey(prefixNumber, h[:])
			w.delKey(prefixTransfers, h[:])
		}
	}
	if err := w.unpackBlooms(base+1, max(old, newHead)); err != nil {
		return err
	}
	for n := newHead + 1; n <= old; n++ {
		w.del(key(prefixBloom, numKey(n)))
	}
	return nil
}

// indexBlock stages the indexes of canonical block b: its number, its
// transactions' lookups, its bloom and, with a signer, its history
// entries.
func (w *indexBatch) indexBlock(b *types.Block, signer func(*types.Block) types.Signer, transfers [][]types.Address) error {
	h := b.Hash()
	w.putKey(prefixCanonical, numKey(b.Number()), h[:])
	var loc [32 + 4]byte // block hash + index
	copy(loc[:], h[:])
	for i, tx := range b.Transactions() {
		th := tx.Hash()
		binary.BigEndian.PutUint32(loc[32:], uint32(i))
		w.putKey(prefixTxLookup, th[:], loc[:])
	}
	bloom := b.HeaderRef().Bloom
	if err := w.putBloom(b.Number(), &bloom); err != nil {
		return err
	}
	if signer == nil || b.Number() == 0 {
		return nil
	}
	return w.indexHistory(b, signer(b), transfers)
}

// indexBatch stages index writes in the DB's pending batch. With a view,
// its reads see the writes it staged before (a switch that unwinds and
// applies several blocks reads counters it changed); without one, reads go
// to the store, as for one block on the head, where nothing it reads was
// staged.
type indexBatch struct {
	db   *DB
	view map[string][]byte // staged values; a nil value is a deletion
}

func (w *indexBatch) get(k []byte) ([]byte, error) {
	if w.view != nil {
		if v, ok := w.view[string(k)]; ok {
			if v == nil {
				return nil, store.ErrNotFound
			}
			return v, nil
		}
	}
	if v, ok := w.db.stagedIndex(k); ok {
		if v == nil {
			return nil, store.ErrNotFound
		}
		return v, nil
	}
	return w.db.kv.Get(k)
}

func (w *indexBatch) put(k, v []byte) {
	w.db.mu.Lock()
	w.db.pending.Put(k, v)
	w.db.mu.Unlock()
	if w.view != nil {
		w.view[string(k)] = append([]byte{}, v...)
	}
}

func (w *indexBatch) del(k []byte) {
	w.db.mu.Lock()
	w.db.pending.Delete(k)
	w.db.mu.Unlock()
	if w.view != nil {
		w.view[string(k)] = nil
	}
}

// putKey is put of prefix+mid, with the key assembled on the stack.
func (w *indexBatch) putKey(prefix, mid, v []byte) {
	var buf [maxKeyLen]byte
	w.put(append(append(buf[:0], prefix...), mid...), v)
}

func (w *indexBatch) delKey(prefix, mid []byte) {
	var buf [maxKeyLen]byte
	w.del(append(append(buf[:0], prefix...), mid...))
}

// putNum is put of prefix+mid+n (8 bytes, big-endian).
func (w *indexBatch) putNum(prefix, mid []byte, n uint64, v []byte) {
	var buf [maxKeyLen]byte
	w.put(binary.BigEndian.AppendUint64(append(append(buf[:0], prefix...), mid...), n), v)
}

func (w *indexBatch) delNum(prefix, mid []byte, n uint64) {
	var buf [maxKeyLen]byte
	w.del(binary.BigEndian.AppendUint64(append(append(buf[:0], prefix...), mid...), n))
}

// switchCanonical applies s to the chain's store (c.wmu held): the old
// head is the chain's, and the history index is kept. The caller sets
// c.head once it returns without an error; on an error nothing of it,
// nor anything else pending, is stored.
func (c *Chain) switchCanonical(s *canonSwitch) error {
	s.oldHead = c.head.Number()
	s.signer = c.Config.blockSigner
	s.transfersOf = c.reexecTransfers
	if err := c.db.switchCanonical(s); err != nil {
		c.db.Discard()
		return err
	}
	if len(s.branch) > 0 || (s.base != nil && s.oldHead > s.base.Number()) || s.tip == nil {
		c.reorgs.Add(1) // not a new block on the head (incremental pruning checks)
	}
	return nil
}

// reexecTransfers executes stored block b again on its parent's state
// for its transfers: a side block stored before blocks kept their
// transfers record, which becomes canonical now.
func (c *Chain) reexecTransfers(b *types.Block) ([][]types.Address, error) {
	parent, err := c.db.Block(b.ParentHash())
	if err != nil {
		return nil, fmt.Errorf("parent of block %d: %w", b.Number(), err)
	}
	st, err := state.NewWithRemote(c.stateRootOf(parent.Root()), c.db, c.remote())
	if err != nil {
		return nil, fmt.Errorf("state of block %d: %w", parent.Number(), err)
	}
	res, err := c.Rules().process(b, st, c.ancestorHashes(parent), senders{})
	if err != nil {
		return nil, fmt.Errorf("executing block %d again: %w", b.Number(), err)
	}
	return res.Transfers, nil
}
