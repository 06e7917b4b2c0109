package chain

import (
	"bytes"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
)

var errSwapWrite = errors.New("injected: swap write failed")

// swapFailKV fails the next small write (a history prune's swap: the
// index start and a few list headers) once armed, after a block's commit
// has read the list chunk named by watch: by then the commit has read the
// list headers the swap staged and will store what it derived from them.
type swapFailKV struct {
	store.KV
	mu      sync.Mutex
	watch   []byte
	entered chan struct{} // closed when the swap's write began
	read    chan struct{} // closed when the watched chunk was read
}

func (s *swapFailKV) arm(watch []byte) (entered chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.watch, s.entered, s.read = watch, make(chan struct{}), make(chan struct{})
	return s.entered
}

func (s *swapFailKV) Get(k []byte) ([]byte, error) {
	s.mu.Lock()
	if s.watch != nil && bytes.Equal(k, s.watch) {
		close(s.read)
		s.watch = nil
	}
	s.mu.Unlock()
	return s.KV.Get(k)
}

func (s *swapFailKV) Write(b *store.Batch) error {
	s.mu.Lock()
	entered, read := s.entered, s.read
	if b.Len() > 8 { // a block's commit: far more
		entered = nil
	}
	if entered != nil {
		s.entered = nil
	}
	s.mu.Unlock()
	if entered == nil {
		return s.KV.Write(b)
	}
	close(entered)
	<-read
	return errSwapWrite
}

// TestHistorySwapWriteFails: a prune's swap write fails after a block's
// commit read the list header it staged (moved past the chunks the prune
// drops) and stored it with the block. The list's first chunks are then
// below its header, its index start unmoved: the next prune finds them and
// deletes them, instead of leaving them stored for good.
func TestHistorySwapWriteFails(t *testing.T) {
	sk, from, g := fundedGenesis(30_000_000)
	kv := &swapFailKV{KV: store.NewMem()}
	c, err := Open(g, kv, nil)
	if err != nil {
		t.Fatal(err)
	}
	build := transferBlocks(t, c, sk, 10)
	for range 20 { // 200 transactions: the sender's list fills chunks 0..3 of 64
		if err := c.CommitBuilt(build()); err != nil {
			t.Fatal(err)
		}
	}
	const keep = 5
	cutoff := c.Head().Number() + 1 - keep // 16: blocks 1..15 go, entries 0..149, chunks 0 and 1
	next := build()
	entered := kv.arm(key(prefixAddrTx, from[:], numKey(3))) // the chunk the commit extends
	pruned := make(chan error, 1)
	go func() {
		_, err := c.PruneHistory(keep, 100)
		pruned <- err
	}()
	select {
	case <-entered:
	case err := <-pruned:
		t.Fatalf("the prune wrote no swap: %v", err)
	}
	if err := c.CommitBuilt(next); err != nil {
		t.Fatal(err)
	}
	if err := <-pruned; !errors.Is(err, errSwapWrite) {
		t.Fatalf("prune: %v, want the swap's write error", err)
	}
	l, err := (&indexBatch{db: c.db}).addrList(from)
	if err != nil || l.first != 2 || l.count != 210 {
		t.Fatalf("list %+v, %v; want the header the commit stored (from chunk 2, 210 entries)", l, err)
	}
	if f, _ := c.db.TxIndexFrom(); f >= cutoff {
		t.Fatalf("index start %d moved though the swap failed", f)
	}
	for {
		st, err := c.PruneHistory(keep, 100)
		if err != nil {
			t.Fatal(err)
		}
		if st.Blocks == 0 {
			break
		}
	}
	if f, _ := c.db.TxIndexFrom(); f != c.Head().Number()+1-keep {
		t.Fatalf("index from %d, want %d", f, c.Head().Number()+1-keep)
	}
	for ch, want := range []bool{false, false, true, true} {
		if ok, _ := c.db.kv.Has(key(prefixAddrTx, from[:], numKey(uint64(ch)))); ok != want {
			t.Errorf("chunk %d stored %v, want %v", ch, ok, want)
		}
	}
	for i, tx := range next.Block.Transactions() {
		if got, err := c.db.AddressTxAt(from, 200+uint64(i)); err != nil || got.Hash != tx.Hash() {
			t.Fatalf("AddressTxAt(%d) = %+v, %v", 200+i, got, err)
		}
	}
}

// failBigKV fails its next write of at least 50 operations once armed: a
// history prune's deletions, not its swap.
type failBigKV struct {
	store.KV
	armed atomic.Bool
}

func (f *failBigKV) Write(b *store.Batch) error {
	if b.Len() >= 50 && f.armed.CompareAndSwap(true, false) {
		return errSwapWrite
	}
	return f.KV.Write(b)
}

// TestHistoryDeletesWriteFails: a prune's swap is written (the index
// starts at the cutoff, the lists' headers moved) and its deletions fail.
// The next pass, on the same chain or on the store opened again, writes
// them first: the pruned transactions are unknown, their list chunks gone.
func TestHistoryDeletesWriteFails(t *testing.T) {
	for _, reopen := range []bool{false, true} {
		sk, from, g := fundedGenesis(30_000_000)
		kv := &failBigKV{KV: store.NewMem()}
		c, err := Open(g, kv, nil)
		if err != nil {
			t.Fatal(err)
		}
		var txs []*types.Transaction
		for i := range 20 { // 200 transactions, chunks 0..3
			var batch []*types.Transaction
			for range 10 {
				batch = append(batch, transfer(c, sk, uint64(len(txs)+len(batch))))
			}
			built, err := c.BuildBlock(BuildParams{Time: uint64(10 * (i + 1))}, batch)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.CommitBuilt(built); err != nil {
				t.Fatal(err)
			}
			txs = append(txs, batch...)
		}
		const keep = 5
		cutoff := c.Head().Number() + 1 - keep // 16: blocks 1..15, transactions 0..149
		kv.armed.Store(true)
		if _, err := c.PruneHistory(keep, 100); !errors.Is(err, errSwapWrite) {
			t.Fatalf("prune: %v, want the deletions' write error", err)
		}
		if f, _ := c.db.TxIndexFrom(); f != cutoff {
			t.Fatalf("index from %d after the swap, want %d", f, cutoff)
		}
		if _, _, ok := c.db.TxLookup(txs[0].Hash()); !ok {
			t.Fatal("the failed deletions were written")
		}
		if reopen {
			if c, err = Open(g, kv, nil); err != nil {
				t.Fatal(err)
			}
		}
		if st, err := c.PruneHistory(keep, 100); err != nil || st.Blocks != 0 {
			t.Fatalf("next pass: %+v, %v", st, err)
		}
		for i, tx := range txs {
			if _, _, ok := c.db.TxLookup(tx.Hash()); ok != (i >= 150) {
				t.Fatalf("reopen %v: lookup of tx %d: %v", reopen, i, ok)
			}
		}
		for ch, want := range []bool{false, false, true, true} {
			if ok, _ := c.db.kv.Has(key(prefixAddrTx, from[:], numKey(uint64(ch)))); ok != want {
				t.Errorf("reopen %v: chunk %d stored %v, want %v", reopen, ch, ok, want)
			}
		}
		if ok, _ := c.db.kv.Has(keyTxIndexPruned); ok {
			t.Errorf("reopen %v: the record of the unfinished pass stays", reopen)
		}
	}
}
