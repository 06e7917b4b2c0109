package state

import "github.com/chaind/chaind/internal/types"

// Touched calls fn for every address this StateDB has loaded or changed,
// with the storage slots of it that it has loaded or changed. A
// development node records them to list its whole state by address (the
// tries are keyed by hashes, which cannot be turned back into addresses).
func (s *StateDB) Touched(fn func(addr types.Address, slots []types.Hash)) {
	for a, o := range s.objects {
		var keys []types.Hash
		if o != nil {
			for k := range o.slots {
				keys = append(keys, k)
			}
		}
		fn(a, keys)
	}
}
