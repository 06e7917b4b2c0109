package chain

import (
	"sync"
	"time"

	"github.com/chaind/chaind/internal/store"
)

// Pruning deletes stored nodes without holding the chain, and without
// holding the DB across a write: a batch of deletes waits for its fsync
// like any other, and a block commit (which holds the chain for its
// whole write) must not wait behind it.
//
// The one hazard is a node a block writes again (trie nodes are stored by
// hash, so a node pruning found dead may be made again by the next block)
// landing in the store before the delete does. Writers record every node
// they stage (db.track, under db.mu) before they write it, so deleteNodes
// works in three steps:
//
//  1. under db.mu: drop what was written again since the pass began, and
//     publish the rest as the set being deleted (db.deleting);
//  2. with no lock held: write the deletes (and fsync them);
//  3. clear the set.
//
// A writer that stages a node of the published set afterwards waits for
// step 2 to end before it writes (waitDeletes), so its copy lands after
// the delete; one that staged it before step 1 had it dropped from the
// set. Either way the node stays. Such a wait is the only pause the
// deletes can add to a commit, and happens only for a node made again
// within one pruning write; db.mu is held in step 1 for a filter over at
// most pruneSlice hashes.

// nodeDeletes is the set of nodes one deleteNodes call is deleting.
type nodeDeletes struct {
	set  map[[32]byte]struct{}
	done chan struct{} // closed once the deletes are written (or failed)
}

// has reports whether h is being deleted; a nil set has nothing.
func (d *nodeDeletes) has(h [32]byte) bool {
	if d == nil {
		return false
	}
	_, ok := d.set[h]
	return ok
}

// wait waits until the deletes are written.
func (d *nodeDeletes) wait() { <-d.done }

// deleteWaits records how long writers waited for deletes (waitDeletes),
// for the pruning step to report as pauses it caused.
type deleteWaits struct {
	mu    sync.Mutex
	waits []time.Duration
}

// maxDeleteWaits bounds the waits kept between two steps' reports.
const maxDeleteWaits = 1024

func (w *deleteWaits) add(d time.Duration) {
	w.mu.Lock()
	if len(w.waits) < maxDeleteWaits {
		w.waits = append(w.waits, d)
	}
	w.mu.Unlock()
}

func (w *deleteWaits) take() []time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.waits
	w.waits = nil
	return out
}

// onDeleteWait is called when a write starts waiting for deletes (a
// variable for the test that holds the deletes until it does).
var onDeleteWait = func() {}

// onDeleteLocked is called as deleteNodes takes db.mu and before it lets
// it go (a variable for the test that counts allocations in between).
var onDeleteLocked = func() {}

// waitDeletes makes the pending batch wait for the deletes in flight when
// it writes a node among them again. Called with db.mu held, before the
// pending batch is written.
func (db *DB) waitDeletes() {
	d := db.deleting.Load()
	if d == nil {
		return
	}
	for h := range d.set {
		if _, ok := db.overlay[h]; ok {
			start := time.Now()
			onDeleteWait()
			d.wait()
			db.delWaits.add(time.Since(start))
			return
		}
	}
}

// deleteNodes deletes the stored nodes hs except those written since the
// pruning pass began (db.track), in one batch with what extra adds, as
// the comment at the top of this file describes. valid, checked under
// db.mu before anything is published, may refuse the deletes (false:
// ErrPruneBusy, nothing written). It returns how many nodes it deleted
// and how long it held db.mu, the only lock a commit also takes.
func (db *DB) deleteNodes(hs [][32]byte, extra func(*store.Batch), valid func() bool) (int, time.Duration, error) {
	// The set is made before the lock and only shrinks under it: an
	// allocation there could be the one that makes this goroutine assist
	// the garbage collector, with every commit waiting.
	d := &nodeDeletes{set: make(map[[32]byte]struct{}, len(hs)), done: make(chan struct{})}
	for _, h := range hs {
		d.set[h] = struct{}{}
	}
	db.mu.Lock()
	start := time.Now()
	onDeleteLocked()
	if valid != nil && !valid() {
		db.mu.Unlock()
		return 0, 0, ErrPruneBusy
	}
	for h := range d.set {
		if _, ok := db.track[h]; ok {
			delete(d.set, h) // made again meanwhile: a later step counts it
			continue
		}
		delete(db.written, h) // not served once deleted
	}
	if len(d.set) > 0 {
		db.deleting.Store(d)
	}
	onDeleteLocked()
	held := time.Since(start)
	db.mu.Unlock()

	var b store.Batch
	var buf [maxKeyLen]byte
	for h := range d.set {
		b.Delete(append(append(buf[:0], prefixNode...), h[:]...))
	}
	if extra != nil {
		extra(&b)
	}
	err := db.kv.Write(&b)
	if len(d.set) > 0 {
		db.deleting.Store(nil)
	}
	close(d.done)
	// Out of the node cache too, outside mu: the cache's shard locks
	// are the readers', whose holders a loaded machine may deschedule.
	for h := range d.set {
		db.clean.Drop(h)
	}
	if err != nil {
		return 0, held, err
	}
	return len(d.set), held, nil
}
