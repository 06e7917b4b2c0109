package chain

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
)

// Incremental pruning: a pass costs what the blocks since the last one
// changed, never the size of the state.
//
// Trie nodes and code are stored by hash and shared (prune.go says how),
// so a node a block replaced may still sit elsewhere in a kept state. The
// pruner counts occurrences: for each canonical block b it walks the
// states of b-1 and b in step (stateDiff), and every stored node that b's
// state holds at a path where b-1's does not is one more occurrence
// (made), every one b-1 held where b does not is an occurrence that ends
// with b (dropped). A node's count is its occurrences made minus those
// ended in blocks whose parent's state is no longer kept:
//
//   - made: at once, for every block up to the head (counts in
//     prefixPruneCount), and b's dropped list is written as b's journal
//     (prefixPruneJournal) in the same batch;
//   - ended: once block b-1 falls out of the kept window, b's journal is
//     read and each node counted down; one at zero occurs in no kept
//     state (an occurrence in a kept state is either still in the head's
//     state, or ends in a block whose journal is not applied yet) and is
//     deleted with its count.
//
// The genesis state's nodes are pinned (prunepin.go) and never counted.
// A node without a count (pinned, or stored before counting began) is
// never deleted. Nodes written while a pass runs are tracked, as the
// mark-and-sweep pass does, and never deleted by it: a block after the
// head the pass counted may have made one again.
//
// Every batch carries the pass's position (keyPrune), so a crash loses
// nothing and the next pass resumes where the last one stopped: counting
// a block and writing its journal is one batch, and applying a journal is
// done in slices of at most pruneSlice nodes. A slice is two batches,
// neither written under a lock (prunedel.go): the counts down with the
// position and the list of nodes they brought to zero (keyPrunePending),
// then the deletes of those not written again meanwhile, with the list's
// removal. A list a crash left is finished by the next step once it has
// counted up to the head: a node on it whose count is above zero again
// was made again by a block since, and stays. A reorganisation below the counted
// head drops the orphaned blocks' journals and counts the new branch;
// what only the orphans made stays stored (nothing is ever deleted that
// a kept state might need).
//
// A store initialised before this scheme (no keyPrune) or a fork (whose
// state is partly upstream and uncounted) keeps the mark-and-sweep pass.

var (
	keyPrune           = []byte("m:prune")
	keyPrunePending    = []byte("m:prune-deletes") // hashes (32 each) a slice counted to zero, until deleted
	prefixPruneCount   = []byte("Pn")              // Pn + hash -> occurrences (uvarint)
	prefixPruneJournal = []byte("Pj")              // Pj + number(8) -> block hash(32) + hashes the block dropped (32 each)
)

// liveState is where incremental pruning stands: blocks up to created
// (whose hash was createdHash) are counted; journals up to applied (of
// block appliedHash) are applied, and off entries of journal applied+1.
type liveState struct {
	created     uint64
	createdHash types.Hash
	applied     uint64
	appliedHash types.Hash
	off         uint32
}

func (s liveState) encode() []byte {
	b := binary.BigEndian.AppendUint64(nil, s.created)
	b = append(b, s.createdHash[:]...)
	b = binary.BigEndian.AppendUint64(b, s.applied)
	b = append(b, s.appliedHash[:]...)
	return binary.BigEndian.AppendUint32(b, s.off)
}

func decodeLiveState(b []byte) (liveState, error) {
	if len(b) != 84 {
		return liveState{}, fmt.Errorf("chain: pruning state of %d bytes", len(b))
	}
	return liveState{created: binary.BigEndian.Uint64(b), createdHash: types.Hash(b[8:40]),
		applied: binary.BigEndian.Uint64(b[40:]), appliedHash: types.Hash(b[48:80]), off: binary.BigEndian.Uint32(b[80:])}, nil
}

// liveSlice bounds the journal entries one locked slice applies (a
// variable for the crash test, which wants several slices a journal).
var liveSlice = pruneSlice

// livePruner is a chain's incremental pruning: nil for a chain that
// keeps the mark-and-sweep pass.
type livePruner struct {
	mu  sync.Mutex // one pass at a time
	st  liveState
	pin *bloom // loaded by the first pass
	// journal is the journal being applied, read once for its slices.
	journal    []byte
	journalNum uint64
}

