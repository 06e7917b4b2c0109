package txpool

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"

	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// sizedTx is a transaction of sender i with size bytes of call data and
// the fee cap feeCap (tipping half of it, so that a replacement's
// higher cap raises the tip too).
func (f *fixture) sizedTx(i int, nonce uint64, size int, feeCap uint64) *types.Transaction {
	to := types.Address{0xaa}
	return types.MustSignNewTx(f.keys[i], signer, &types.DynamicFeeTx{
		ChainID: *uint256.NewInt(chainID), Nonce: nonce, GasTipCap: *uint256.NewInt(feeCap / 2), GasFeeCap: *uint256.NewInt(feeCap),
		Gas: 21000 + 16*uint64(size), To: &to, Data: bytes.Repeat([]byte{1}, size),
	})
}

// checkBytes fails t unless the pool's running byte total is the sum of
// what its transactions count now, and within the bound.
func checkBytes(t *testing.T, p *Pool, step string) {
	t.Helper()
	p.mu.RLock()
	var sum int64
	for _, e := range p.all {
		sum += entrySize(e.tx, e.sidecar)
	}
	p.mu.RUnlock()
	if got := p.Bytes(); got != sum {
		t.Fatalf("%s: Bytes() = %d, the pooled transactions take %d", step, got, sum)
	}
	if sum > p.cfg.MaxBytes {
		t.Fatalf("%s: pool holds %d bytes, over its bound of %d", step, sum, p.cfg.MaxBytes)
	}
}

// The pool is bounded in bytes as well as in count: large transactions
// fill it long before GlobalSlots, a newcomer paying more evicts just
// enough cheaper ones (each sender's from its highest nonce), and one
// that cannot be made room for is refused with nothing evicted.
func TestByteBound(t *testing.T) {
	const big = 60 << 10
	type add struct {
		sender int
		nonce  uint64
		size   int
		fee    uint64
	}
	for _, tc := range []struct {
		name    string
		fill    []add
		slots   int // of MaxBytes, in transactions of fill's first size
		next    add
		want    error
		evicted []int // indexes into fill
	}{
		{name: "filling with large transactions stops at the bound",
			fill:  []add{{0, 0, big, 2e9}, {1, 0, big, 2e9}, {2, 0, big, 2e9}},
			slots: 3, next: add{3, 0, big, 2e9}, want: ErrPoolFull},
		{name: "a pricier large transaction evicts the cheapest to fit",
			fill:  []add{{0, 0, big, 3e9}, {1, 0, big, 2e9}, {2, 0, big, 4e9}},
			slots: 3, next: add{3, 0, big, 5e9}, evicted: []int{1}},
		{name: "a pricier one twice the size evicts two, highest nonce first",
			fill:  []add{{0, 0, big, 2e9}, {0, 1, big, 2e9}, {1, 0, big, 6e9}, {2, 0, big, 3e9}},
			slots: 4, next: add{3, 0, 2 * big, 5e9}, evicted: []int{0, 1}},
		{name: "a cheaper one is refused",
			fill:  []add{{0, 0, big, 3e9}, {1, 0, big, 3e9}},
			slots: 2, next: add{2, 0, big, 2e9}, want: ErrPoolFull},
		{name: "no eviction unless all the room can be made",
			fill:  []add{{0, 0, big, 2e9}, {1, 0, big, 9e9}},
			slots: 2, next: add{2, 0, 2 * big, 5e9}, want: ErrPoolFull},
		{name: "a sender's own lower nonces are not evicted for it",
			fill:  []add{{0, 0, big, 2e9}, {1, 0, big, 9e9}},
			slots: 2, next: add{0, 1, big, 5e9}, want: ErrPoolFull},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, Config{}, 4)
			one := entrySize(f.sizedTx(0, 0, tc.fill[0].size, 2e9), nil)
			// A few bytes of slack: signatures vary in length by a byte or two.
			f.pool = New(Config{MaxBytes: int64(tc.slots)*one + 16}, f.head())
			var txs []*types.Transaction
			for i, a := range tc.fill {
				tx := f.sizedTx(a.sender, a.nonce, a.size, a.fee)
				if err := f.pool.Add(tx); err != nil {
					t.Fatalf("fill %d: %v", i, err)
				}
				txs = append(txs, tx)
			}
			nx := f.sizedTx(tc.next.sender, tc.next.nonce, tc.next.size, tc.next.fee)
			if err := f.pool.Add(nx); !errors.Is(err, tc.want) {
				t.Fatalf("newcomer: got %v, want %v", err, tc.want)
			}
			if _, _, in := f.pool.Get(nx.Hash()); in != (tc.want == nil) {
				t.Fatalf("newcomer pooled: %v", in)
			}
			for i, tx := range txs {
				_, _, in := f.pool.Get(tx.Hash())
				if gone := slices.Contains(tc.evicted, i); in == gone {
					t.Errorf("fill %d (fee %d): pooled %v, want %v", i, tc.fill[i].fee, in, !gone)
				}
			}
			checkBytes(t, f.pool, "after the newcomer")
		})
	}
}

