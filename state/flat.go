package state

import (
	"maps"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
)

// A database may keep, beside the tries, a flat copy of the state: every
// account and slot under its trie key, so a read is one key-value lookup
// instead of a walk from the root (go-ethereum's snapshot). The tries stay
// the source of roots and proofs; the flat copy only serves reads, and a
// state it does not cover is read from the tries.
//
// A StateDB whose database is a FlatDB reads through it and, at each
// Commit, hands it a Diff: what the commit changed, in the flat copy's
// terms. The database keeps the flat copy in step with the tries.

// FlatDB is a trie database that also keeps a flat copy of some states.
type FlatDB interface {
	// FlatAccount returns the RLP account stored under addrHash in the
	// state with the given root (nil: no account). ok is false when the
	// flat copy does not cover that state: the caller reads the trie.
	FlatAccount(root, addrHash types.Hash) (enc []byte, ok bool, err error)
	// FlatStorage returns the RLP value of a slot, as FlatAccount does.
	FlatStorage(root, addrHash, slotHash types.Hash) (enc []byte, ok bool, err error)
	// UpdateFlat receives what a Commit changed between two roots. The
	// diff is the database's from then on.
	UpdateFlat(from, to types.Hash, d *Diff) error
}

// Diff is what one Commit changed, keyed as the tries are (keccak256 of
// the address, keccak256 of the slot). A nil value is a deletion.
type Diff struct {
	Accounts map[types.Hash][]byte
	// Wiped are the accounts whose whole storage went (destructed, or
	// replaced by a new account) before the slots in Storage were written.
	Wiped   map[types.Hash]struct{}
	Storage map[types.Hash]map[types.Hash][]byte
	// PrevAccounts and PrevStorage hold, for changed keys whose value in
	// the state the diff starts from the StateDB knew (it read them to
	// change them), that value (nil: nothing). The flat copy journals
	// those as the reverse diff without reading them back from the store,
	// a lookup per changed key on a block's commit. Keys absent here are
	// read. A wiped account's slots are not covered: the copy scans them.
	PrevAccounts map[types.Hash][]byte
	PrevStorage  map[types.Hash]map[types.Hash][]byte
	// New are the accounts the diff writes that the state it starts from
	// does not hold, by address: the database's address-ordered account
	// index adds them (the tries' keys are hashes, which cannot be turned
	// back into addresses). Nil until the first one.
	New map[types.Hash]types.Address
}

func newDiff() *Diff {
	return &Diff{
		Accounts:     map[types.Hash][]byte{},
		Wiped:        map[types.Hash]struct{}{},
		Storage:      map[types.Hash]map[types.Hash][]byte{},
		PrevAccounts: map[types.Hash][]byte{},
		PrevStorage:  map[types.Hash]map[types.Hash][]byte{},
	}
}

func (d *Diff) copy() *Diff {
	if d == nil {
		return nil
	}
	return &Diff{Accounts: maps.Clone(d.Accounts), Wiped: maps.Clone(d.Wiped), Storage: cloneNested(d.Storage),
		PrevAccounts: maps.Clone(d.PrevAccounts), PrevStorage: cloneNested(d.PrevStorage), New: maps.Clone(d.New)}
}

func cloneNested(m map[types.Hash]map[types.Hash][]byte) map[types.Hash]map[types.Hash][]byte {
	c := make(map[types.Hash]map[types.Hash][]byte, len(m))
	for a, s := range m {
		c[a] = maps.Clone(s)
	}
	return c
}

// Empty reports whether the diff changes nothing.
func (d *Diff) Empty() bool {
	return len(d.Accounts) == 0 && len(d.Wiped) == 0 && len(d.Storage) == 0
}

// addrHash returns keccak256 of the object's address, computed once.
func (o *stateObject) hashedAddr() types.Hash {
	if !o.addrHashed {
		crypto.HashInto((*[32]byte)(&o.addrHash), o.addr[:])
		o.addrHashed = true
	}
	return o.addrHash
}

