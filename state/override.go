package state

import "github.com/chaind/chaind/internal/types"

// SetStorage replaces the whole storage of addr with slots, keeping its
// nonce, balance and code; every other slot reads zero afterwards, also
// through GetCommittedState, and the next IntermediateRoot recomputes the
// storage root from the new slots alone. It is meant for eth_call state
// overrides: call Finalise(false) afterwards if the new slots should count
// as the state the transaction starts from.
func (s *StateDB) SetStorage(addr types.Address, slots map[types.Hash]types.Hash) {
	prev := s.getObject(&addr)
	o := s.createObject(addr, prev) // a new incarnation: no trie behind it
	if prev != nil {
		o.data.Nonce = prev.data.Nonce
		o.data.CodeHash = prev.data.CodeHash
		o.code = s.loadCode(prev)
	}
	for k, v := range slots {
		s.SetState(addr, k, v)
	}
}
