package state

import (
	"errors"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/trie"
)

// stateObject is one account being read or changed.
//
// Each storage slot it has seen is one map entry holding up to three
// layers, newest first: the current transaction's value, the value left by
// earlier transactions of the block (pending, not yet in the trie), and a
// cached copy of what the storage trie holds (origin). One map lookup thus
// answers both SLOAD and the "original value" SSTORE gas needs.
type stateObject struct {
	addr types.Address
	data Account

	code      []byte // nil until loaded (or when the account has no code)
	dirtyCode bool

	storage *trie.Trie // opened on first miss; nil for fresh accounts until needed
	// storageOrigin is the root storage was opened at; storageClean says
	// the trie still holds exactly that (reads may go through ReadCache).
	storageOrigin types.Hash
	storageClean  bool
	slots         map[types.Hash]*slot
	// recent are the two slots looked up last, newest first, with their
	// keys: an SSTORE reads the committed and the current value and then
	// writes, and token code moves between two balances, so most lookups
	// repeat one of the last two keys and skip hashing a 32-byte key into
	// the map. Entries are never removed from slots, so a cached pointer
	// stays the key's entry for as long as slots is this map.
	recent      [2]*slot
	recentKeys  [2]types.Hash
	dirtyKeys   []types.Hash // keys written by this tx (may repeat or have been reverted)
	pendingKeys []types.Hash // keys whose pending value is not in the trie yet

	addrHash   types.Hash // keccak256(addr), valid with addrHashed
	addrHashed bool
	// incarnated: made by this StateDB (createObject), so its storage is
	// not the opened state's; wipe: the flat diff has not yet recorded
	// that the address's old storage is gone.
	incarnated, wipe bool
	// prevEnc is the account's encoding in the state as of the last
	// IntermediateRoot (or as read, before any): nil for none. The flat
	// diff records it as the value before the account's first change.
	prevEnc []byte

	created        bool // created by the current transaction (EIP-6780)
	selfDestructed bool
	deleted        bool // destroyed or deleted as empty by Finalise; absent from now on

	refs         int32 // unreverted journal entries of the current transaction
	inTxList     bool  // listed in StateDB.txObjects
	inBlockList  bool  // listed in StateDB.blockObjects
	trieDirty    bool  // storage trie changed since the last Commit
	inCommitList bool  // listed in StateDB.commitObjs
}

// slot is the layered state of one storage slot.
type slot struct {
	origin  types.Hash // valid with hasOrigin
	pending types.Hash // valid with hasPending
	cur     types.Hash // valid with isDirty
	flags   uint8
	// warmTx == StateDB.txSeq: the slot is in the current transaction's
	// access list (EIP-2929). A mark of an earlier transaction is stale, so
	// nothing is cleared per transaction. The mark only ever mirrors
	// StateDB.accessSlots (see access.go).
	warmTx uint32
	// jpos is 1 + the journal position of the slot's last storage entry,
	// 0 for none; it may be stale (see SetState), so it is only a hint.
	jpos uint32
}

const (
	hasOrigin  uint8 = 1 << iota // origin is the value in the storage trie
	hasPending                   // pending is the value after earlier txs of the block
	isDirty                      // cur is the value written by the current tx
)

// committed is the value at the start of the current transaction.
func (sl *slot) committed() types.Hash {
	if sl.flags&hasPending != 0 {
		return sl.pending
	}
	return sl.origin
}

func newObject(addr types.Address, data Account) *stateObject {
	return &stateObject{addr: addr, data: data} // maps are made on first use
}

// slotOf returns the object's entry for key, loading it from the storage
// trie on first use.
func (s *StateDB) slotOf(o *stateObject, key types.Hash) *slot {
	if sl := o.recent[0]; sl != nil && types.SameHash(&o.recentKeys[0], &key) {
		return sl
	}
	if sl := o.recent[1]; sl != nil && types.SameHash(&o.recentKeys[1], &key) {
		o.recent[0], o.recent[1] = sl, o.recent[0]
		o.recentKeys[0], o.recentKeys[1] = key, o.recentKeys[0]
		return sl
	}
	sl, ok := o.slots[key]
	if !ok {
		sl = s.loadSlot(o, key)
	}
	o.recent[1], o.recentKeys[1] = o.recent[0], o.recentKeys[0]
	o.recent[0], o.recentKeys[0] = sl, key
	return sl
}

// peekSlot returns the object's entry for key if it has one, without
// reading the storage trie.
func (o *stateObject) peekSlot(key *types.Hash) *slot {
	if sl := o.recent[0]; sl != nil && types.SameHash(&o.recentKeys[0], key) {
		return sl
	}
	return o.slots[*key]
}

