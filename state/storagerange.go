package state

import (
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rlp"
)

// StorageSlot is one slot of a storage range: the hash of its key (the
// order the storage trie keeps) and its value.
type StorageSlot struct {
	KeyHash, Value types.Hash
}

// StorageRange lists up to max slots of addr's storage in hashed-key
// order, from the slot whose key hash is at least start; next is the key
// hash of the slot after them, nil when there is none. It reads the
// storage trie, so writes of the block so far count only after
// IntermediateRoot.
func (s *StateDB) StorageRange(addr types.Address, start types.Hash, max int) ([]StorageSlot, *types.Hash, error) {
	o := s.getObject(&addr)
	if err := s.Error(); err != nil {
		return nil, nil, err
	}
	if o == nil {
		return nil, nil, nil
	}
	t, err := s.openStorage(o)
	if err != nil {
		return nil, nil, err
	}
	var out []StorageSlot
	it := t.NewIterator(start[:])
	for it.Next() {
		if len(out) == max {
			next := types.BytesToHash(it.Key())
			return out, &next, nil
		}
		v, _, err := rlp.SplitString(it.Value())
		if err != nil {
			return nil, nil, err
		}
		out = append(out, StorageSlot{KeyHash: types.BytesToHash(it.Key()), Value: types.BytesToHash(v)})
	}
	return out, nil, it.Err()
}
