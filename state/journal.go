package state

import (
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

type entryKind uint8

const (
	entryCreateObject entryKind = iota // obj replaced prev (flag: map had an entry)
	entryCreateContract
	entryBalance
	entryNonce
	entryCode
	entryStorage // flag: key was in the dirty map before
	entrySelfDestruct
	entryTouch
	entryRefund
	entryLog
	entryAccessAddr
	entryAccessSlot // flag: the slot insert also added the address
	entryTransient
)

// journalEntry records how to undo one change. One struct for every kind,
// stored by value in a slice, so journaling a change allocates nothing once
// the slice has grown to the size of a typical transaction.
type journalEntry struct {
	kind entryKind
	flag bool
	obj  *stateObject // the object whose change this is; counted in obj.refs
	prev *stateObject // entryCreateObject: what the map held before
	addr types.Address
	key  types.Hash
	val  types.Hash
	u64  uint64
	bal  uint256.Int
	code []byte
}

// append records e, counting it against the object it touches so Finalise
// knows which accounts the (unreverted part of the) transaction touched.
func (s *StateDB) journalAppend(e journalEntry) {
	if o := e.obj; o != nil {
		o.refs++
		if !o.inTxList {
			o.inTxList = true
			s.txObjects = append(s.txObjects, o)
		}
	}
	s.journal = append(s.journal, e)
}

// Snapshot returns an identifier of the current state of the transaction
// that RevertToSnapshot can return to.
func (s *StateDB) Snapshot() int { return len(s.journal) }

// RevertToSnapshot undoes every change made after Snapshot returned id.
func (s *StateDB) RevertToSnapshot(id int) {
	if id < 0 {
		id = 0
	}
	for i := len(s.journal) - 1; i >= id; i-- {
		e := &s.journal[i]
		s.undo(e)
		if e.obj != nil {
			e.obj.refs--
		}
		*e = journalEntry{} // drop references for the GC
	}
	if id < len(s.journal) {
		s.journal = s.journal[:id]
	}
}

func (s *StateDB) undo(e *journalEntry) {
	o := e.obj
	switch e.kind {
	case entryCreateObject:
		if e.flag {
			s.objects[e.addr] = e.prev
		} else {
			delete(s.objects, e.addr)
		}
		s.lastObj = nil
	case entryCreateContract:
		o.created = false
	case entryBalance:
		o.data.Balance = e.bal
	case entryNonce:
		o.data.Nonce = e.u64
	case entryCode:
		o.code = e.code
		o.data.CodeHash = e.val
		o.dirtyCode = e.flag
	case entryStorage:
		if e.flag {
			o.dirty[e.key] = e.val
		} else {
			delete(o.dirty, e.key)
		}
	case entrySelfDestruct:
		o.selfDestructed = e.flag
		o.data.Balance = e.bal
	case entryTouch:
	case entryRefund:
		s.refund = e.u64
	case entryLog:
		s.logs[len(s.logs)-1] = nil
		s.logs = s.logs[:len(s.logs)-1]
	case entryAccessAddr:
		delete(s.accessAddrs, e.addr)
	case entryAccessSlot:
		delete(s.accessSlots, slotKey{e.addr, e.key})
		if e.flag {
			delete(s.accessAddrs, e.addr)
		}
	case entryTransient:
		k := slotKey{e.addr, e.key}
		if e.val.IsZero() {
			delete(s.transient, k)
		} else {
			s.transient[k] = e.val
		}
	}
}