// flatAccount records o's new encoding (nil: deleted) in the pending diff,
// and the account's encoding before the diff if this is its first change
// in it. o.prevEnc then holds the new encoding: after the next Commit it
// is the value in the state the next diff starts from.
func (s *StateDB) flatAccount(o *stateObject, enc []byte) {
	d := s.flatDiff()
	if d == nil {
		return
	}
	ah := o.hashedAddr()
	if _, ok := d.PrevAccounts[ah]; !ok {
		d.PrevAccounts[ah] = o.prevEnc
	}
	if enc == nil {
		s.flatWipe(ah)
		d.Accounts[ah] = nil
		o.prevEnc = nil
		return
	}
	enc = append([]byte(nil), enc...)
	d.Accounts[ah] = enc
	o.prevEnc = enc
	if d.PrevAccounts[ah] == nil {
		if d.New == nil {
			d.New = map[types.Hash]types.Address{}
		}
		d.New[ah] = o.addr
	}
}

// flatDiff returns the diff of the changes since the last Commit, made on
// the first change (a StateDB that only reads, as most do, makes none);
// nil when no flat copy is kept.
func (s *StateDB) flatDiff() *Diff {
	if s.flat == nil {
		return nil
	}
	if s.diff == nil {
		s.diff = newDiff()
	}
	return s.diff
}

// flatNew records, before o's slots, that o is a new account at an address
// that may have held one: nothing of the old storage survives.
func (s *StateDB) flatNew(o *stateObject) {
	if o.wipe && s.flat != nil {
		s.flatWipe(o.hashedAddr())
	}
	o.wipe = false
}

func (s *StateDB) flatWipe(ah types.Hash) {
	d := s.flatDiff()
	d.Wiped[ah] = struct{}{}
	delete(d.Storage, ah)
}

// flatSlot records a slot's new encoding (nil: zero) in the pending diff;
// sl is the slot before the change: its origin, when known, is the value
// the first change in the diff records as the slot's previous one.
func (s *StateDB) flatSlot(o *stateObject, key types.Hash, sl *slot, enc []byte) {
	d := s.flatDiff()
	if d == nil {
		return
	}
	ah := o.hashedAddr()
	m := d.Storage[ah]
	if m == nil {
		m = map[types.Hash][]byte{}
		d.Storage[ah] = m
	}
	var kh types.Hash
	crypto.HashInto((*[32]byte)(&kh), key[:])
	if enc != nil {
		enc = append([]byte(nil), enc...)
	}
	m[kh] = enc
	if sl.flags&hasOrigin == 0 {
		return
	}
	pm := d.PrevStorage[ah]
	if pm == nil {
		pm = map[types.Hash][]byte{}
		d.PrevStorage[ah] = pm
	}
	if _, ok := pm[kh]; !ok {
		var prev []byte
		if !sl.origin.IsZero() {
			prev = appendStorageValue(nil, &sl.origin)
		}
		pm[kh] = prev
	}
}

// flatReadAccount reads addr from the flat copy of the state the StateDB
// was opened on; ok is false when the copy does not cover it.
func (s *StateDB) flatReadAccount(addr types.Address) (enc []byte, ok bool, err error) {
	if s.flat == nil {
		return nil, false, nil
	}
	var ah types.Hash
	crypto.HashInto((*[32]byte)(&ah), addr[:])
	return s.flat.FlatAccount(s.flatRoot, ah)
}

// flatReadSlot reads a slot of o from the flat copy. Only an account that
// came from the opened state may: a new one (fresh, or created earlier in
// this StateDB's life) has no storage there.
func (s *StateDB) flatReadSlot(o *stateObject, key types.Hash) (enc []byte, ok bool, err error) {
	if s.flat == nil || o.incarnated {
		return nil, false, nil
	}
	var kh types.Hash
	crypto.HashInto((*[32]byte)(&kh), key[:])
	return s.flat.FlatStorage(s.flatRoot, o.hashedAddr(), kh)
}
