package state

import (
	"encoding/binary"
	"sync"

	"github.com/chaind/chaind/internal/types"
)

type entryKind uint8

const (
	entryCreateObject entryKind = iota // obj replaced journal.prevs[top] (flag: map had an entry)
	entryCreateContract
	entryBalance
	entryNonce
	entryCode
	entryStorage // flag: the slot was dirty before; val: its previous cur
	entrySelfDestruct
	entryTouch
	entryRefund
	entryLog
	entryAccessAddr
	entryAccessSlot // flag: the slot insert also added the address
	entryTransient
)

// journalEntry records how to undo one change. One struct for every kind,
// stored by value in fixed-size chunks, so journaling a change allocates
// nothing once a chunk is in place, and growing the journal never copies.
// Rarely needed wide values (previous code, replaced objects) live in side
// stacks (journal.codes, journal.prevs) that undo pops in step, and a
// previous nonce or refund lives in val (see setU64), which keeps the entry
// at 96 bytes: SSTORE and SLOAD's warming write one each.
type journalEntry struct {
	obj  *stateObject // the object whose change this is; counted in obj.refs
	key  types.Hash
	val  types.Hash // previous value; previous balance as 32 big-endian bytes
	addr types.Address
	kind entryKind
	flag bool
}

// setU64 and u64 keep a previous nonce or refund counter in val.
func (e *journalEntry) setU64(v uint64) { binary.LittleEndian.PutUint64(e.val[:8], v) }
func (e *journalEntry) u64() uint64     { return binary.LittleEndian.Uint64(e.val[:8]) }

const journalChunk = 256

// journal is the list of undo records of the current transaction.
type journal struct {
	chunks []*[journalChunk]journalEntry
	first  [1]*[journalChunk]journalEntry // chunks' first backing array, so a short transaction appends into place
	n      int
	// lastSnap is the id Snapshot returned last in this transaction: no
	// snapshot still to be reverted to is later (see journaledSince).
	lastSnap int
	codes    [][]byte       // previous code of entryCode records
	prevs    []*stateObject // replaced objects of entryCreateObject records
}

var chunkPool = sync.Pool{New: func() any { return new([journalChunk]journalEntry) }}

func (j *journal) push(e *journalEntry) { *j.next() = *e }

// next appends an entry and returns it to be filled in. It is all zero:
// every entry past n is (chunks come zeroed from the pool and from reset,
// and a revert zeroes what it undoes).
func (j *journal) next() *journalEntry {
	if j.n == len(j.chunks)*journalChunk {
		j.chunks = append(j.chunks, chunkPool.Get().(*[journalChunk]journalEntry))
	}
	e := &j.chunks[j.n/journalChunk][j.n%journalChunk]
	j.n++
	return e
}

func (j *journal) at(i int) *journalEntry { return &j.chunks[i/journalChunk][i%journalChunk] }

// reset empties the journal, clearing pointers for the GC and giving all
// but the first chunk back to the pool.
func (j *journal) reset() {
	for i := 0; i < j.n; i++ {
		*j.at(i) = journalEntry{}
	}
	for i := 1; i < len(j.chunks); i++ {
		chunkPool.Put(j.chunks[i])
		j.chunks[i] = nil
	}
	if len(j.chunks) > 1 {
		j.chunks = j.chunks[:1]
	}
	j.n, j.lastSnap = 0, 0
	clear(j.codes)
	j.codes = j.codes[:0]
	clear(j.prevs)
	j.prevs = j.prevs[:0]
}

// journalAppend records e, counting it against the object it touches so
// Finalise knows which accounts the (unreverted part of the) transaction
// touched.
func (s *StateDB) journalAppend(e journalEntry) { *s.journalNew(e.kind, e.obj) = e }

// journalNew appends an entry of the kind for o (nil for none), counted
// as journalAppend counts it, and returns it for the caller to fill in
// the rest: the frequent changes write their few fields in place rather
// than building an entry and copying it twice.
func (s *StateDB) journalNew(kind entryKind, o *stateObject) *journalEntry {
	if o != nil {
		o.refs++
		if !o.inTxList {
			o.inTxList = true
			s.txObjects = append(s.txObjects, o)
		}
	}
	e := s.journal.next()
	e.kind, e.obj = kind, o
	return e
}

// Snapshot returns an identifier of the current state of the transaction
// that RevertToSnapshot can return to.
func (s *StateDB) Snapshot() int {
	s.journal.lastSnap = s.journal.n
	return s.journal.n
}

// RevertToSnapshot undoes every change made after Snapshot returned id.
func (s *StateDB) RevertToSnapshot(id int) {
	if id < 0 {
		id = 0
	}
	for i := s.journal.n - 1; i >= id; i-- {
		e := s.journal.at(i)
		s.undo(e)
		if e.obj != nil {
			e.obj.refs--
		}
		*e = journalEntry{} // drop references for the GC
		s.journal.n = i
	}
}

func (s *StateDB) undo(e *journalEntry) {
	o := e.obj
	switch e.kind {
	case entryCreateObject:
		j := &s.journal
		prev := j.prevs[len(j.prevs)-1]
		j.prevs[len(j.prevs)-1] = nil
		j.prevs = j.prevs[:len(j.prevs)-1]
		if e.flag {
			s.objects[e.addr] = prev
		} else {
			delete(s.objects, e.addr)
		}
		s.lastObj = nil
	case entryCreateContract:
		o.created = false
	case entryBalance:
		o.data.Balance.SetBytes32(e.val[:])
	case entryNonce:
		o.data.Nonce = e.u64()
	case entryCode:
		j := &s.journal
		o.code = j.codes[len(j.codes)-1]
		j.codes[len(j.codes)-1] = nil
		j.codes = j.codes[:len(j.codes)-1]
		o.data.CodeHash = e.val
		o.dirtyCode = e.flag
	case entryStorage:
		sl := o.slots[e.key]
		if e.flag {
			sl.cur = e.val
		} else {
			sl.flags &^= isDirty
		}
	case entrySelfDestruct:
		o.selfDestructed = e.flag
		o.data.Balance.SetBytes32(e.val[:])
	case entryTouch:
	case entryRefund:
		s.refund = e.u64()
	case entryLog:
		s.logs[len(s.logs)-1] = nil
		s.logs = s.logs[:len(s.logs)-1]
	case entryAccessAddr:
		delete(s.accessAddrs, e.addr)
	case entryAccessSlot:
		s.unlistSlot(e.addr, e.key, e.flag)
	case entryTransient:
		s.putTransient(slotKey{e.addr, e.key}, e.val)
	}
}

// Release gives the journal's pooled chunks back. Call it on a StateDB that
// will not be used again, such as one opened for a single eth_call, which
// would otherwise leave its chunks to the garbage collector.
func (s *StateDB) Release() {
	s.journal.reset()
	if len(s.journal.chunks) == 1 {
		chunkPool.Put(s.journal.chunks[0])
		s.journal.chunks = nil
	}
}
