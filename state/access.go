package state

import "github.com/chaind/chaind/internal/types"

// The EIP-2929 access list of the current transaction.
//
// accessAddrs and accessSlots are the whole list: what Copy carries, what
// a revert takes entries out of, what BeginTx empties. A slot entry of a
// live object (see slot.warmTx) also says whether its slot is warm, so
// SLOAD and SSTORE, which look the entry up for its values anyway, learn
// it without hashing the 52-byte address+slot key of accessSlots: that
// lookup was a tenth of a token mint's time. The mark is a cache of the
// map, kept true to it in both directions:
//   - set only when the slot is in accessSlots (when it is added, or when a
//     lookup finds an unmarked entry in the map: a slot listed before its
//     entry was loaded, or an account replaced by CreateAccount);
//   - cleared where the map loses the slot: a reverted addition clears the
//     mark on the address's current object, which is the object it was set
//     on, since the journal undoes any later replacement of it first; a
//     new transaction makes every mark stale by counting txSeq on.

// AddressInAccessList reports whether addr is warm (EIP-2929).
func (s *StateDB) AddressInAccessList(addr types.Address) bool {
	_, ok := s.accessAddrs[addr]
	return ok
}

// SlotInAccessList reports whether addr and the slot are warm. For a live
// account it loads the slot's entry, as the SLOAD or SSTORE asking is about
// to.
func (s *StateDB) SlotInAccessList(addr types.Address, key types.Hash) (addressOk, slotOk bool) {
	if o := s.peekObject(&addr); o != nil {
		sl := s.slotOf(o, key)
		if sl.warmTx == s.txSeq {
			return true, true // a warm slot's address is warm
		}
		return s.slotListed(addr, &key, sl)
	}
	return s.slotListed(addr, &key, nil)
}

// SlotState answers in one lookup what SSTORE's gas rules ask of a slot:
// its value when the transaction began, its current value, and whether it
// is warm (EIP-2929).
func (s *StateDB) SlotState(addr types.Address, key types.Hash) (committed, current types.Hash, warm bool) {
	o := s.getObject(&addr)
	if o == nil {
		_, warm = s.slotListed(addr, &key, nil)
		return committed, current, warm
	}
	sl := s.slotOf(o, key)
	if warm = sl.warmTx == s.txSeq; !warm {
		_, warm = s.slotListed(addr, &key, sl)
	}
	committed = sl.committed()
	if sl.flags&isDirty != 0 {
		return committed, sl.cur, warm
	}
	return committed, committed, warm
}

// slotListed looks the slot up in the access list's maps, marking sl (its
// entry, if any) warm when it is listed.
func (s *StateDB) slotListed(addr types.Address, key *types.Hash, sl *slot) (addressOk, slotOk bool) {
	if _, addressOk = s.accessAddrs[addr]; !addressOk {
		return false, false
	}
	if _, slotOk = s.accessSlots[slotKey{addr, *key}]; slotOk && sl != nil {
		sl.warmTx = s.txSeq
	}
	return addressOk, slotOk
}

// peekObject returns addr's live object if it is loaded, reading nothing.
func (s *StateDB) peekObject(addr *types.Address) *stateObject {
	if o := s.lastObj; o != nil && types.SameAddress(&o.addr, addr) {
		return o
	}
	if o := s.objects[*addr]; o != nil && !o.deleted {
		return o
	}
	return nil
}

// AddAddressToAccessList warms addr.
func (s *StateDB) AddAddressToAccessList(addr types.Address) {
	if _, ok := s.accessAddrs[addr]; ok {
		return
	}
	s.accessAddrs[addr] = struct{}{}
	s.journalAppend(journalEntry{kind: entryAccessAddr, addr: addr})
}

// AddSlotToAccessList warms addr and one of its slots.
func (s *StateDB) AddSlotToAccessList(addr types.Address, key types.Hash) {
	// The entry if loaded: a transaction's access list names slots it
	// may never read, which are not worth a trie read here.
	var sl *slot
	if o := s.peekObject(&addr); o != nil {
		if sl = o.peekSlot(&key); sl != nil && sl.warmTx == s.txSeq {
			return
		}
	}
	k := slotKey{addr, key}
	if _, ok := s.accessSlots[k]; ok {
		if sl != nil {
			sl.warmTx = s.txSeq
		}
		return
	}
	_, hadAddr := s.accessAddrs[addr]
	if !hadAddr {
		s.accessAddrs[addr] = struct{}{}
	}
	if s.accessSlots == nil {
		s.accessSlots = make(map[slotKey]struct{})
	}
	s.accessSlots[k] = struct{}{}
	if sl != nil {
		sl.warmTx = s.txSeq
	}
	e := s.journalNew(entryAccessSlot, nil)
	e.addr, e.key, e.flag = addr, key, !hadAddr
}

// unlistSlot undoes AddSlotToAccessList's addition of the slot.
func (s *StateDB) unlistSlot(addr types.Address, key types.Hash, addrToo bool) {
	delete(s.accessSlots, slotKey{addr, key})
	if o := s.objects[addr]; o != nil {
		if sl := o.slots[key]; sl != nil {
			sl.warmTx = 0
		}
	}
	if addrToo {
		delete(s.accessAddrs, addr)
	}
}
