package chain

import (
	"errors"
	"fmt"
	"math/rand"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/trie"
	"github.com/holiman/uint256"
)

// walkStored walks the whole state at root from the store itself (no
// cache can hide a deleted node) and returns how many nodes it holds.
func walkStored(c *Chain, root types.Hash) (int, error) {
	n := 0
	d := stateDiff{load: func(h [32]byte) ([]byte, error) {
		v, err := c.db.kv.Get(key(prefixNode, h[:]))
		if errors.Is(err, store.ErrNotFound) {
			return nil, trie.MissingNode(h)
		}
		return v, err
	}, made: func([32]byte) { n++ }, dropped: func([32]byte) {}}
	err := d.diff(root, types.Hash{})
	return n, err
}

// pruneModes are the two pruning passes, each brought up to the head.
var pruneModes = []struct {
	name  string
	setup func(h *liveHarness)
	prune func(t *testing.T, h *liveHarness, keep uint64) (held bool)
}{
	{"incremental", func(*liveHarness) {}, func(t *testing.T, h *liveHarness, keep uint64) bool {
		return h.step(keep).Held
	}},
	{"mark and sweep", func(h *liveHarness) { h.c.live.Store(nil) }, func(t *testing.T, h *liveHarness, keep uint64) bool {
		if _, err := h.c.Prune(keep); err != nil {
			t.Fatal(err)
		}
		return false
	}},
}

// A state pinned by a reader survives every pruning pass while it is
// pinned, though it fell out of the kept window; released, the next pass
// drops it and a new pin is refused with ErrStatePruned.
func TestPinnedStateSurvivesPruning(t *testing.T) {
	const keep = 2
	for _, mode := range pruneModes {
		t.Run(mode.name, func(t *testing.T) {
			h := newLiveHarness(t, 100)
			mode.setup(h)
			rng := rand.New(rand.NewSource(3))
			blocks := func(k int) (held bool) {
				for range k {
					h.block(h.tx(h.plain[rng.Intn(len(h.plain))], 1, nil), h.slot(rng.Intn(2), byte(rng.Intn(6)), byte(1+rng.Intn(3))))
					held = mode.prune(t, h, keep) || held
				}
				return held
			}
			blocks(4)
			oldest := h.c.Head().Number() + 1 - keep
			b, err := h.c.BlockByNumber(oldest)
			if err != nil {
				t.Fatal(err)
			}
			st, release, err := h.c.StateAtBlock(oldest, b.Root())
			if err != nil {
				t.Fatalf("pinning the oldest kept state: %v", err)
			}
			want := st.GetBalance(h.plain[0]).Clone()
			nodes, err := walkStored(h.c, b.Root())
			if err != nil {
				t.Fatal(err)
			}
			held := blocks(4)
			if got, err := walkStored(h.c, b.Root()); err != nil || got != nodes {
				t.Fatalf("pinned state of block %d after pruning: %d of %d nodes, %v", oldest, got, nodes, err)
			}
			if got := st.GetBalance(h.plain[0]); !got.Eq(want) || st.Error() != nil {
				t.Fatalf("pinned state read %s (%v), want %s", got, st.Error(), want)
			}
			if mode.name == "incremental" && !held {
				t.Error("no step reported being held by the pin")
			}
			again, err := h.c.PinState(oldest)
			if err != nil {
				t.Fatalf("a second pin of a pinned state: %v", err)
			}
			release()
			release() // a second call does nothing
			blocks(1)
			if _, err := walkStored(h.c, b.Root()); err != nil {
				t.Fatalf("still pinned once: %v", err)
			}
			again()
			blocks(1)
			if _, err := walkStored(h.c, b.Root()); !errors.Is(err, trie.ErrMissingNode) {
				t.Fatalf("released state walked with %v, want it pruned", err)
			}
			if _, err := h.c.PinState(oldest); !errors.Is(err, ErrStatePruned) {
				t.Fatalf("pinning a pruned state: %v, want ErrStatePruned", err)
			}
			if _, _, err := h.c.StateAtBlock(oldest, b.Root()); !errors.Is(err, ErrStatePruned) {
				t.Fatalf("opening a pruned state: %v, want ErrStatePruned", err)
			}
			if err := h.c.StateKept(oldest); !errors.Is(err, ErrStatePruned) {
				t.Fatalf("StateKept of a pruned state: %v", err)
			}
			if _, err := h.c.PinState(h.c.Genesis().Number()); err != nil {
				t.Fatalf("the genesis state is always kept: %v", err)
			}
			if err := h.c.StateKept(h.c.Head().Number()); err != nil {
				t.Fatalf("StateKept of the head: %v", err)
			}
		})
	}
}

// A reader walking the oldest kept state while blocks come and the
// pruner runs either reads all of it, with the values it had, or is
// refused with ErrStatePruned; never a missing node half way, never a
// wrong value.
func TestReaderOfOldestStateWhilePruning(t *testing.T) {
	const keep = 2
	for _, mode := range pruneModes {
		t.Run(mode.name, func(t *testing.T) {
			h := newLiveHarness(t, 100)
			mode.setup(h)
			var balances sync.Map // block number -> the balance of plain[0] after it
			record := func() {
				st, err := h.c.StateAt(h.c.Head().Root())
				if err != nil {
					t.Fatal(err)
				}
				balances.Store(h.c.Head().Number(), st.GetBalance(h.plain[0]).Clone())
			}
			record()
			var stop atomic.Bool
			var walks, refused atomic.Int64
			errs := make(chan error, 1)
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				for !stop.Load() {
					head := h.c.Head().Number()
					oldest := head + 1 - min(keep, head+1)
					b, err := h.c.BlockByNumber(oldest)
					if err != nil {
						errs <- err
						return
					}
					st, release, err := h.c.StateAtBlock(oldest, b.Root())
					if errors.Is(err, ErrStatePruned) {
						refused.Add(1)
						continue
					}
					if err != nil {
						errs <- err
						return
					}
					_, werr := walkStored(h.c, b.Root())
					got := st.GetBalance(h.plain[0])
					rerr := st.Error()
					release()
					want, _ := balances.Load(oldest)
					switch {
					case werr != nil:
						errs <- werr
						return
					case rerr != nil:
						errs <- rerr
						return
					case !got.Eq(want.(*uint256.Int)):
						errs <- fmt.Errorf("pinned state of block %d read balance %s, want %s", oldest, got, want)
						return
					}
					walks.Add(1)
				}
			}()
			for i := range 40 {
				h.block(h.tx(h.plain[0], 1, nil), h.slot(i%2, byte(i%6), byte(1+i%3)))
				record()
				mode.prune(t, h, keep)
			}
			stop.Store(true)
			wg.Wait()
			select {
			case err := <-errs:
				t.Fatal(err)
			default:
			}
			if walks.Load() == 0 {
				t.Fatal("the reader never walked a state")
			}
			t.Logf("%d walks, %d refused", walks.Load(), refused.Load())
		})
	}
}
