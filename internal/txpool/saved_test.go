package txpool

import (
	"testing"

	"github.com/chaind/chaind/internal/types"
)

// TestSaveRestore: a restore puts back exactly the saved transactions
// (those added later go, those removed since come back), drops the ones
// the new head's state has used up, and announces none of them again;
// Clear empties the pool.
func TestSaveRestore(t *testing.T) {
	f := newFixture(t, Config{}, 2)
	a0, a1, gap := f.tx(0, 0, 2e9, 1e9), f.tx(0, 1, 2e9, 1e9), f.tx(1, 3, 2e9, 1e9) // gap: queued behind nonces 0..2
	for _, tx := range []*types.Transaction{a0, a1, gap} {
		if err := f.pool.Add(tx); err != nil {
			t.Fatal(err)
		}
	}
	saved := f.pool.Save()
	if saved.Len() != 3 {
		t.Fatalf("saved %d, want 3", saved.Len())
	}
	later := f.tx(1, 0, 2e9, 1e9)
	f.pool.Add(later)
	if n := f.pool.Remove(a1.Hash(), types.Hash{0x99}); n != 1 {
		t.Fatalf("Remove of one pooled and one unknown hash = %d, want 1", n)
	}
	ch, cancel := f.pool.Subscribe(8)
	defer cancel()

	f.pool.Restore(saved, f.head())
	has := func(tx *types.Transaction) bool { _, _, ok := f.pool.Get(tx.Hash()); return ok }
	if !has(a0) || !has(a1) || !has(gap) || has(later) || f.pool.Len() != 3 {
		t.Fatalf("after restore: a0 %v a1 %v gap %v later %v, %d pooled", has(a0), has(a1), has(gap), has(later), f.pool.Len())
	}
	if p, q := f.pool.Stats(); p != 2 || q != 1 {
		t.Errorf("after restore: pending %d queued %d, want 2 and 1", p, q)
	}
	if len(ch) != 0 {
		t.Errorf("restore announced %d transactions again", len(ch))
	}
	// The saved records are not shared with the pool: a second restore
	// onto a head where a0 is included gives a1 alone.
	f.pool.Clear()
	if f.pool.Len() != 0 || len(f.pool.Pending()) != 0 {
		t.Fatalf("after Clear: %d pooled", f.pool.Len())
	}
	f.st.nonce[f.addr[0]] = 1
	f.pool.Restore(saved, f.head())
	if has(a0) || !has(a1) || !has(gap) {
		t.Errorf("restore onto a later head: a0 %v a1 %v gap %v, want only a1 and gap", has(a0), has(a1), has(gap))
	}
	// gap's nonce 3 becomes executable once its sender's state nonce is 3:
	// it was never announced, so now it is.
	f.st.nonce[f.addr[1]] = 3
	f.pool.Restore(saved, f.head())
	select {
	case tx := <-ch:
		if tx.Hash() != gap.Hash() {
			t.Errorf("announced %s, want the formerly queued %s", tx.Hash(), gap.Hash())
		}
	default:
		t.Error("a transaction executable for the first time was not announced")
	}
}