// forgetSlots drops the object's slot entries (and the lookups cached in
// front of them).
func (o *stateObject) forgetSlots() {
	o.slots, o.dirtyKeys, o.pendingKeys = nil, nil, nil
	o.recent = [2]*slot{}
}

// loadSlot reads a slot the object has not seen from the storage trie and
// caches it as origin. It is kept out of line: the key escapes into the
// hasher here, and the cached paths must not pay for a heap copy of it.
//
//go:noinline
func (s *StateDB) loadSlot(o *stateObject, key types.Hash) *slot {
	var v types.Hash
	if o.data.Root != EmptyRoot || o.storage != nil {
		enc, err := s.readSlotEnc(o, key)
		if err != nil {
			s.setError(err)
		} else if len(enc) > 0 {
			if v, err = decodeStorageValue(enc); err != nil {
				s.setError(err)
			}
		}
	}
	if o.slots == nil {
		o.slots = make(map[types.Hash]*slot)
	}
	sl := &slot{origin: v, flags: hasOrigin}
	o.slots[key] = sl
	return sl
}

// storageTrie opens the object's storage trie on first use.
func (s *StateDB) storageTrie(o *stateObject) *trie.Trie {
	t, err := s.openStorage(o)
	if err != nil {
		s.setError(err)
		return nil
	}
	return t
}

func (s *StateDB) openStorage(o *stateObject) (*trie.Trie, error) {
	if o.storage != nil {
		return o.storage, nil
	}
	t, err := trie.New(o.data.Root, s.db)
	if err != nil {
		return nil, err
	}
	o.storage = t
	o.storageOrigin, o.storageClean = o.data.Root, true
	return t, nil
}

// finalise moves the transaction's storage writes into pending.
func (o *stateObject) finalise() {
	for _, k := range o.dirtyKeys {
		sl := o.slots[k]
		if sl.flags&isDirty == 0 {
			continue // reverted, or a repeat of a key already moved
		}
		if sl.flags&hasPending == 0 {
			o.pendingKeys = append(o.pendingKeys, k)
		}
		sl.pending = sl.cur
		sl.flags = sl.flags&^isDirty | hasPending
	}
	clear(o.dirtyKeys)
	o.dirtyKeys = o.dirtyKeys[:0]
}

// updateStorage writes pending slots into the storage trie. It reports
// whether the trie changed; the caller then rehashes it (see hashStorage).
func (s *StateDB) updateStorage(o *stateObject) bool {
	if len(o.pendingKeys) == 0 {
		return false
	}
	if s.remote != nil {
		k := o.pendingKeys[0]
		if err := s.withRemote(o.addr, &k, func() error { _, err := s.openStorage(o); return err }); err != nil {
			s.setError(err)
			return false
		}
	}
	t := s.storageTrie(o)
	if t == nil {
		return false
	}
	var buf [33]byte
	for _, k := range o.pendingKeys {
		sl := o.slots[k]
		v := sl.pending
		if sl.flags&hasOrigin == 0 || sl.origin != v {
			var err error
			switch {
			case s.remote != nil:
				enc := partialZero
				if !v.IsZero() {
					enc = appendStorageValue(buf[:0], &v)
				}
				err = s.withRemote(o.addr, &k, func() error { return secureUpdate(t, k[:], enc) })
			case v.IsZero():
				err = secureDelete(t, k[:])
				s.flatSlot(o, k, sl, nil)
			default:
				enc := appendStorageValue(buf[:0], &v)
				err = secureUpdate(t, k[:], enc)
				s.flatSlot(o, k, sl, enc)
			}
			if err != nil {
				s.setError(err)
			}
		}
		sl.origin = v
		sl.flags = sl.flags&^hasPending | hasOrigin
	}
	clear(o.pendingKeys)
	o.pendingKeys = o.pendingKeys[:0]
	o.trieDirty = true
	o.storageClean = false
	return true
}

func (s *StateDB) loadCode(o *stateObject) []byte {
	if o.code != nil || o.data.CodeHash == EmptyCodeHash {
		return o.code
	}
	if c, ok := s.codes[o.data.CodeHash]; ok {
		o.code = c
		return c
	}
	c, err := s.readCode(o.data.CodeHash)
	if s.remote != nil && errors.Is(err, trie.ErrMissingNode) {
		c, err = s.remoteCode(o.addr, o.data.CodeHash)
	}
	if err != nil {
		s.setError(err)
		return nil
	}
	o.code = c
	return c
}

func codeHash(code []byte) types.Hash {
	if len(code) == 0 {
		return EmptyCodeHash
	}
	return types.Hash(crypto.Keccak256(code))
}