// A blob transaction counts its sidecar: a small transaction whose blobs
// do not fit is refused.
func TestByteBoundBlobs(t *testing.T) {
	f := newFixture(t, Config{}, 2)
	sc, hashes := constantSidecar(5, 7)
	btx := f.blobTx(0, 0, hashes)
	if btx.Size() > 1<<10 {
		t.Fatalf("blob transaction of %d bytes: the test wants a small one", btx.Size())
	}
	f.pool = New(Config{MaxBytes: entrySize(btx, sc) - 1 + 4<<10}, f.head())
	if err := f.pool.Add(f.sizedTx(1, 0, 4<<10, 9e9)); err != nil {
		t.Fatal(err)
	}
	if err := f.pool.AddPooled(btx, sc); !errors.Is(err, ErrPoolFull) {
		t.Fatalf("blobs over the bound: %v", err)
	}
	checkBytes(t, f.pool, "blobs refused")
}

// Replacements that grow or shrink a transaction keep the total exact;
// one that grows past the bound evicts a cheaper transaction or is
// refused.
func TestByteBoundReplacement(t *testing.T) {
	const big = 40 << 10
	for _, tc := range []struct {
		name   string
		size   int    // of the replacement
		other  uint64 // fee cap of the other sender's transaction
		want   error
		evicts bool
	}{
		{"shrinks", 100, 2e9, nil, false},
		{"grows within the bound", big + big/2, 9e9, nil, false},
		{"grows past the bound, evicting a cheaper one", 3 * big, 2e9, nil, true},
		{"grows past the bound, nothing cheaper", 3 * big, 9e9, ErrPoolFull, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, Config{}, 2)
			one := entrySize(f.sizedTx(0, 0, big, 2e9), nil)
			f.pool = New(Config{MaxBytes: 3*one + 16}, f.head())
			orig, other := f.sizedTx(0, 0, big, 3e9), f.sizedTx(1, 0, big, tc.other)
			for _, tx := range []*types.Transaction{orig, other} {
				if err := f.pool.Add(tx); err != nil {
					t.Fatal(err)
				}
			}
			repl := f.sizedTx(0, 0, tc.size, 4e9)
			if err := f.pool.Add(repl); !errors.Is(err, tc.want) {
				t.Fatalf("replacement: got %v, want %v", err, tc.want)
			}
			if _, _, in := f.pool.Get(other.Hash()); in == tc.evicts {
				t.Errorf("other sender's transaction pooled %v, want %v", in, !tc.evicts)
			}
			if _, _, in := f.pool.Get(orig.Hash()); in != (tc.want != nil) {
				t.Errorf("original pooled %v", in)
			}
			checkBytes(t, f.pool, "after the replacement")
		})
	}
}

// A model test: after every step of a random sequence of adds,
// replacements, removals, blocks (Reset with included nonces) and a
// development node's snapshots (Save, Restore, Clear), the running total
// is the sum over the pool and within the bound.
func TestByteBoundModel(t *testing.T) {
	const senders = 6
	f := newFixture(t, Config{}, senders)
	f.pool = New(Config{MaxBytes: 300 << 10, AccountSlots: 8, GlobalSlots: 20}, f.head())
	rng := rand.New(rand.NewPCG(1, 2))
	var saved *Saved
	full := 0 // adds refused for want of room: the bound must have been reached
	for step := range 400 {
		switch op := rng.IntN(13); {
		case op < 7: // add or replace
			i := rng.IntN(senders)
			nonce := f.st.nonce[f.addr[i]] + uint64(rng.IntN(5))
			if err := f.pool.Add(f.sizedTx(i, nonce, rng.IntN(60<<10), 2e9+uint64(rng.IntN(40))*1e8)); errors.Is(err, ErrPoolFull) {
				full++
			}
		case op < 8: // a client or builder drops one
			pending, queued := f.pool.Content()
			for _, m := range []map[types.Address][]*types.Transaction{pending, queued} {
				for _, txs := range m {
					f.pool.Remove(txs[rng.IntN(len(txs))].Hash())
					break
				}
			}
		case op < 9:
			s := f.pool.Save()
			saved = &s
		case op < 10 && saved != nil:
			if err := f.pool.Restore(*saved, f.head()); err != nil {
				t.Fatal(err)
			}
		case op < 10 && step%5 == 0:
			f.pool.Clear()
		default: // a block includes a sender's first transactions
			i := rng.IntN(senders)
			f.st.nonce[f.addr[i]] += uint64(rng.IntN(3))
			if err := f.pool.Reset(f.head()); err != nil {
				t.Fatal(err)
			}
		}
		checkBytes(t, f.pool, "step "+strconv.Itoa(step))
	}
	if f.pool.Len() == 0 || full == 0 {
		t.Fatalf("the sequence left %d pooled, %d refused as full: it tests nothing", f.pool.Len(), full)
	}
}
