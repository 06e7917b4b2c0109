package chain

import (
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// heldKV holds the first write after arm until the test releases it: a
// block's fsync that takes as long as the test likes.
type heldKV struct {
	store.KV
	mu      sync.Mutex
	entered chan struct{}
	release chan struct{}
}

func (h *heldKV) arm() (entered, release chan struct{}) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.entered, h.release = make(chan struct{}), make(chan struct{})
	return h.entered, h.release
}

func (h *heldKV) Write(b *store.Batch) error {
	h.mu.Lock()
	entered, release := h.entered, h.release
	h.entered, h.release = nil, nil
	h.mu.Unlock()
	if entered != nil {
		close(entered)
		<-release
	}
	return h.KV.Write(b)
}

// While a block's batch is being written (its fsync), readers of the head
// and of trie nodes — the block's own new nodes included — go on: the
// head is the parent's until the block is stored, and nodes come from the
// batch in flight. Without the chain's writer lock apart from the head's,
// Head waits for the whole commit; with the DB's lock held across the
// write, every node read does.
func TestReadersDoNotWaitForACommitsWrite(t *testing.T) {
	key, _, g := fundedGenesis(30_000_000)
	kv := &heldKV{KV: store.NewMem()}
	c, err := Open(g, kv, nil)
	if err != nil {
		t.Fatal(err)
	}
	to := types.Address{0x42}
	tx := types.MustSignNewTx(key, c.Config.Signer(1, 1), &types.DynamicFeeTx{ChainID: *uint256.NewInt(8118),
		GasTipCap: *uint256.NewInt(1), GasFeeCap: *uint256.NewInt(2e9), Gas: 21000, To: &to, Value: *uint256.NewInt(1)})
	built, err := c.BuildBlock(BuildParams{Time: 10}, []*types.Transaction{tx})
	if err != nil {
		t.Fatal(err)
	}
	newRoot, oldRoot := built.Block.Root(), c.Genesis().Root()
	if newRoot == oldRoot {
		t.Fatal("the block changes no state: the test covers nothing")
	}
	entered, release := kv.arm()
	committed := make(chan error, 1)
	go func() { committed <- c.CommitBuilt(built) }()
	<-entered
	reads := []struct {
		name string
		read func() error
	}{
		{"the head", func() error {
			if n := c.Head().Number(); n != 0 {
				t.Errorf("head %d before block 1 is stored", n)
			}
			return nil
		}},
		{"the block's new root node", func() error { _, err := c.db.Node(newRoot); return err }},
		{"a stored node", func() error { _, err := c.db.Node(oldRoot); return err }},
	}
	for _, r := range reads {
		done := make(chan error, 1)
		go func() { done <- r.read() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("reading %s during the block's write: %v", r.name, err)
			}
		case <-time.After(10 * time.Second):
			t.Errorf("reading %s waited for the block's write", r.name)
		}
	}
	close(release)
	if err := <-committed; err != nil {
		t.Fatal(err)
	}
	if n := c.Head().Number(); n != 1 {
		t.Fatalf("head %d after the commit", n)
	}
	if _, err := c.db.Node(newRoot); err != nil {
		t.Fatalf("the block's root node after the write: %v", err)
	}
}

// deleteNodes makes nothing on the heap while it holds db.mu, the lock a
// block's commit takes too: an allocation there may be the one that has
// the pruner assist the garbage collector while commits wait.
func TestDeleteNodesAllocatesNothingLocked(t *testing.T) {
	db := NewDB(store.NewMem())
	db.startTracking()
	defer db.stopTracking()
	hs := make([][32]byte, pruneSlice)
	for i := range hs {
		hs[i] = [32]byte{byte(i >> 8), byte(i), 0x5e}
	}
	db.track[hs[3]] = struct{}{} // written again: skipped under the lock
	defer func(f func()) { onDeleteLocked = f }(onDeleteLocked)
	var ms runtime.MemStats
	var at [2]uint64
	calls := 0
	onDeleteLocked = func() {
		runtime.ReadMemStats(&ms)
		at[calls%2] = ms.Mallocs
		calls++
	}
	n, _, err := db.deleteNodes(hs, nil, nil)
	if err != nil || n != len(hs)-1 {
		t.Fatalf("deleteNodes: %d deleted, %v; want %d", n, err, len(hs)-1)
	}
	if calls != 2 {
		t.Fatalf("the hook ran %d times", calls)
	}
	if d := at[1] - at[0]; d != 0 {
		t.Fatalf("%d allocations while db.mu was held", d)
	}
}
