package flat

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
	"github.com/chaind/chaind/trie"
)

// Batch is where a Tx stages its writes: the batch of the block (or state
// commit) that moves the copy, so both reach the disk together or not at
// all.
type Batch interface {
	Put(key, value []byte)
	Delete(key []byte)
}

// Tx stages moves of the copy in a batch. Its reads see what it staged.
// Nothing of it is visible to readers until Commit; one Tx at a time.
type Tx struct {
	l     *Layer
	b     Batch
	nodes trie.Reader
	over  map[string][]byte // staged values; deletions are in del
	del   map[string]bool

	valid  bool
	root   types.Hash
	top    uint64
	layers []*layer
	sides  map[string]uint64 // the Layer's, copied on first change
	sidesC bool
	moved  bool
}

// Begin starts a Tx staging into b; nodes reads the trie nodes a rebuild
// needs (those of the batch included).
func (l *Layer) Begin(b Batch, nodes trie.Reader) *Tx {
	return &Tx{
		l: l, b: b, nodes: nodes,
		over: map[string][]byte{}, del: map[string]bool{},
		valid: l.valid, root: l.root, top: l.top,
		layers: append([]*layer(nil), l.layers...), // readers keep the Layer's
		sides:  l.sides,
	}
}

func (t *Tx) get(k []byte) ([]byte, error) {
	if t.del[string(k)] {
		return nil, nil
	}
	if v, ok := t.over[string(k)]; ok {
		return v, nil
	}
	return get(t.l.kv, k)
}

func (t *Tx) put(k, v []byte) {
	t.over[string(k)] = v
	delete(t.del, string(k))
	t.b.Put(k, v)
}

func (t *Tx) delete(k []byte) {
	delete(t.over, string(k))
	t.del[string(k)] = true
	t.b.Delete(k)
}

// set puts v under k, or deletes k for a nil v.
func (t *Tx) set(k, v []byte) {
	if v == nil {
		t.delete(k)
	} else {
		t.put(k, v)
	}
}

// each calls fn for every key under prefix as the Tx sees it, in no order.
func (t *Tx) each(prefix []byte, fn func(k, v []byte)) error {
	type kv struct{ k, v []byte }
	var found []kv
	err := t.l.kv.Iterate(prefix, func(k, v []byte) bool {
		if _, staged := t.over[string(k)]; !staged && !t.del[string(k)] {
			found = append(found, kv{append([]byte(nil), k...), append([]byte(nil), v...)})
		}
		return true
	})
	if err != nil {
		return err
	}
	for k, v := range t.over {
		if bytes.HasPrefix([]byte(k), prefix) {
			found = append(found, kv{[]byte(k), v})
		}
	}
	for _, e := range found {
		fn(e.k, e.v)
	}
	return nil
}

func (t *Tx) setSide(k string, num uint64, keep bool) {
	if !t.sidesC {
		c := make(map[string]uint64, len(t.sides)+1)
		for k, v := range t.sides {
			c[k] = v
		}
		t.sides, t.sidesC = c, true
	}
	if keep {
		t.sides[k] = num
	} else {
		delete(t.sides, k)
	}
}

// Apply moves the copy by one commit's diff, from the state at from to the
// state at to, made by block (num, hash) (zero hash: a commit outside a
// block). A copy at another state is first moved back to from along the
// journal; one the journal cannot bring there is rebuilt from from's trie.
func (t *Tx) Apply(from, to types.Hash, num uint64, hash types.Hash, d *state.Diff) error {
	from, to = norm(from), norm(to)
	if !t.valid || t.root != from {
		ok, err := t.rewindTo(from)
		if err != nil {
			return err
		}
		if !ok {
			err := t.Rebuild(from)
			if errors.Is(err, trie.ErrMissingNode) {
				// The state is not all stored (pruned, or a partial
				// one): the copy covers nothing until a later rebuild.
				t.invalidate()
				return nil
			}
			if err != nil {
				return err
			}
		}
	}
	if from == to {
		return nil // the same state: the diff rewrites what is there
	}
	return t.push(&record{from: from, to: to, num: num, hash: hash, fwd: d})
}

