package state

import (
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/trie"
)

// stateObject is one account being read or changed. Storage lives in three
// layers, newest first: dirty (written by the current transaction), pending
// (written by earlier transactions of the block, not yet in the trie) and
// origin (a cache of what the storage trie holds).
type stateObject struct {
	addr types.Address
	data Account

	code      []byte // nil until loaded (or when the account has no code)
	dirtyCode bool

	storage *trie.Trie // opened on first miss; nil for fresh accounts until needed
	origin  map[types.Hash]types.Hash
	pending map[types.Hash]types.Hash
	dirty   map[types.Hash]types.Hash

	created        bool // created by the current transaction (EIP-6780)
	selfDestructed bool
	deleted        bool // destroyed or deleted as empty by Finalise; absent from now on

	refs         int32 // unreverted journal entries of the current transaction
	inTxList     bool  // listed in StateDB.txObjects
	inBlockList  bool  // listed in StateDB.blockObjects
	trieDirty    bool  // storage trie changed since the last Commit
	inCommitList bool  // listed in StateDB.commitObjs
}

func newObject(addr types.Address, data Account) *stateObject {
	return &stateObject{addr: addr, data: data} // maps are made on first use
}

// committedState returns the slot's value at the start of the transaction.
func (s *StateDB) committedState(o *stateObject, key types.Hash) types.Hash {
	if v, ok := o.pending[key]; ok {
		return v
	}
	if v, ok := o.origin[key]; ok {
		return v
	}
	if o.data.Root == EmptyRoot && o.storage == nil {
		return types.Hash{}
	}
	return s.readStorage(o, key)
}

// readStorage loads a slot from the storage trie into the origin cache.
// It is kept out of line: the key escapes into the hasher here, and the
// cached path above must not pay for a heap copy of it.
//
//go:noinline
func (s *StateDB) readStorage(o *stateObject, key types.Hash) types.Hash {
	t := s.storageTrie(o)
	if t == nil {
		return types.Hash{}
	}
	enc, err := secureGet(t, key[:])
	if err != nil {
		s.setError(err)
		return types.Hash{}
	}
	var v types.Hash
	if len(enc) > 0 {
		if v, err = decodeStorageValue(enc); err != nil {
			s.setError(err)
			return types.Hash{}
		}
	}
	if o.origin == nil {
		o.origin = make(map[types.Hash]types.Hash)
	}
	o.origin[key] = v
	return v
}

// storageTrie opens the object's storage trie on first use.
func (s *StateDB) storageTrie(o *stateObject) *trie.Trie {
	if o.storage != nil {
		return o.storage
	}
	t, err := trie.New(o.data.Root, s.db)
	if err != nil {
		s.setError(err)
		return nil
	}
	o.storage = t
	return t
}

// finalise moves the transaction's storage writes into pending.
func (o *stateObject) finalise() {
	if len(o.dirty) == 0 {
		return
	}
	if o.pending == nil {
		o.pending = make(map[types.Hash]types.Hash, len(o.dirty))
	}
	for k, v := range o.dirty {
		o.pending[k] = v
	}
	clear(o.dirty)
}

// updateStorage writes pending slots into the storage trie and refreshes
// the account's storage root.
func (s *StateDB) updateStorage(o *stateObject) {
	if len(o.pending) == 0 {
		return
	}
	t := s.storageTrie(o)
	if t == nil {
		return
	}
	var buf [33]byte
	if o.origin == nil {
		o.origin = make(map[types.Hash]types.Hash, len(o.pending))
	}
	for k, v := range o.pending {
		if ov, ok := o.origin[k]; ok && ov == v {
			continue
		}
		var err error
		if v.IsZero() {
			err = secureDelete(t, k[:])
		} else {
			err = secureUpdate(t, k[:], appendStorageValue(buf[:0], &v))
		}
		if err != nil {
			s.setError(err)
		}
		o.origin[k] = v
	}
	clear(o.pending)
	o.data.Root = t.Hash()
	o.trieDirty = true
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
