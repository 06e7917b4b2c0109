package chain

import (
	"errors"
	"testing"

	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// TestHistoryIndex: every transaction gets the next ordinal, and each
// address lists exactly the transactions that send to, come from or
// create it, in chain order, on the proposer and on a follower alike.
func TestHistoryIndex(t *testing.T) {
	key, from, g := fundedGenesis(30_000_000)
	proposer, err := Open(g, &indexWatchedKV{KV: store.NewMem(), t: t}, nil)
	if err != nil {
		t.Fatal(err)
	}
	follower, err := Open(g, store.NewMem(), nil)
	if err != nil {
		t.Fatal(err)
	}
	signer := proposer.Config.Signer(1, 1)
	a, b := types.Address{0xa}, types.Address{0xb}
	nonce := uint64(0)
	mk := func(to *types.Address) *types.Transaction {
		gas := uint64(21000)
		if to == nil {
			gas = 60000
		}
		tx := types.MustSignNewTx(key, signer, &types.DynamicFeeTx{ChainID: *uint256.NewInt(8118), Nonce: nonce,
			GasTipCap: *uint256.NewInt(1), GasFeeCap: *uint256.NewInt(2e9), Gas: gas, To: to, Value: *uint256.NewInt(1)})
		nonce++
		return tx
	}
	self := from
	blocks := [][]*types.Transaction{
		{mk(&a), mk(&b)},
		{},
		{mk(nil), mk(&a), mk(&self)},
	}
	var all []types.Hash
	for i, txs := range blocks {
		built, err := proposer.BuildBlock(BuildParams{Time: uint64(10 * (i + 1))}, txs)
		if err != nil {
			t.Fatal(err)
		}
		if err := proposer.CommitBuilt(built); err != nil {
			t.Fatal(err)
		}
		if _, err := follower.InsertBlock(built.Block); err != nil {
			t.Fatal(err)
		}
		for _, tx := range txs {
			all = append(all, tx.Hash())
		}
	}
	created := types.CreateAddress(from, 2)
	for name, c := range map[string]*Chain{"proposer": proposer, "follower": follower} {
		db := c.DB()
		for n, want := range []uint64{0, 2, 2, 5} {
			got, err := db.TxCountThrough(uint64(n))
			if err != nil || got != want {
				t.Errorf("%s: TxCountThrough(%d) = %d, %v; want %d", name, n, got, err, want)
			}
		}
		if _, err := db.TxCountThrough(9); !errors.Is(err, ErrNotIndexed) {
			t.Errorf("%s: TxCountThrough past the head: %v", name, err)
		}
		for i, h := range all {
			ref, err := db.TxAt(uint64(i))
			if err != nil || ref.Hash != h {
				t.Errorf("%s: TxAt(%d) = %+v, %v", name, i, ref, err)
			}
		}
		if _, err := db.TxAt(uint64(len(all))); !errors.Is(err, ErrNotFound) {
			t.Errorf("%s: TxAt past the end: %v", name, err)
		}
		for addr, want := range map[types.Address][]types.Hash{
			from:    all, // the self-transfer is listed once
			a:       {all[0], all[3]},
			b:       {all[1]},
			created: {all[2]},
			{0xff}:  nil,
		} {
			n, err := db.AddressTxCount(addr)
			if err != nil || n != uint64(len(want)) {
				t.Errorf("%s: AddressTxCount(%s) = %d, %v; want %d", name, addr, n, err, len(want))
				continue
			}
			for i, h := range want {
				if ref, err := db.AddressTxAt(addr, uint64(i)); err != nil || ref.Hash != h {
					t.Errorf("%s: AddressTxAt(%s, %d) = %+v, %v", name, addr, i, ref, err)
				}
			}
		}
		for blk, want := range map[uint64]uint64{0: 0, 1: 0, 2: 1, 3: 1, 4: 2} {
			if got, err := db.AddressTxCountBefore(a, blk); err != nil || got != want {
				t.Errorf("%s: AddressTxCountBefore(a, %d) = %d, %v; want %d", name, blk, got, err, want)
			}
		}
	}
}

// indexWatchedKV checks after every batch that each stored block has its
// history index entry and no entry is written without its block: the two
// reach the store in one batch or not at all.
type indexWatchedKV struct {
	store.KV
	t *testing.T
}

func (w *indexWatchedKV) Write(b *store.Batch) error {
	if err := w.KV.Write(b); err != nil {
		return err
	}
	for n := uint64(0); n <= 4; n++ {
		hasBlock, _ := w.Has(key(prefixCanonical, numKey(n)))
		hasIndex, _ := w.Has(key(prefixTxCumul, numKey(n)))
		if n > 0 && hasBlock != hasIndex {
			w.t.Errorf("block %d stored %v, its history index %v", n, hasBlock, hasIndex)
		}
	}
	return nil
}

// TestHistoryIndexStartsLate: a data directory whose blocks predate the
// index (here: its entries removed) gets an index from the next block on,
// and says so, instead of counting from a wrong base.
func TestHistoryIndexStartsLate(t *testing.T) {
	_, c, key := execFixture(t)
	for i := uint64(0); i < 2; i++ {
		built, err := c.BuildBlock(BuildParams{Time: 10 * (i + 1)}, []*types.Transaction{transfer(c, key, i)})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.CommitBuilt(built); err != nil {
			t.Fatal(err)
		}
	}
	var wipe store.Batch
	c.db.kv.IterateKeys([]byte("x"), func(k []byte) bool {
		wipe.Delete(append([]byte(nil), k...))
		return true
	})
	if err := c.db.kv.Write(&wipe); err != nil {
		t.Fatal(err)
	}
	built, err := c.BuildBlock(BuildParams{Time: 30}, []*types.Transaction{transfer(c, key, 2)})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CommitBuilt(built); err != nil {
		t.Fatal(err)
	}
	if from, err := c.db.TxIndexFrom(); err != nil || from != 3 {
		t.Fatalf("TxIndexFrom = %d, %v; want 3", from, err)
	}
	if _, err := c.db.TxCountThrough(2); !errors.Is(err, ErrNotIndexed) {
		t.Fatalf("TxCountThrough(2) before the index: %v", err)
	}
	if n, err := c.db.TxCountThrough(3); err != nil || n != 1 {
		t.Fatalf("TxCountThrough(3) = %d, %v; want 1", n, err)
	}
	if ref, err := c.db.TxAt(0); err != nil || ref.Block != 3 {
		t.Fatalf("TxAt(0) = %+v, %v", ref, err)
	}
}