// invalidate drops the copy: readers go to the tries, and the next Apply
// (or the next open) rebuilds it.
func (t *Tx) invalidate() {
	t.valid, t.layers, t.moved = false, nil, true
	t.delete(keyMeta)
}

// push makes the move r (the copy is at r.from) and journals it.
func (t *Tx) push(r *record) error {
	if r.from == state.EmptyRoot && len(t.layers) == 0 {
		return t.pushGenesis(r)
	}
	rev := newLayer()
	for ah := range r.fwd.Wiped {
		// A new account is wiped too (its address may have held one):
		// the diff usually knows there was none, and then nothing is read.
		enc, known := r.fwd.PrevAccounts[ah]
		if err := t.wipe(ah, enc, known, rev); err != nil {
			return err
		}
	}
	// What a key held before the move is the diff's when its maker knew
	// it (the copy is at r.from, the state the diff starts from), else
	// read from the copy; a wiped account's slots were recorded above.
	for ah, v := range r.fwd.Accounts {
		k := accountKey(ah)
		if _, seen := rev.accounts[ah]; !seen {
			old, known := r.fwd.PrevAccounts[ah]
			if !known {
				var err error
				if old, err = t.get(k); err != nil {
					return err
				}
			}
			rev.accounts[ah] = old
		}
		t.set(k, v)
	}
	for ah, m := range r.fwd.Storage {
		var sk [64]byte
		copy(sk[:], ah[:])
		prev := r.fwd.PrevStorage[ah]
		for sh, v := range m {
			copy(sk[32:], sh[:])
			k := storageKey(ah, sh)
			if _, seen := rev.slots[sk]; !seen {
				old, known := prev[sh]
				if !known {
					var err error
					if old, err = t.get(k); err != nil {
						return err
					}
				}
				rev.slots[sk] = old
			}
			t.set(k, v)
		}
	}
	r.rev = rev
	t.top++
	// The journal keeps only what the move replaced: what it wrote is
	// what the copy holds until the move is undone, and undo reads it
	// back from there. Writing the forward diff too would put the block's
	// whole diff into its batch a second time.
	enc := (&record{from: r.from, to: r.to, num: r.num, hash: r.hash, rev: rev}).encode()
	t.put(journalKey(t.top), enc)
	t.put(headKey(t.top), enc[:104])
	lay := r.layer()
	lay.seq = t.top
	t.layers = append(t.layers, lay)
	for uint64(len(t.layers)) > t.l.keep {
		t.delete(journalKey(t.layers[0].seq))
		t.delete(headKey(t.layers[0].seq))
		t.layers = t.layers[1:]
	}
	if r.hash != (types.Hash{}) && len(t.sides) > 0 {
		for k, n := range t.sides {
			if n+t.l.keep < r.num {
				t.delete([]byte(k))
				t.setSide(k, 0, false)
			}
		}
	}
	t.root, t.valid, t.moved = r.to, true, true
	t.put(keyMeta, metaValue(t.root, t.top))
	return nil
}

// pushGenesis makes the first move of an empty copy (a genesis state) with
// no journal record: there is nothing to read back and nothing to undo
// it to (an empty state is rebuilt from nothing), and a large genesis
// would otherwise cost a lookup per account and a record holding it all.
func (t *Tx) pushGenesis(r *record) error {
	for ah, v := range r.fwd.Accounts {
		t.set(accountKey(ah), v)
	}
	for ah, m := range r.fwd.Storage {
		for sh, v := range m {
			t.set(storageKey(ah, sh), v)
		}
	}
	t.root, t.valid, t.moved = r.to, true, true
	t.put(keyMeta, metaValue(t.root, t.top))
	return nil
}

