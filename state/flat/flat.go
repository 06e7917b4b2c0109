// Package flat keeps a flat copy of the world state beside its tries:
// every account under keccak256(address), every slot under
// keccak256(address) + keccak256(slot), so reading one is one key-value
// lookup instead of a walk down the trie (go-ethereum's snapshot is the
// model; this is a different design).
//
// The persisted copy holds one state, the newest (normally the head's). It
// moves in the same atomic batch as the block that changes it, so after a
// crash it always matches the state the store's head ends on. Each move is
// journalled with the values it replaced (a reverse diff), for the last
// Keep moves: reads of those recent states apply the journal over the
// persisted copy in memory, and a rewind or reorganisation undoes moves
// from it. A block stored off the canonical chain keeps its forward diff,
// so a reorganisation can move the copy onto its branch. A state the
// journal does not reach is not covered: readers fall back to the trie,
// and a move onto it rebuilds the copy from the trie (Tx.Apply).
package flat

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
)

// Store is what the copy reads from: the chain's key-value store.
type Store interface {
	Get(key []byte) ([]byte, error)
	Iterate(prefix []byte, fn func(key, value []byte) bool) error
}

// Key layout, below the chain store's "F" prefix.
var (
	prefixAccount = []byte("Fa") // Fa + addrHash -> RLP account
	prefixStorage = []byte("Fs") // Fs + addrHash + slotHash -> RLP value
	prefixJournal = []byte("Fj") // Fj + seq(8) -> record of one move (forward and reverse diff)
	prefixHead    = []byte("Fh") // Fh + seq(8) -> the first 104 bytes of that record (from, to, number, hash)
	prefixSide    = []byte("Ff") // Ff + number(8) + block hash -> forward diff of a non-canonical block
	keyMeta       = []byte("Fm") // root(32) + seq of the newest journal record(8)
)

// DefaultKeep is how many moves the journal keeps when the caller does not
// say: the recent states readable from the copy, and how far a rewind can
// go without a rebuild.
const DefaultKeep = 128

// ErrCorrupt is returned for stored records that do not decode.
var ErrCorrupt = errors.New("flat state: corrupt record")

// layer is the reverse diff of one journalled move, held in memory for
// reads of the state before it.
type layer struct {
	seq      uint64
	from, to types.Hash
	num      uint64
	hash     types.Hash // the block that made the move (num, hash); zero for a state committed outside a block
	accounts map[types.Hash][]byte
	slots    map[[64]byte][]byte

	// raw is the stored record of a layer read at Open, until load
	// decodes it into accounts and slots; lazy says load reads it first.
	raw  []byte
	lazy bool
	once sync.Once
	err  error
}

// load decodes a layer read at Open on its first use, reading its record
// from kv first when only its head was read; it is safe for concurrent
// use (readers share the Layer's read lock).
func (lay *layer) load(kv Store) error {
	lay.once.Do(func() {
		if lay.lazy {
			raw, err := get(kv, journalKey(lay.seq))
			if err == nil && raw == nil {
				err = fmt.Errorf("%w: journal record %d missing", ErrCorrupt, lay.seq)
			}
			if err != nil {
				lay.err = err
				return
			}
			lay.raw = raw
		}
		if lay.raw == nil {
			return
		}
		r, err := decodeRecord(lay.raw)
		if err != nil {
			lay.err = err
			return
		}
		rev := r.layer()
		lay.accounts, lay.slots, lay.raw = rev.accounts, rev.slots, nil
	})
	return lay.err
}

// Layer is the flat copy of one store. Reads are safe for concurrent use;
// moves are made through one Tx at a time (the chain store's lock).
type Layer struct {
	kv   Store
	keep uint64

	mu     sync.RWMutex
	valid  bool       // the persisted copy is the state at root
	root   types.Hash // valid only with valid
	top    uint64     // seq of the newest journal record (0: none yet)
	layers []*layer   // journal, oldest first; layers[len-1].seq == top
	sides  map[string]uint64
	pend   *staged // the writes of the move being committed; nil: none (Tx.Commit)
}

// Open loads the copy's metadata and journal. fresh says the store holds
// no state yet: the copy then starts as the empty state. A store that
// holds state but no copy (made before the copy existed) opens invalid:
// Rebuild makes it.
func Open(kv Store, keep uint64, fresh bool) (*Layer, error) {
	if keep == 0 {
		keep = DefaultKeep
	}
	l := &Layer{kv: kv, keep: keep, sides: map[string]uint64{}}
	meta, err := kv.Get(keyMeta)
	switch {
	case errors.Is(err, store.ErrNotFound):
		if fresh {
			l.valid, l.root = true, state.EmptyRoot
		}
		return l, nil
	case err != nil:
		return nil, err
	case len(meta) != 40:
		return nil, fmt.Errorf("%w: metadata of %d bytes", ErrCorrupt, len(meta))
	}
	l.valid, l.root, l.top = true, types.Hash(meta[:32]), binary.BigEndian.Uint64(meta[32:])
	if err := l.loadJournal(); err != nil {
		return nil, err
	}
	err = kv.Iterate(prefixSide, func(k, _ []byte) bool {
		if len(k) == len(prefixSide)+8+32 {
			l.sides[string(k)] = binary.BigEndian.Uint64(k[len(prefixSide):])
		}
		return true
	})
	return l, err
}

