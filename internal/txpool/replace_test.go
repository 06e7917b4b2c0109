package txpool

import (
	"errors"
	"testing"

	"github.com/chaind/chaind/internal/types"
)

// A replacement of an executable transaction must raise both fee fields by
// the price bump; one behind a nonce gap only has to pay more.
func TestReplacementRules(t *testing.T) {
	for _, tc := range []struct {
		name        string
		nonce       uint64 // of the pooled tx and its replacement; the state nonce is 0
		feeCap, tip uint64 // of the replacement; the pooled tx pays 2e9 / 1e9
		ok          bool
	}{
		{"pending, both fields +10%", 0, 2.2e9, 1.1e9, true},
		{"pending, +1 wei", 0, 2e9 + 1, 1e9 + 1, false},
		{"pending, fee cap +10% but tip +9%", 0, 2.2e9, 1.09e9, false},
		{"queued, +1 wei on both", 5, 2e9 + 1, 1e9 + 1, true},
		{"queued, +1 wei fee cap only", 5, 2e9 + 1, 1e9, true},
		{"queued, fee cap up but tip down", 5, 3e9, 1e9 - 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, Config{}, 1)
			if err := f.pool.Add(f.tx(0, tc.nonce, 2e9, 1e9)); err != nil {
				t.Fatal(err)
			}
			repl := f.tx(0, tc.nonce, tc.feeCap, tc.tip)
			err := f.pool.Add(repl)
			if tc.ok && err != nil {
				t.Fatalf("replacement refused: %v", err)
			}
			if !tc.ok && !errors.Is(err, ErrReplaceUnderpriced) {
				t.Fatalf("replacement: got %v, want %v", err, ErrReplaceUnderpriced)
			}
			if _, _, in := f.pool.Get(repl.Hash()); in != tc.ok {
				t.Fatalf("replacement pooled = %v, want %v", in, tc.ok)
			}
			if f.pool.Len() != 1 {
				t.Fatalf("pool holds %d transactions, want 1", f.pool.Len())
			}
		})
	}
}

// A queued transaction is announced only when its gap closes, by a pooled
// transaction or by a block that included ones the pool never had; a
// replacement is announced again only while pending.
func TestAnnounceWhenExecutable(t *testing.T) {
	f := newFixture(t, Config{}, 1)
	ch, cancel := f.pool.Subscribe(16)
	defer cancel()
	got := func() []types.Hash {
		var hs []types.Hash
		for {
			select {
			case tx := <-ch:
				hs = append(hs, tx.Hash())
			default:
				return hs
			}
		}
	}
	want := func(step string, txs ...*types.Transaction) {
		t.Helper()
		hs := got()
		if len(hs) != len(txs) {
			t.Fatalf("%s: %d announced, want %d", step, len(hs), len(txs))
		}
		for i, tx := range txs {
			if hs[i] != tx.Hash() {
				t.Fatalf("%s: announcement %d is %x, want %x", step, i, hs[i], tx.Hash())
			}
		}
	}
	q2, q3 := f.tx(0, 2, 2e9, 1e9), f.tx(0, 3, 2e9, 1e9)
	f.pool.Add(q3)
	f.pool.Add(q2)
	want("queued behind a gap")
	q2b := f.tx(0, 2, 2e9+1, 1e9+1)
	if err := f.pool.Add(q2b); err != nil {
		t.Fatal(err)
	}
	want("queued replacement")
	p1 := f.tx(0, 1, 2e9, 1e9)
	f.pool.Add(p1)
	want("nonce 1 behind nonce 0's gap")
	// A block includes nonce 0 (a transaction this pool never saw): 1, 2
	// and 3 become executable.
	f.st.nonce[f.addr[0]] = 1
	f.pool.Reset(f.head())
	want("gap closed by a block", p1, q2b, q3)
	f.pool.Reset(f.head())
	want("second reset")
	p1b := f.tx(0, 1, 2.2e9, 1.1e9)
	if err := f.pool.Add(p1b); err != nil {
		t.Fatal(err)
	}
	want("pending replacement", p1b)
}