// wipe deletes the storage of account ah, recording the old slots in rev;
// enc is the account in the copy when known, else it is read.
func (t *Tx) wipe(ah types.Hash, enc []byte, known bool, rev *layer) error {
	if !known {
		var err error
		if enc, err = t.get(accountKey(ah)); err != nil {
			return err
		}
	}
	if enc == nil {
		return nil // no account: no storage (the copy holds no slot without its account)
	}
	acct, err := state.DecodeAccount(enc)
	if err != nil {
		return fmt.Errorf("flat state: account %s: %w", ah, err)
	}
	if acct.Root == state.EmptyRoot {
		return nil // nothing stored: no scan
	}
	return t.each(append(append([]byte(nil), prefixStorage...), ah[:]...), func(k, v []byte) {
		var sk [64]byte
		copy(sk[:], k[len(prefixStorage):])
		if _, seen := rev.slots[sk]; !seen {
			rev.slots[sk] = v
		}
		t.delete(k)
	})
}

// rewindTo undoes journalled moves, newest first, until the copy is at
// root; false (nothing undone) when the journal does not reach it.
func (t *Tx) rewindTo(root types.Hash) (bool, error) {
	if !t.valid {
		return false, nil
	}
	i := len(t.layers) - 1
	for ; i >= 0 && t.layers[i].from != root; i-- {
	}
	if i < 0 {
		return false, nil
	}
	for len(t.layers) > i {
		lay := t.layers[len(t.layers)-1]
		if err := t.undo(lay); err != nil {
			return false, err
		}
		t.layers = t.layers[:len(t.layers)-1]
		t.top = lay.seq - 1
		t.root = lay.from
	}
	t.moved = true
	t.put(keyMeta, metaValue(t.root, t.top))
	return true, nil
}

// undo reverts one journalled move. A block's move is kept as a side
// record, so the block's branch can become canonical again: its forward
// diff is what the copy holds now under the keys the move replaced (the
// journal records only the reverse diff).
func (t *Tx) undo(lay *layer) error {
	if err := lay.load(t.l.kv); err != nil {
		return err
	}
	if lay.hash != (types.Hash{}) {
		fwd, err := t.current(lay)
		if err != nil {
			return err
		}
		sk := sideKey(lay.num, lay.hash)
		t.put(sk, (&record{from: lay.from, to: lay.to, num: lay.num, hash: lay.hash, fwd: fwd}).encode())
		t.setSide(string(sk), lay.num, true)
	}
	for ah, v := range lay.accounts {
		t.set(accountKey(ah), v)
	}
	for k, v := range lay.slots {
		t.set(storageKey(types.Hash(k[:32]), types.Hash(k[32:])), v)
	}
	t.delete(journalKey(lay.seq))
	t.delete(headKey(lay.seq))
	return nil
}

// current returns, as a forward diff, the values the copy holds under the
// keys lay replaced: with the copy at lay.to, the diff that moves lay.from
// there. (A storage the move wiped shows as the deletion of each slot it
// held.)
func (t *Tx) current(lay *layer) (*state.Diff, error) {
	fwd := &state.Diff{Accounts: make(map[types.Hash][]byte, len(lay.accounts)), Storage: map[types.Hash]map[types.Hash][]byte{}}
	for ah := range lay.accounts {
		v, err := t.get(accountKey(ah))
		if err != nil {
			return nil, err
		}
		fwd.Accounts[ah] = v
	}
	for k := range lay.slots {
		ah, sh := types.Hash(k[:32]), types.Hash(k[32:])
		v, err := t.get(storageKey(ah, sh))
		if err != nil {
			return nil, err
		}
		m := fwd.Storage[ah]
		if m == nil {
			m = map[types.Hash][]byte{}
			fwd.Storage[ah] = m
		}
		m[sh] = v
	}
	return fwd, nil
}

// StoreSide keeps the diff of a block stored off the canonical chain, for
// PushSide should its branch become canonical.
func (t *Tx) StoreSide(from, to types.Hash, num uint64, hash types.Hash, d *state.Diff) {
	from, to = norm(from), norm(to)
	if from == to {
		return
	}
	k := sideKey(num, hash)
	t.put(k, (&record{from: from, to: to, num: num, hash: hash, fwd: d}).encode())
	t.setSide(string(k), num, true)
}