// loadJournal reads the journal's layers: only the heads of the records
// (Fh, 104 bytes each), so a start reads neither the diffs, which grow
// with the blocks' size, nor decodes them; a layer's diff is read when a
// read of an older state or a rewind first needs it (layer.load). A
// journal with records older than the heads (written before there were
// heads) is read whole once, as before.
func (l *Layer) loadJournal() error {
	var derr error
	add := func(k, head []byte, raw []byte) bool {
		if len(head) < 104 {
			derr = fmt.Errorf("%w: journal record head of %d bytes", ErrCorrupt, len(head))
			return false
		}
		lay := &layer{from: types.Hash(head[:32]), to: types.Hash(head[32:64]), num: binary.BigEndian.Uint64(head[64:72]),
			hash: types.Hash(head[72:104]), raw: raw, lazy: raw == nil}
		lay.seq = binary.BigEndian.Uint64(k[2:])
		if lay.seq <= l.top { // above top: undone moves a crash cannot leave, but never trust them
			l.layers = append(l.layers, lay)
		}
		return true
	}
	err := l.kv.Iterate(prefixHead, func(k, v []byte) bool { return add(k, v, nil) })
	if err = errors.Join(err, derr); err != nil {
		return err
	}
	older := l.top
	if len(l.layers) > 0 {
		older = l.layers[0].seq - 1
	}
	if older == 0 {
		return nil
	}
	if v, err := get(l.kv, journalKey(older)); err != nil || v == nil {
		return err
	}
	l.layers = l.layers[:0]
	err = l.kv.Iterate(prefixJournal, func(k, v []byte) bool { return add(k, v, bytes.Clone(v)) })
	return errors.Join(err, derr)
}

// Root returns the state root the persisted copy holds, and false when it
// holds none (it must be rebuilt).
func (l *Layer) Root() (types.Hash, bool) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	return l.root, l.valid
}

// Covers reports whether reads of the state at root are served from the
// copy.
func (l *Layer) Covers(root types.Hash) bool {
	l.mu.RLock()
	defer l.mu.RUnlock()
	_, ok := l.resolve(root)
	return ok
}

// resolve finds the journal layers to look through for the state at
// root: from the index it returns on. Called with l.mu held.
func (l *Layer) resolve(root types.Hash) (int, bool) {
	if !l.valid {
		return 0, false
	}
	root = norm(root)
	if root == l.root {
		return len(l.layers), true
	}
	for i := len(l.layers) - 1; i >= 0; i-- {
		if l.layers[i].from == root {
			return i, true
		}
	}
	return 0, false
}

// Account returns the RLP account under addrHash in the state at root (nil
// when there is none); ok is false when the copy does not cover root.
func (l *Layer) Account(root, addrHash types.Hash) ([]byte, bool, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	from, ok := l.resolve(root)
	if !ok {
		return nil, false, nil
	}
	for _, lay := range l.layers[from:] {
		if err := lay.load(l.kv); err != nil {
			return nil, false, err
		}
		if v, ok := lay.accounts[addrHash]; ok {
			return v, true, nil
		}
	}
	v, err := l.base(accountKey(addrHash))
	return v, err == nil, err
}

// Storage returns the RLP value of a slot in the state at root, as
// Account does.
func (l *Layer) Storage(root, addrHash, slotHash types.Hash) ([]byte, bool, error) {
	l.mu.RLock()
	defer l.mu.RUnlock()
	from, ok := l.resolve(root)
	if !ok {
		return nil, false, nil
	}
	var k [64]byte
	copy(k[:], addrHash[:])
	copy(k[32:], slotHash[:])
	for _, lay := range l.layers[from:] {
		if err := lay.load(l.kv); err != nil {
			return nil, false, err
		}
		if v, ok := lay.slots[k]; ok {
			return v, true, nil
		}
	}
	v, err := l.base(storageKey(addrHash, slotHash))
	return v, err == nil, err
}

// base reads k from the persisted copy as the newest move leaves it: while
// a move's batch is being written, its staged values stand in front of the
// store, so a read gives the same answer before and after the batch lands.
// Called with l.mu held.
func (l *Layer) base(k []byte) ([]byte, error) {
	if p := l.pend; p != nil {
		if p.del[string(k)] {
			return nil, nil
		}
		if v, ok := p.over[string(k)]; ok {
			return v, nil
		}
	}
	return get(l.kv, k)
}

// norm maps the zero root, which opens the empty state as EmptyRoot does,
// to EmptyRoot.
func norm(root types.Hash) types.Hash {
	if root == (types.Hash{}) {
		return state.EmptyRoot
	}
	return root
}

// get reads k, nil when absent.
func get(kv Store, k []byte) ([]byte, error) {
	v, err := kv.Get(k)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	return v, err
}

func accountKey(ah types.Hash) []byte {
	return append(append(make([]byte, 0, 34), prefixAccount...), ah[:]...)
}

func storageKey(ah, sh types.Hash) []byte {
	k := make([]byte, 0, 66)
	return append(append(append(k, prefixStorage...), ah[:]...), sh[:]...)
}

func headKey(seq uint64) []byte {
	return binary.BigEndian.AppendUint64(append([]byte(nil), prefixHead...), seq)
}

func journalKey(seq uint64) []byte {
	return binary.BigEndian.AppendUint64(append([]byte(nil), prefixJournal...), seq)
}

func sideKey(num uint64, hash types.Hash) []byte {
	return append(binary.BigEndian.AppendUint64(append([]byte(nil), prefixSide...), num), hash[:]...)
}

func metaValue(root types.Hash, top uint64) []byte {
	return binary.BigEndian.AppendUint64(append([]byte(nil), root[:]...), top)
}