// openLive reads the pruning state; nil when the store has none.
func openLive(kv store.KV) (*livePruner, error) {
	v, err := kv.Get(keyPrune)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	st, err := decodeLiveState(v)
	if err != nil {
		return nil, err
	}
	return &livePruner{st: st}, nil
}

// Incremental reports whether the chain prunes incrementally (PruneStep)
// rather than by mark and sweep (Prune).
func (c *Chain) Incremental() bool { return c.live.Load() != nil }

// StepStats reports what a PruneStep did.
type StepStats struct {
	Counted int // blocks whose changes were counted
	Applied int // journals applied (blocks whose parent's state went)
	Made    int // occurrences counted up
	Ended   int // occurrences counted down
	Deleted int // nodes and code blobs removed
	// Held: the step stopped before the state of a block a read holds
	// (Chain.PinState).
	Held bool
	// Pauses and Waits are what the step may have made a commit wait,
	// as PruneStats's.
	Pauses, Waits []time.Duration
}

// MaxPause is the longest the step held the chain.
func (s StepStats) MaxPause() time.Duration {
	var m time.Duration
	for _, p := range s.Pauses {
		m = max(m, p)
	}
	return m
}

// ErrNotIncremental is returned by PruneStep on a chain that prunes by
// mark and sweep.
var ErrNotIncremental = errors.New("chain: this store prunes by mark and sweep")

// PruneStep brings incremental pruning up to the head: it counts the
// blocks not yet counted, then deletes what the states of blocks older
// than the last keep (the head included) alone held. It stops early,
// with what it did so far written, when stop is closed; the next step
// goes on from there.
func (c *Chain) PruneStep(keep uint64, stop <-chan struct{}) (StepStats, error) {
	lp := c.live.Load()
	if lp == nil {
		return StepStats{}, ErrNotIncremental
	}
	if !lp.mu.TryLock() {
		return StepStats{}, ErrPruneBusy
	}
	defer lp.mu.Unlock()
	if keep == 0 {
		keep = 1
	}
	if !c.db.startTracking() {
		return StepStats{}, ErrPruneBusy
	}
	defer c.db.stopTracking()
	var st StepStats
	// A change of branch while the step runs may make canonical a side
	// block stored before the step began, whose nodes it neither counted
	// nor tracked: no deletion is written after one (applySlice).
	epoch := c.reorgs.Load()
	if lp.pin == nil {
		pin, err := loadPinSet(c.db.kv)
		if err != nil {
			return st, err
		}
		lp.pin = pin
	}
	head := c.settledHead()
	if err := c.rewindLive(lp); err != nil {
		return st, err
	}
	for lp.st.created < head.Number() {
		if stopped(stop) {
			return st, nil
		}
		if err := c.countBlock(lp, lp.st.created+1, &st); err != nil {
			return st, err
		}
	}
	if err := c.resumeDeletes(epoch, &st); err != nil {
		return st, err
	}
	if head.Number()+1 <= keep {
		return st, nil
	}
	first := head.Number() + 1 - keep // the oldest state kept
	for lp.st.applied < min(first, lp.st.created) {
		if stopped(stop) {
			return st, nil
		}
		// The next journal ends the state of block applied: not while a
		// read holds it (statepin.go); a later step goes on.
		if ok, _ := c.pins.raiseFloor(lp.st.applied + 1); !ok {
			st.Held = true
			return st, nil
		}
		if err := c.applySlice(lp, epoch, &st); err != nil {
			return st, err
		}
	}
	return st, nil
}

func stopped(stop <-chan struct{}) bool {
	select {
	case <-stop:
		return true
	default:
		return false
	}
}

// ErrPruneRewound is returned by PruneStep when the chain went back
// below the states pruning already dropped (a development chain's rewind
// or reset): the counts no longer describe the chain, so the chain goes
// back to the mark-and-sweep pass, which needs none.
var ErrPruneRewound = errors.New("chain: the chain went back below the pruned states; pruning by mark and sweep from now on")