// PushSide moves the copy by the stored diff of block (num, hash), which
// becomes canonical. It reports false, changing nothing, when there is no
// such diff or the journal cannot bring the copy to the block's parent
// state; the caller's next Apply then rebuilds the copy.
func (t *Tx) PushSide(num uint64, hash types.Hash) (bool, error) {
	k := sideKey(num, hash)
	enc, err := t.get(k)
	if err != nil || enc == nil {
		return false, err
	}
	r, err := decodeRecord(enc)
	if err != nil {
		return false, err
	}
	if !t.valid || t.root != r.from {
		if ok, err := t.rewindTo(r.from); !ok || err != nil {
			return false, err
		}
	}
	t.delete(k)
	t.setSide(string(k), 0, false)
	return true, t.push(r)
}

// Rebuild replaces the copy with the state at root, read from its trie:
// every account and slot is written again, the journal starts over. It
// costs a walk of the whole state: it serves a data directory made before
// the copy existed and a rewind beyond the journal.
func (t *Tx) Rebuild(root types.Hash) error {
	root = norm(root)
	for _, p := range [][]byte{prefixAccount, prefixStorage, prefixJournal, prefixHead} {
		if err := t.each(p, func(k, _ []byte) { t.delete(k) }); err != nil {
			return err
		}
	}
	t.layers = nil
	acctTrie, err := trie.New(root, t.nodes)
	if err != nil {
		return fmt.Errorf("flat state: rebuild at %s: %w", root, err)
	}
	it := acctTrie.NewIterator(nil)
	for it.Next() {
		ah := types.Hash(it.Key())
		v := append([]byte(nil), it.Value()...)
		t.put(accountKey(ah), v)
		acct, err := state.DecodeAccount(v)
		if err != nil {
			return fmt.Errorf("flat state: account %s: %w", ah, err)
		}
		if acct.Root == state.EmptyRoot {
			continue
		}
		st, err := trie.New(acct.Root, t.nodes)
		if err != nil {
			return fmt.Errorf("flat state: storage of %s: %w", ah, err)
		}
		sit := st.NewIterator(nil)
		for sit.Next() {
			t.put(storageKey(ah, types.Hash(sit.Key())), append([]byte(nil), sit.Value()...))
		}
		if err := sit.Err(); err != nil {
			return fmt.Errorf("flat state: storage of %s: %w", ah, err)
		}
	}
	if err := it.Err(); err != nil {
		return fmt.Errorf("flat state: rebuild at %s: %w", root, err)
	}
	t.root, t.valid, t.moved = root, true, true
	t.put(keyMeta, metaValue(t.root, t.top))
	return nil
}

// Commit writes the batch with write and, if it succeeds, makes the Tx's
// moves the copy's. The moves are published before the write, with the
// staged values in front of the persisted copy (Layer.base), and the lock
// is held only to swap them in and out: readers never wait on the write's
// fsync, and whether the batch has reached the store or not they read the
// same values. A failed write puts the copy back as it was.
func (t *Tx) Commit(write func() error) error {
	if !t.moved && !t.sidesC {
		return write()
	}
	l := t.l
	l.mu.Lock()
	was := snapshot{l.valid, l.root, l.top, l.layers, l.sides}
	l.valid, l.root, l.top, l.layers, l.sides = t.valid, t.root, t.top, t.layers, t.sides
	l.pend = &staged{over: t.over, del: t.del}
	l.mu.Unlock()
	err := write()
	l.mu.Lock()
	l.pend = nil
	if err != nil {
		l.valid, l.root, l.top, l.layers, l.sides = was.valid, was.root, was.top, was.layers, was.sides
	}
	l.mu.Unlock()
	return err
}

// snapshot is what a Commit replaces, to put back if its write fails.
type snapshot struct {
	valid  bool
	root   types.Hash
	top    uint64
	layers []*layer
	sides  map[string]uint64
}

// staged are the writes of a Tx whose batch is being written.
type staged struct {
	over map[string][]byte
	del  map[string]bool
}
