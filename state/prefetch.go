package state

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/trie"
)

// A block's state root is computed once its transactions have run
// (IntermediateRoot): every account and slot they changed is written into
// the tries, and each write first loads the trie nodes on its key's path.
// Execution reads the flat copy and never walks those paths, so on a large
// state the root is mostly node loads made one after the other, each a
// store read when the node is not cached.
//
// A prefetcher walks those paths while the block still executes: as each
// transaction ends (Finalise) the StateDB hands it the accounts and slots
// first changed in the block, and a goroutine looks them up in tries of
// its own, opened on the same roots, which keep the nodes they load. At
// the first IntermediateRoot it is stopped, and where the StateDB's tries
// still hold exactly the roots the prefetcher's do, the prefetcher's (with
// the paths loaded) take their place (go-ethereum's trie prefetcher does
// the same). It only reads: a path it did not reach is loaded by
// IntermediateRoot as before, and a read it failed is met there too.

// maxPrefetchQueue bounds the keys waiting for the prefetcher (about 56
// bytes each); keys beyond it are left to IntermediateRoot.
const maxPrefetchQueue = 1 << 16

// prefetchKey is an account (isSlot false) or one of its slots to load.
type prefetchKey struct {
	addr   types.Address
	slot   types.Hash
	isSlot bool
}

type prefetcher struct {
	db   trie.Reader
	root types.Hash

	mu      sync.Mutex
	queue   []prefetchKey
	waiting atomic.Int64  // keys queued and not yet looked up
	wake    chan struct{} // one wake-up pending at most
	quit    chan struct{}
	done    chan struct{}
	stopped atomic.Bool

	// The goroutine's until done is closed; then the StateDB's.
	acct    *trie.Trie
	storage map[types.Address]*prefetchedStorage
	left    []prefetchKey // keys queued and not looked up when it stopped
}

// prefetchedStorage is an account's storage trie as the prefetcher
// opened it: on root, the account's storage root in the opened state.
type prefetchedStorage struct {
	root types.Hash
	t    *trie.Trie // nil: no storage, or it could not be opened
}

// Prefetch starts loading, in the background, the trie paths of the
// accounts and slots changed from now on, until the first IntermediateRoot
// (see above). A StateDB that reads from a remote (a fork's) or has
// changed its account trie already does not prefetch. A Prefetch must be
// followed by IntermediateRoot (or Commit) or StopPrefetch, which end the
// goroutine.
func (s *StateDB) Prefetch() {
	if s.prefetch != nil || s.remote != nil || s.trieChanged {
		return
	}
	t, err := trie.New(s.origRoot, s.db)
	if err != nil {
		return // IntermediateRoot meets it
	}
	p := &prefetcher{
		db: s.db, root: s.origRoot, acct: t, storage: map[types.Address]*prefetchedStorage{},
		wake: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{}),
	}
	s.prefetch = p
	go p.run()
}

// StopPrefetch stops the prefetcher, if one runs, and drops what it
// loaded.
func (s *StateDB) StopPrefetch() {
	if p := s.prefetch; p != nil {
		s.prefetch = nil
		p.stop()
	}
}

// queuePrefetch collects o's keys new to the block: the account on its
// first change in it, and the slots the transaction wrote that no earlier
// one did. Called by Finalise before o's writes move to pending.
func (s *StateDB) queuePrefetch(o *stateObject) {
	if !o.inBlockList {
		s.pfKeys = append(s.pfKeys, prefetchKey{addr: o.addr})
	}
	for _, k := range o.dirtyKeys {
		if sl := o.slots[k]; sl != nil && sl.flags&(isDirty|hasPending) == isDirty {
			s.pfKeys = append(s.pfKeys, prefetchKey{addr: o.addr, slot: k, isSlot: true})
		}
	}
}

// usePrefetched stops the prefetcher and puts its tries in place of the
// StateDB's where those still hold the roots it opened.
func (s *StateDB) usePrefetched() {
	p := s.prefetch
	if p == nil {
		return
	}
	s.prefetch = nil
	p.stop()
	if !s.trieChanged && p.root == s.origRoot {
		s.trie = p.acct
		warmAccounts(s.db, p.root, p.left)
	}
	for a, st := range p.storage {
		o := s.objects[a]
		if o == nil || st.t == nil {
			continue
		}
		switch {
		case o.storage == nil && !o.incarnated && o.data.Root == st.root:
			o.storage, o.storageOrigin, o.storageClean = st.t, st.root, true
		case o.storage != nil && o.storageClean && o.storageOrigin == st.root:
			o.storage = st.t
		}
	}
}

