package state

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/trie"
)

// Finalise ends the current transaction: destructed accounts are removed,
// and with deleteEmpty (EIP-158/161, from Spurious Dragon on) so are the
// accounts the transaction touched that are now empty. Storage writes move
// from the transaction layer to the block layer, and the journal is
// cleared, so earlier snapshots can no longer be reverted to.
func (s *StateDB) Finalise(deleteEmpty bool) {
	for _, o := range s.txObjects {
		touched := o.refs > 0 || (o.addr == ripemd && s.ripemdTouch)
		o.inTxList = false
		o.refs = 0
		o.created = false
		if !touched || s.objects[o.addr] != o {
			continue
		}
		if s.prefetch != nil {
			s.queuePrefetch(o)
		}
		if o.selfDestructed || (deleteEmpty && o.data.isEmpty()) {
			o.deleted = true
			o.forgetSlots()
		} else {
			o.finalise()
			if o.dirtyCode {
				if s.codes == nil {
					s.codes = make(map[types.Hash][]byte)
				}
				s.codes[o.data.CodeHash] = o.code
				o.dirtyCode = false
			}
		}
		if !o.inBlockList {
			o.inBlockList = true
			s.blockObjects = append(s.blockObjects, o)
		}
	}
	if len(s.pfKeys) > 0 {
		s.prefetch.push(s.pfKeys)
		s.pfKeys = s.pfKeys[:0]
	}
	clear(s.txObjects)
	s.txObjects = s.txObjects[:0]
	s.journal.reset()
	s.ripemdTouch = false
	s.lastObj = nil
}

// IntermediateRoot finalises the current transaction and returns the state
// root with every change so far hashed in. Storage tries are rehashed only
// for accounts whose storage changed.
func (s *StateDB) IntermediateRoot(deleteEmpty bool) types.Hash {
	s.Finalise(deleteEmpty)
	s.usePrefetched()
	live := s.blockObjects[:0]
	rehash := s.rehash[:0]
	for _, o := range s.blockObjects {
		o.inBlockList = false
		if s.objects[o.addr] != o {
			continue
		}
		s.trieChanged = true
		if o.deleted {
			if err := s.deleteAccount(o.addr); err != nil {
				s.setError(err)
			}
			s.flatAccount(o, nil)
			s.objects[o.addr] = nil
			continue
		}
		s.flatNew(o)
		if s.updateStorage(o) {
			rehash = append(rehash, o)
			if !o.inCommitList {
				o.inCommitList = true
				s.commitObjs = append(s.commitObjs, o)
			}
		}
		live = append(live, o)
	}
	hashStorage(rehash)
	for _, o := range live {
		s.encBuf = o.data.AppendRLP(s.encBuf[:0])
		if err := s.updateAccount(o.addr, s.encBuf); err != nil {
			s.setError(err)
		}
		s.flatAccount(o, s.encBuf)
	}
	clear(rehash)
	s.rehash = rehash[:0]
	clear(s.blockObjects)
	s.blockObjects = s.blockObjects[:0]
	return types.Hash(s.trie.Hash())
}

// hashStorage recomputes the storage roots of objs. The tries are
// independent, so with several of them the work is spread over the CPUs;
// the account trie can only be updated once all are done.
func hashStorage(objs []*stateObject) {
	workers := min(runtime.GOMAXPROCS(0), len(objs)/parallelStorageMin)
	if workers < 2 {
		for _, o := range objs {
			o.data.Root = o.storage.Hash()
		}
		return
	}
	var (
		next atomic.Int64
		wg   sync.WaitGroup
	)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := int(next.Add(1) - 1); i < len(objs); i = int(next.Add(1) - 1) {
				objs[i].data.Root = objs[i].storage.Hash()
			}
		}()
	}
	wg.Wait()
}

// parallelStorageMin is how many changed storage tries each extra hashing
// goroutine must have to be worth starting.
const parallelStorageMin = 8

// Commit computes the state root like IntermediateRoot and writes the new
// trie nodes and code to the database. Storage tries are written before
// the account trie, so the database never holds an account whose storage
// is missing. The StateDB stays usable.
func (s *StateDB) Commit(deleteEmpty bool) (types.Hash, error) {
	root := s.IntermediateRoot(deleteEmpty)
	if s.err != nil {
		return types.Hash{}, s.err
	}
	for _, o := range s.commitObjs {
		o.inCommitList = false
		if s.objects[o.addr] != o || o.storage == nil {
			continue
		}
		_, set := o.storage.Commit()
		if err := s.writeSet(set); err != nil {
			return types.Hash{}, err
		}
		o.trieDirty = false
	}
	clear(s.commitObjs)
	s.commitObjs = s.commitObjs[:0]
	if err := s.writeCode(); err != nil {
		return types.Hash{}, err
	}
	_, set := s.trie.Commit()
	if err := s.writeSet(set); err != nil {
		return types.Hash{}, err
	}
	if s.flat != nil {
		d := s.diff
		if d == nil {
			d = newDiff()
		}
		if err := s.flat.UpdateFlat(s.origRoot, root, d); err != nil {
			return types.Hash{}, err
		}
		s.diff = nil
	}
	s.origRoot = root
	return root, nil
}

func (s *StateDB) writeSet(set *trie.NodeSet) error {
	if set == nil {
		return nil
	}
	return s.db.Update(set)
}

func (s *StateDB) updateAccount(addr types.Address, enc []byte) error {
	if s.remote == nil {
		return secureUpdate(s.trie, addr[:], enc)
	}
	return s.withRemote(addr, nil, func() error { return secureUpdate(s.trie, addr[:], enc) })
}

// deleteAccount removes addr from the account trie; a partial state
// stores the empty account instead (see partialZero).
func (s *StateDB) deleteAccount(addr types.Address) error {
	if s.remote == nil {
		return secureDelete(s.trie, addr[:])
	}
	empty := newAccount()
	return s.updateAccount(addr, empty.AppendRLP(nil))
}