// rewindLive drops the journals of counted blocks that are no longer
// canonical (a reorganisation), back to the last one that is.
func (c *Chain) rewindLive(lp *livePruner) error {
	if h, ok := c.db.CanonicalHash(lp.st.created); ok && h == lp.st.createdHash {
		return nil
	}
	var b store.Batch
	st := lp.st
	n := st.created
	for ; n > st.applied; n-- {
		j, err := c.db.kv.Get(key(prefixPruneJournal, numKey(n)))
		if err == nil && len(j) >= 32 {
			if h, ok := c.db.CanonicalHash(n); ok && h == types.Hash(j[:32]) {
				st.createdHash = h
				break
			}
		}
		b.Delete(key(prefixPruneJournal, numKey(n)))
	}
	st.created = n
	if n == st.applied {
		if h, ok := c.db.CanonicalHash(n); !ok || h != st.appliedHash || st.off > 0 {
			// The chain left blocks whose journals were applied (in
			// part): occurrences they ended may go on in the new
			// branch, uncounted.
			b.Delete(keyPrune)
			b.Delete(keyPrunePending) // the sweep takes what it listed
			if err := c.db.kv.Write(&b); err != nil {
				return err
			}
			c.live.Store(nil)
			return ErrPruneRewound
		}
		st.createdHash = st.appliedHash
	}
	b.Put(keyPrune, st.encode())
	if err := c.db.kv.Write(&b); err != nil {
		return err
	}
	lp.st = st
	return nil
}

// countBlock counts the occurrences canonical block n made and writes
// the ones it ended as its journal.
func (c *Chain) countBlock(lp *livePruner, n uint64, st *StepStats) error {
	parent, err := c.BlockByNumber(n - 1)
	if err != nil {
		return fmt.Errorf("prune: block %d: %w", n-1, err)
	}
	blk, err := c.BlockByNumber(n)
	if err != nil {
		return fmt.Errorf("prune: block %d: %w", n, err)
	}
	if parent.Hash() != lp.st.createdHash || blk.ParentHash() != parent.Hash() {
		return ErrPruneBusy // the chain changed branch meanwhile: the next step rewinds first
	}
	made := map[[32]byte]uint64{}
	bh := blk.Hash()
	journal := append(make([]byte, 0, 32+32*64), bh[:]...)
	d := stateDiff{load: c.db.Node,
		made: func(h [32]byte) {
			if !lp.pin.has(h) {
				made[h]++
			}
		},
		dropped: func(h [32]byte) {
			if !lp.pin.has(h) {
				journal = append(journal, h[:]...)
			}
		}}
	if err := d.diff(c.stateRootOf(blk.Root()), c.stateRootOf(parent.Root())); err != nil {
		return fmt.Errorf("prune: states of blocks %d and %d: %w", n-1, n, err)
	}
	var b store.Batch
	for h, k := range made {
		cnt, err := c.pruneCount(h)
		if err != nil {
			return err
		}
		b.Put(key(prefixPruneCount, h[:]), binary.AppendUvarint(nil, cnt+k))
		st.Made += int(k)
	}
	b.Put(key(prefixPruneJournal, numKey(n)), journal)
	next := lp.st
	next.created, next.createdHash = n, bh
	b.Put(keyPrune, next.encode())
	if err := c.db.kv.Write(&b); err != nil {
		return err
	}
	lp.st = next
	st.Counted++
	return nil
}

