package chain

import (
	"errors"

	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
	"github.com/chaind/chaind/state/flat"
	"github.com/chaind/chaind/trie"
)

// The DB keeps a flat copy of the newest state (state/flat) beside the
// tries, so account and slot reads of the head and of recent states are
// single key lookups. A state commit hands its diff over (UpdateFlat);
// the diff waits with the commit's trie nodes and moves the copy in the
// same batch as the block (or the development helper's state) that made
// it. Reads of states the copy does not cover go to the tries.

// flatDiff is one state commit's diff, staged until the next write.
type flatDiff struct {
	from, to types.Hash
	d        *state.Diff
}

// flatContext says what the next write does with the staged diffs: they
// belong to block (num, hash), stored on the canonical chain or, with
// side, off it; branch are stored blocks that become canonical before it.
type flatContext struct {
	num    uint64
	hash   types.Hash
	side   bool
	branch []*types.Block
}

var _ state.FlatDB = (*DB)(nil)

// openFlat loads the flat copy; fresh says the store holds no chain yet.
func (db *DB) openFlat(fresh bool) error {
	l, err := flat.Open(db.kv, flat.DefaultKeep, fresh)
	if err != nil {
		return err
	}
	db.flat = l
	return nil
}

// ensureFlat rebuilds the flat copy from the trie of root when the store
// has none (a data directory made before the copy existed, or one whose
// copy a failed rebuild left out).
func (db *DB) ensureFlat(root types.Hash) error {
	if db.flat == nil {
		return nil
	}
	if _, ok := db.flat.Root(); ok {
		return nil
	}
	db.mu.Lock()
	defer db.mu.Unlock()
	tx := db.flat.Begin(&db.pending, lockedNodes{db})
	if err := tx.Rebuild(root); err != nil {
		db.pending.Reset()
		return err
	}
	err := tx.Commit(func() error { return db.kv.Write(&db.pending) })
	db.pending.Reset()
	return err
}

// FlatAccount implements state.FlatDB.
func (db *DB) FlatAccount(root, addrHash types.Hash) ([]byte, bool, error) {
	if db.flat == nil {
		return nil, false, nil
	}
	return db.flat.Account(root, addrHash)
}

// FlatStorage implements state.FlatDB.
func (db *DB) FlatStorage(root, addrHash, slotHash types.Hash) ([]byte, bool, error) {
	if db.flat == nil {
		return nil, false, nil
	}
	return db.flat.Storage(root, addrHash, slotHash)
}

// UpdateFlat implements state.FlatDB: the diff waits for the next write.
func (db *DB) UpdateFlat(from, to types.Hash, d *state.Diff) error {
	if db.flat == nil {
		return nil
	}
	db.mu.Lock()
	db.flatStaged = append(db.flatStaged, flatDiff{from, to, d})
	db.mu.Unlock()
	return nil
}

// FlatRoot is the state root the persisted flat copy holds, false when
// there is none.
func (db *DB) FlatRoot() (types.Hash, bool) {
	if db.flat == nil {
		return types.Hash{}, false
	}
	return db.flat.Root()
}

// ComputeFlatRoot recomputes the state root from the persisted flat copy
// alone (it reads all of it).
func (db *DB) ComputeFlatRoot() (types.Hash, error) { return flat.ComputeRoot(db.kv) }

// setFlatContext names the block the next write's staged diffs belong to.
func (db *DB) setFlatContext(c flatContext) {
	db.mu.Lock()
	db.flatCtx = c
	db.mu.Unlock()
}

// writePending writes the pending batch, moving the flat copy by what is
// staged in the same batch. Called with db.flushMu and db.mu held (mu is
// let go across the store write: writeOut); the batch, the staged diffs
// and the context are used up either way.
func (db *DB) writePending() error {
	db.waitDeletes()
	staged, c := db.flatStaged, db.flatCtx
	db.flatStaged, db.flatCtx = nil, flatContext{}
	db.indexAccounts(staged)
	if db.flat == nil || (len(staged) == 0 && len(c.branch) == 0) {
		return db.writeOut()
	}
	tx := db.flat.Begin(&db.pending, lockedNodes{db})
	for _, b := range c.branch {
		// A branch block without its diff leaves the copy behind; the
		// tip's Apply below rebuilds it.
		if ok, err := tx.PushSide(b.Number(), b.Hash()); err != nil {
			return err
		} else if !ok {
			break
		}
	}
	for _, f := range staged {
		if c.side {
			tx.StoreSide(f.from, f.to, c.num, c.hash, f.d)
			continue
		}
		if err := tx.Apply(f.from, f.to, c.num, c.hash, f.d); err != nil {
			return err
		}
	}
	return tx.Commit(db.writeOut)
}

// writeOut writes the pending batch to the store. Called with db.flushMu
// and db.mu held; mu is let go for the write itself (and its fsync): the
// batch is set aside and its nodes move to db.writing, where Node finds
// them until the write is over, and anything staged meanwhile goes to a
// fresh batch that the next Flush writes after this one.
func (db *DB) writeOut() error {
	b := db.pending
	db.pending, db.spare = db.spare, store.Batch{}
	db.writing, db.overlay = db.overlay, db.spareOv
	if db.overlay == nil {
		db.overlay = map[[32]byte][]byte{}
	}
	db.spareOv = nil
	db.mu.Unlock()
	err := db.kv.Write(&b)
	db.mu.Lock()
	b.Reset()
	db.spare = b
	old := db.written
	if err == nil {
		// Stored: kept for the pruner's walk of this block (DB.written);
		// the write before's map is the next overlay.
		db.written, db.writing = db.writing, nil
	} else {
		old, db.writing = db.writing, nil
	}
	clear(old)
	db.spareOv = old
	return err
}

// lockedNodes reads trie nodes for a flat rebuild while db.mu is held.
type lockedNodes struct{ db *DB }

func (r lockedNodes) Node(hash [32]byte) ([]byte, error) {
	if blob, ok := r.db.overlay[hash]; ok {
		return blob, nil
	}
	if blob, ok := r.db.writing[hash]; ok {
		return blob, nil
	}
	if blob, ok := r.db.written[hash]; ok {
		return blob, nil
	}
	blob, err := r.db.kv.Get(key(prefixNode, hash[:]))
	if errors.Is(err, store.ErrNotFound) {
		return nil, trie.MissingNode(hash)
	}
	return blob, err
}