// push queues keys for the goroutine, as many as the bound leaves room
// for, and wakes it.
func (p *prefetcher) push(keys []prefetchKey) {
	p.mu.Lock()
	n := min(len(keys), maxPrefetchQueue-len(p.queue))
	if n > 0 {
		p.queue = append(p.queue, keys[:n]...)
		p.waiting.Add(int64(n))
	}
	p.mu.Unlock()
	if n > 0 {
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
}

// stop ends the goroutine; p.left then holds the keys it did not reach.
func (p *prefetcher) stop() {
	p.stopped.Store(true)
	close(p.quit)
	<-p.done
	p.mu.Lock()
	p.left = append(p.left, p.queue...)
	p.queue = nil
	p.mu.Unlock()
}

func (p *prefetcher) run() {
	defer close(p.done)
	var batch []prefetchKey
	for {
		p.mu.Lock()
		batch, p.queue = p.queue, batch[:0]
		p.mu.Unlock()
		for i := range batch {
			if p.stopped.Load() {
				p.left = batch[i:] // batch's array is no longer the queue's
				return
			}
			p.fetch(&batch[i])
			p.waiting.Add(-1)
		}
		if len(batch) > 0 {
			continue
		}
		select {
		case <-p.wake:
		case <-p.quit:
			return
		}
	}
}

// fetch loads the path of one key. Errors are left for IntermediateRoot,
// which reads the same nodes.
func (p *prefetcher) fetch(k *prefetchKey) {
	var hk [32]byte
	if !k.isSlot {
		crypto.HashInto(&hk, k.addr[:])
		p.acct.Get(hk[:])
		return
	}
	st, ok := p.storage[k.addr]
	if !ok {
		st = &prefetchedStorage{}
		p.storage[k.addr] = st
		crypto.HashInto(&hk, k.addr[:])
		if enc, err := p.acct.Get(hk[:]); err == nil && len(enc) > 0 {
			if a, err := DecodeAccount(enc); err == nil && a.Root != EmptyRoot {
				if t, err := trie.New(a.Root, p.db); err == nil {
					st.root, st.t = a.Root, t
				}
			}
		}
	}
	if st.t != nil {
		crypto.HashInto(&hk, k.slot[:])
		st.t.Get(hk[:])
	}
}

// warmAccounts loads the account trie paths of the keys the prefetcher
// did not reach, so that their nodes are in the database's node cache
// when IntermediateRoot's updates, one after the other, walk the same
// paths. At 10M accounts a block of 9,000 transfers to new accounts
// stopped the prefetcher with most of its keys left (execution outruns
// it), and the updates then waited for some two store reads each, one at
// a time. Slots are left to IntermediateRoot (their tries are the
// prefetcher's).
func warmAccounts(db trie.Reader, root types.Hash, keys []prefetchKey) {
	if warmWorkers(len(keys)) < 2 {
		return // on this goroutine it would be what IntermediateRoot does anyway
	}
	warmPaths(db, root, len(keys), func(i int) *types.Address {
		if keys[i].isSlot {
			return nil
		}
		return &keys[i].addr
	})
}

// WarmAccountPaths reads the paths of addrs in the account trie at root
// so that their nodes are in db's node cache (if it keeps one) when a
// block writes those accounts: the pool's warmer, for the accounts of the
// transactions it admits. It goes as warmAccounts does, on several
// goroutines when there are enough addresses: at 10M accounts one
// goroutine, two store reads a recipient, fell behind a pool admitting
// thousands of transfers a second, and the blocks met the paths it had not
// reached cold. A goroutine stops at its first error (a missing node: a
// fork's upstream state, a pruned root), which the block that reads the
// same nodes meets itself.
func WarmAccountPaths(db trie.Reader, root types.Hash, addrs []types.Address) {
	warmPaths(db, root, len(addrs), func(i int) *types.Address { return &addrs[i] })
}

// warmPaths reads the account paths of n addresses (addr(i) nil: none for
// i) in tries of its own opened on root, on up to GOMAXPROCS goroutines,
// at least warmMin addresses each; fewer than that are read on the
// caller's goroutine, where the trie nodes cost no hand-over.
func warmPaths(db trie.Reader, root types.Hash, n int, addr func(i int) *types.Address) {
	workers := max(1, warmWorkers(n))
	var (
		next atomic.Int64
		wg   sync.WaitGroup
	)
	work := func() {
		t, err := trie.New(root, db)
		if err != nil {
			return // the block meets it
		}
		var hk [32]byte
		for i := next.Add(1) - 1; i < int64(n); i = next.Add(1) - 1 {
			if a := addr(int(i)); a != nil && loadAccountPath(t, &hk, a) != nil {
				return // an error is the block's to meet
			}
		}
	}
	for range workers - 1 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			work()
		}()
	}
	work()
	wg.Wait()
}

// warmWorkers is how many goroutines warm n addresses.
func warmWorkers(n int) int { return min(runtime.GOMAXPROCS(0), n/warmMin) }

// warmMin is the addresses per goroutine below which warming takes no
// more goroutines: a few paths are not worth them.
const warmMin = 64

// loadAccountPath reads addr's path in the account trie t (hk is scratch
// for its hashed key).
func loadAccountPath(t *trie.Trie, hk *[32]byte, addr *types.Address) error {
	crypto.HashInto(hk, addr[:])
	_, err := t.Get(hk[:])
	return err
}