// pruneCount is a node's count; 0 when it has none.
func (c *Chain) pruneCount(h [32]byte) (uint64, error) {
	v, err := c.db.kv.Get(key(prefixPruneCount, h[:]))
	if errors.Is(err, store.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n, k := binary.Uvarint(v)
	if k <= 0 {
		return 0, fmt.Errorf("chain: damaged pruning count of %x", h)
	}
	return n, nil
}

// applySlice applies the next at most pruneSlice entries of journal
// applied+1: counts down and moves the position in one batch, listing
// what reached zero, then deletes that (finishDeletes).
func (c *Chain) applySlice(lp *livePruner, epoch uint64, st *StepStats) error {
	num := lp.st.applied + 1
	if lp.journal == nil || lp.journalNum != num {
		j, err := c.db.kv.Get(key(prefixPruneJournal, numKey(num)))
		if errors.Is(err, store.ErrNotFound) {
			j = nil // counted before a crash, never journaled: nothing to end
		} else if err != nil {
			return err
		} else if len(j) < 32 || (len(j)-32)%32 != 0 {
			return fmt.Errorf("chain: damaged pruning journal of block %d", num)
		}
		lp.journal, lp.journalNum = j, num
	}
	entries := 0
	if len(lp.journal) >= 32 {
		entries = (len(lp.journal) - 32) / 32
	}
	from := int(lp.st.off)
	to := min(entries, from+liveSlice)
	ended := map[[32]byte]uint64{}
	for i := from; i < to; i++ {
		ended[[32]byte(lp.journal[32+32*i:])]++
	}
	var b store.Batch
	var doomed [][32]byte
	for h, k := range ended {
		cnt, err := c.pruneCount(h)
		if err != nil {
			return err
		}
		st.Ended += int(k)
		switch {
		case cnt == 0:
			// Never counted: stored before counting began. Kept.
		case cnt > k:
			b.Put(key(prefixPruneCount, h[:]), binary.AppendUvarint(nil, cnt-k))
		case cnt == k:
			b.Delete(key(prefixPruneCount, h[:]))
			doomed = append(doomed, h)
		default:
			// More ended than made: a count that cannot be trusted;
			// the node is kept.
			b.Delete(key(prefixPruneCount, h[:]))
		}
	}
	next := lp.st
	if to == entries {
		next.applied, next.off = num, 0
		if len(lp.journal) >= 32 {
			next.appliedHash = types.Hash(lp.journal[:32])
		} else if h, ok := c.db.CanonicalHash(num); ok {
			next.appliedHash = h
		}
		b.Delete(key(prefixPruneJournal, numKey(num)))
	} else {
		next.off = uint32(to)
	}
	b.Put(keyPrune, next.encode())
	if len(doomed) > 0 {
		list := make([]byte, 0, 32*len(doomed))
		for _, h := range doomed {
			list = append(list, h[:]...)
		}
		b.Put(keyPrunePending, list)
	}
	if c.reorgs.Load() != epoch {
		return ErrPruneBusy // the next step recounts the new branch first
	}
	if err := c.db.kv.Write(&b); err != nil {
		return err
	}
	lp.st = next
	if to == entries {
		st.Applied++
		lp.journal = nil
	}
	if len(doomed) == 0 {
		return nil
	}
	return c.finishDeletes(doomed, epoch, st)
}

// finishDeletes deletes the listed nodes (keyPrunePending) not written
// again since the step began, and the list with them.
func (c *Chain) finishDeletes(doomed [][32]byte, epoch uint64, st *StepStats) error {
	// A change of branch since the step began may make canonical a side
	// block stored before it, whose nodes it neither counted nor
	// tracked: no deletion is written after one.
	n, held, err := c.db.deleteNodes(doomed, func(b *store.Batch) { b.Delete(keyPrunePending) },
		func() bool { return c.reorgs.Load() == epoch })
	st.Deleted += n
	st.Pauses = append(st.Pauses, held)
	st.Waits = append(st.Waits, c.db.delWaits.take()...)
	return err
}

// resumeDeletes finishes the list of nodes a slice counted to zero and a
// crash (or a change of branch) left undeleted. Called once the step has
// counted up to the head: a node a block made again since has a count
// again, and stays.
func (c *Chain) resumeDeletes(epoch uint64, st *StepStats) error {
	v, err := c.db.kv.Get(keyPrunePending)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(v)%32 != 0 {
		return fmt.Errorf("chain: damaged list of pruned nodes (%d bytes)", len(v))
	}
	var doomed [][32]byte
	for i := 0; i < len(v); i += 32 {
		h := [32]byte(v[i:])
		cnt, err := c.pruneCount(h)
		if err != nil {
			return err
		}
		if cnt == 0 {
			doomed = append(doomed, h)
		}
	}
	return c.finishDeletes(doomed, epoch, st)
}
