package state

import (
	"bytes"
	"maps"
	"slices"

	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Copy returns an independent deep copy of the state, including the
// current transaction's journal, access list and transient storage, so
// snapshots taken before the copy can be reverted on either side.
func (s *StateDB) Copy() *StateDB {
	c := &StateDB{
		db:          s.db,
		trie:        s.trie.Copy(),
		origRoot:    s.origRoot,
		objects:     make(map[types.Address]*stateObject, len(s.objects)),
		codes:       maps.Clone(s.codes),
		refund:      s.refund,
		accessAddrs: maps.Clone(s.accessAddrs),
		accessSlots: maps.Clone(s.accessSlots),
		txSeq:       s.txSeq, // the copied slot entries keep their warm marks
		transient:   maps.Clone(s.transient),
		logs:        slices.Clone(s.logs),
		txLogStart:  s.txLogStart,
		txHash:      s.txHash,
		txIndex:     s.txIndex,
		ripemdTouch: s.ripemdTouch,
		err:         s.err,
		readCache:   s.readCache,
		flat:        s.flat,
		flatRoot:    s.flatRoot,
		diff:        s.diff.copy(),
		remote:      s.remote,
		trieChanged: s.trieChanged,
	}
	memo := make(map[*stateObject]*stateObject, len(s.objects))
	cp := func(o *stateObject) *stateObject {
		if o == nil {
			return nil
		}
		if n, ok := memo[o]; ok {
			return n
		}
		n := o.copy()
		memo[o] = n
		return n
	}
	for a, o := range s.objects {
		c.objects[a] = cp(o)
	}
	for _, o := range s.txObjects {
		c.txObjects = append(c.txObjects, cp(o))
	}
	for _, o := range s.blockObjects {
		c.blockObjects = append(c.blockObjects, cp(o))
	}
	for _, o := range s.commitObjs {
		c.commitObjs = append(c.commitObjs, cp(o))
	}
	for i := 0; i < s.journal.n; i++ {
		e := *s.journal.at(i)
		e.obj = cp(e.obj)
		c.journal.push(&e)
	}
	c.journal.lastSnap = s.journal.lastSnap
	c.journal.codes = slices.Clone(s.journal.codes)
	for _, o := range s.journal.prevs {
		c.journal.prevs = append(c.journal.prevs, cp(o))
	}
	return c
}

func (o *stateObject) copy() *stateObject {
	n := *o
	n.code = o.code       // code is never modified in place
	n.recent = [2]*slot{} // o's entries, not the copies below
	if o.slots != nil {
		n.slots = make(map[types.Hash]*slot, len(o.slots))
		for k, sl := range o.slots {
			c := *sl
			n.slots[k] = &c
		}
	}
	n.dirtyKeys = slices.Clone(o.dirtyKeys)
	n.pendingKeys = slices.Clone(o.pendingKeys)
	if o.storage != nil {
		n.storage = o.storage.Copy()
	}
	return &n
}

// AccountDump is one account as this StateDB currently sees it.
type AccountDump struct {
	Address  types.Address
	Nonce    uint64
	Balance  uint256.Int
	Root     types.Hash // as of the last IntermediateRoot
	CodeHash types.Hash
	Code     []byte
	Storage  map[types.Hash]types.Hash // only the slots this StateDB has read or written
}

// DumpLoaded describes every existing account this StateDB has loaded or
// changed, sorted by address. It is meant for debugging and test output,
// not for exporting a whole state.
func (s *StateDB) DumpLoaded() []AccountDump {
	var out []AccountDump
	for a := range s.objects {
		o := s.getObject(&a)
		if o == nil {
			continue
		}
		d := AccountDump{Address: a, Nonce: o.data.Nonce, Balance: o.data.Balance, Root: o.data.Root,
			CodeHash: o.data.CodeHash, Code: s.loadCode(o), Storage: map[types.Hash]types.Hash{}}
		for k, sl := range o.slots {
			if sl.flags&isDirty != 0 {
				d.Storage[k] = sl.cur
			} else {
				d.Storage[k] = sl.committed()
			}
		}
		out = append(out, d)
	}
	slices.SortFunc(out, func(x, y AccountDump) int { return bytes.Compare(x.Address[:], y.Address[:]) })
	return out
}
