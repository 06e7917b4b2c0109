package chain

import (
	"errors"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
)

// TestHistoryPrune: pruning the history index to the last blocks drops
// the lookups, totals and whole list chunks of the older ones, answers
// for them as for unknown transactions, and leaves every answer about
// the kept blocks, and the indexing of new ones, as before.
func TestHistoryPrune(t *testing.T) {
	g, c, sk := execFixture(t)
	from := types.Address(crypto.PubkeyToAddress(sk.PubKey()))
	full, err := Open(g, store.NewMem(), nil) // the same chain, never pruned
	if err != nil {
		t.Fatal(err)
	}
	var txs []types.Hash
	nonce := uint64(0)
	addBlock := func(i int) {
		var batch []*types.Transaction
		for k := 0; k < 5; k++ {
			tx := transfer(c, sk, nonce)
			nonce++
			batch = append(batch, tx)
			txs = append(txs, tx.Hash())
		}
		built, err := c.BuildBlock(BuildParams{Time: uint64(10 * (i + 1))}, batch)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.CommitBuilt(built); err != nil {
			t.Fatal(err)
		}
		if _, err := full.InsertBlock(built.Block); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 40; i++ { // 200 transactions: the sender's list fills 3 chunks
		addBlock(i)
	}
	const keep = 10
	cutoff := c.Head().Number() + 1 - keep // 31
	total := 0
	for {
		st, err := c.PruneHistory(keep, 7)
		if err != nil {
			t.Fatal(err)
		}
		if st.Blocks == 0 {
			break
		}
		total += st.Blocks
	}
	if from, _ := c.db.TxIndexFrom(); from != cutoff || total != int(cutoff) {
		t.Fatalf("index from %d after pruning %d blocks, want %d", from, total, cutoff)
	}
	firstKept := 5 * int(cutoff-1) // block 1 holds ordinals 0..4
	for i, h := range txs {
		_, _, ok := c.db.TxLookup(h)
		if ok != (i >= firstKept) {
			t.Fatalf("lookup of tx %d: %v", i, ok)
		}
		ref, err := c.db.TxAt(uint64(i))
		want, _ := full.db.TxAt(uint64(i))
		if i < firstKept {
			if !errors.Is(err, ErrNotFound) {
				t.Fatalf("TxAt(%d) of a pruned tx: %+v, %v", i, ref, err)
			}
		} else if err != nil || ref != want {
			t.Fatalf("TxAt(%d) = %+v, %v; want %+v", i, ref, err, want)
		}
		ref, err = c.db.AddressTxAt(from, uint64(i))
		if i < firstKept {
			if !errors.Is(err, ErrNotFound) {
				t.Fatalf("AddressTxAt(%d) of a pruned tx: %+v, %v", i, ref, err)
			}
		} else if err != nil || ref != want {
			t.Fatalf("AddressTxAt(%d) = %+v, %v; want %+v", i, ref, err, want)
		}
	}
	if n, _ := c.db.AddressTxCount(from); n != uint64(len(txs)) {
		t.Fatalf("list of %d entries, want %d", n, len(txs))
	}
	// Chunks 0 and 1 (entries 0..127, blocks 1..26) are gone; chunk 2 stays.
	for ch, want := range []bool{false, false, true} {
		if ok, _ := c.db.kv.Has(key(prefixAddrTx, from[:], numKey(uint64(ch)))); ok != want {
			t.Fatalf("chunk %d stored %v, want %v", ch, ok, want)
		}
	}
	for blk := cutoff; blk <= c.Head().Number()+1; blk++ {
		got, err := c.db.AddressTxCountBefore(from, blk)
		want, _ := full.db.AddressTxCountBefore(from, blk)
		if err != nil || got != want {
			t.Fatalf("AddressTxCountBefore(%d) = %d, %v; want %d", blk, got, err, want)
		}
	}
	// New blocks are indexed on top of the pruned index as without it.
	addBlock(40)
	n := uint64(len(txs) - 1)
	if got, err := c.db.TxAt(n); err != nil || got.Hash != txs[n] {
		t.Fatalf("TxAt of the newest: %+v, %v", got, err)
	}
	if got, err := c.db.AddressTxAt(from, n); err != nil || got.Hash != txs[n] {
		t.Fatalf("AddressTxAt of the newest: %+v, %v", got, err)
	}
}

// TestHistoryIndexIsCompact: the index costs a transaction its lookup and
// a fraction of a key per address, not a key per address and ordinal.
func TestHistoryIndexIsCompact(t *testing.T) {
	_, c, key := execFixture(t)
	for i := 0; i < 20; i++ {
		var batch []*types.Transaction
		for k := 0; k < 10; k++ {
			batch = append(batch, transfer(c, key, uint64(10*i+k)))
		}
		built, err := c.BuildBlock(BuildParams{Time: uint64(10 * (i + 1))}, batch)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.CommitBuilt(built); err != nil {
			t.Fatal(err)
		}
	}
	keys := 0
	c.db.kv.IterateKeys([]byte("x"), func(k []byte) bool {
		if k[1] != prefixTransfers[1] && k[1] != prefixTxCumul[1] { // one per block
			keys++
		}
		return true
	})
	// 200 transactions between two addresses: 4 chunks each, 2 list heads.
	if keys != 2*4+2 {
		t.Fatalf("%d history keys for 200 transactions", keys)
	}
}

// A history prune writes its deletions with no lock of the chain held:
// a block commits while the prune's deletions are being written (their
// fsync, held here), and indexes its transactions on top of the lists the prune
// moved, whose headers it finds staged (the commit extends the sender's
// list whose first chunks the prune dropped). Before, PruneHistory held
// the writer lock across its flush and the commit waited for it.
func TestCommitsDoNotWaitForAHistoryPrunesWrite(t *testing.T) {
	sk, from, g := fundedGenesis(30_000_000)
	kv := &heldBigKV{heldKV: heldKV{KV: store.NewMem()}}
	c, err := Open(g, kv, nil)
	if err != nil {
		t.Fatal(err)
	}
	build := transferBlocks(t, c, sk, 10)
	for range 20 { // 200 transactions: the sender's list fills 3 chunks of 64
		if err := c.CommitBuilt(build()); err != nil {
			t.Fatal(err)
		}
	}
	const keep = 5
	cutoff := c.Head().Number() + 1 - keep // 16: blocks 1..15 go, entries 0..149
	next := build()                        // its commit's batch is far below heldBig
	entered, release := kv.arm()
	pruned := make(chan error, 1)
	var st HistoryPruneStats
	go func() {
		var err error
		st, err = c.PruneHistory(keep, 100)
		pruned <- err
	}()
	select {
	case <-entered:
	case err := <-pruned:
		t.Fatalf("the prune wrote nothing: %v", err)
	}
	committed := make(chan error, 1)
	go func() { committed <- c.CommitBuilt(next) }()
	var cerr error
	select {
	case cerr = <-committed:
		close(release)
	case <-time.After(10 * time.Second):
		t.Error("a block's commit waited for the history prune's write")
		close(release)
		cerr = <-committed
	}
	if err := <-pruned; err != nil {
		t.Fatal(err)
	}
	if cerr != nil {
		t.Fatal(cerr)
	}
	if st.Blocks != int(cutoff) || st.From != cutoff {
		t.Fatalf("pruned %d blocks, index from %d; want %d from %d", st.Blocks, st.From, cutoff, cutoff)
	}
	if f, _ := c.db.TxIndexFrom(); f != cutoff {
		t.Fatalf("index from %d, want %d", f, cutoff)
	}
	l, err := (&indexBatch{db: c.db}).addrList(from)
	if err != nil || l.count != 210 || l.first != 2 {
		t.Fatalf("the sender's list %+v %v; want 210 entries from chunk 2", l, err)
	}
	for ch, want := range []bool{false, false, true, true} {
		if ok, _ := c.db.kv.Has(key(prefixAddrTx, from[:], numKey(uint64(ch)))); ok != want {
			t.Fatalf("chunk %d stored %v, want %v", ch, ok, want)
		}
	}
	for i, tx := range next.Block.Transactions() {
		if got, err := c.db.AddressTxAt(from, 200+uint64(i)); err != nil || got.Hash != tx.Hash() {
			t.Fatalf("AddressTxAt(%d) = %+v, %v", 200+i, got, err)
		}
	}
}

// heldBig is heldKV holding only a batch of at least heldBig operations:
// a prune's deletions (some 180 here), not a block's commit or the
// prune's swap (a few keys).
type heldBigKV struct{ heldKV }

const heldBig = 120

func (h *heldBigKV) Write(b *store.Batch) error {
	if b.Len() < heldBig {
		return h.KV.Write(b)
	}
	return h.heldKV.Write(b)
}
