package txpool

import (
	"errors"
	"slices"
	"strconv"
	"testing"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/holiman/uint256"
)

// fakeState answers as state.StateDB does: a read of an account whose
// store read fails (unreadable) records the error and answers zeros.
type fakeState struct {
	nonce      map[types.Address]uint64
	bal        map[types.Address]*uint256.Int
	code       map[types.Address][]byte
	unreadable map[types.Address]bool
	err        error
}

var errDisk = errors.New("store: read: input/output error")

func (s *fakeState) fails(a types.Address) bool {
	if s.unreadable[a] && s.err == nil {
		s.err = errDisk
	}
	return s.err != nil
}

func (s *fakeState) GetNonce(a types.Address) uint64 {
	if s.fails(a) {
		return 0
	}
	return s.nonce[a]
}
func (s *fakeState) GetBalance(a types.Address) *uint256.Int {
	if b := s.bal[a]; b != nil && !s.fails(a) {
		return b
	}
	return new(uint256.Int)
}
func (s *fakeState) GetCode(a types.Address) []byte {
	if s.fails(a) {
		return nil
	}
	return s.code[a]
}
func (s *fakeState) Error() error { return s.err }

const chainID = 8118

var signer = types.NewSigner(chainID, forks.Cancun)

type fixture struct {
	pool *Pool
	st   *fakeState
	keys []*secp256k1.PrivateKey
	addr []types.Address
}

func newFixture(t *testing.T, cfg Config, n int) *fixture {
	f := &fixture{st: &fakeState{nonce: map[types.Address]uint64{}, bal: map[types.Address]*uint256.Int{}, code: map[types.Address][]byte{}}}
	for i := 0; i < n; i++ {
		k, err := crypto.GenerateKey()
		if err != nil {
			t.Fatal(err)
		}
		a := types.Address(crypto.PubkeyToAddress(k.PubKey()))
		f.keys, f.addr = append(f.keys, k), append(f.addr, a)
		f.st.bal[a] = uint256.NewInt(1e18)
	}
	f.pool = New(cfg, f.head())
	return f
}

func (f *fixture) head() Head {
	return Head{Signer: signer, Fork: forks.Cancun, GasLimit: 30_000_000, BaseFee: uint256.NewInt(1e9), MaxBlobs: 6, State: f.st}
}

func (f *fixture) tx(i int, nonce uint64, feeCap, tip uint64) *types.Transaction {
	to := types.Address{0xaa}
	return types.MustSignNewTx(f.keys[i], signer, &types.DynamicFeeTx{
		ChainID: *uint256.NewInt(chainID), Nonce: nonce, GasTipCap: *uint256.NewInt(tip), GasFeeCap: *uint256.NewInt(feeCap),
		Gas: 21000, To: &to, Value: *uint256.NewInt(1),
	})
}

func TestAddErrors(t *testing.T) {
	f := newFixture(t, Config{}, 2)
	f.st.nonce[f.addr[0]] = 5
	f.st.bal[f.addr[1]] = uint256.NewInt(1000)
	ok := f.tx(0, 5, 2e9, 1e9)
	if err := f.pool.Add(ok); err != nil {
		t.Fatal(err)
	}
	intrinsic := types.MustSignNewTx(f.keys[0], signer, &types.DynamicFeeTx{ChainID: *uint256.NewInt(chainID), Nonce: 6,
		GasFeeCap: *uint256.NewInt(2e9), Gas: 20000, To: &types.Address{1}})
	for _, tc := range []struct {
		name string
		tx   *types.Transaction
		want error
	}{
		{"duplicate", ok, ErrAlreadyKnown},
		{"nonce too low", f.tx(0, 4, 2e9, 1e9), evm.ErrNonceTooLow},
		{"too far ahead", f.tx(0, 500, 2e9, 1e9), ErrFutureNonce},
		{"cannot pay", f.tx(1, 0, 2e9, 1e9), evm.ErrInsufficientFunds},
		{"below base fee", f.tx(0, 6, 5e8, 1), evm.ErrFeeCapTooLow},
		{"tip above cap", f.tx(0, 6, 2e9, 3e9), evm.ErrTipAboveFeeCap},
		{"intrinsic gas", intrinsic, evm.ErrIntrinsicGas},
		{"replacement too cheap", f.tx(0, 5, 2e9+1, 1e9+1), ErrReplaceUnderpriced},
	} {
		if err := f.pool.Add(tc.tx); !errors.Is(err, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, err, tc.want)
		}
	}
	// A 10% bump of both fields replaces.
	repl := f.tx(0, 5, 22e8, 11e8)
	if err := f.pool.Add(repl); err != nil {
		t.Fatal(err)
	}
	if _, _, ok := f.pool.Get(ok.Hash()); ok {
		t.Fatal("replaced transaction still pooled")
	}
	if f.pool.Len() != 1 {
		t.Fatalf("pool has %d", f.pool.Len())
	}
}

func TestPendingQueuedAndReset(t *testing.T) {
	f := newFixture(t, Config{}, 1)
	for _, n := range []uint64{0, 1, 3} {
		if err := f.pool.Add(f.tx(0, n, 2e9, 1e9)); err != nil {
			t.Fatal(err)
		}
	}
	if p, q := f.pool.Stats(); p != 2 || q != 1 {
		t.Fatalf("pending %d queued %d", p, q)
	}
	if n, err := f.pool.Nonce(f.addr[0]); err != nil || n != 2 {
		t.Fatalf("pending nonce %d", n)
	}
	f.pool.Add(f.tx(0, 2, 2e9, 1e9)) // closes the gap
	if p, q := f.pool.Stats(); p != 4 || q != 0 {
		t.Fatalf("after gap: pending %d queued %d", p, q)
	}
	f.st.nonce[f.addr[0]] = 3 // a block included 0..2
	f.pool.Reset(f.head())
	if f.pool.Len() != 1 || len(f.pool.Pending()[f.addr[0]]) != 1 {
		t.Fatalf("after reset: %d left", f.pool.Len())
	}
	if got, want := f.pool.Bytes(), int64(f.pool.Pending()[f.addr[0]][0].Size()); got != want || want == 0 {
		t.Fatalf("after reset: %d bytes, want the one left's %d", got, want)
	}
}

func TestByPrice(t *testing.T) {
	f := newFixture(t, Config{}, 2)
	a0 := f.tx(0, 0, 3e9, 1e9)
	a1 := f.tx(0, 1, 9e9, 8e9) // rich, but must wait for a0
	b0 := f.tx(1, 0, 5e9, 2e9)
	for _, tx := range []*types.Transaction{a0, a1, b0} {
		if err := f.pool.Add(tx); err != nil {
			t.Fatal(err)
		}
	}
	got := ByPrice(f.pool.Pending(), uint256.NewInt(1e9))
	want := []*types.Transaction{b0, a0, a1}
	for i := range want {
		if got[i].Hash() != want[i].Hash() {
			t.Fatalf("position %d: got nonce %d of another sender", i, got[i].Nonce())
		}
	}
	// With a limit, the best ones in the same order, and no more.
	for limit, n := range map[int]int{1: 1, 2: 2, 3: 3, 9: 3} {
		got := ByPriceN(f.pool.Pending(), uint256.NewInt(1e9), limit)
		if len(got) != n {
			t.Fatalf("limit %d: %d transactions, want %d", limit, len(got), n)
		}
		for i := range got {
			if got[i].Hash() != want[i].Hash() {
				t.Fatalf("limit %d, position %d: got nonce %d of another sender", limit, i, got[i].Nonce())
			}
		}
	}
}

func TestLimitsAndEviction(t *testing.T) {
	f := newFixture(t, Config{AccountSlots: 2, GlobalSlots: 3}, 3)
	f.pool.Add(f.tx(0, 0, 2e9, 1e9))
	f.pool.Add(f.tx(0, 1, 2e9, 1e9))
	if err := f.pool.Add(f.tx(0, 2, 2e9, 1e9)); !errors.Is(err, ErrAccountLimit) {
		t.Fatalf("account limit: %v", err)
	}
	cheap := f.tx(1, 0, 15e8, 1e8)
	f.pool.Add(cheap)
	if err := f.pool.Add(f.tx(2, 0, 14e8, 1e8)); !errors.Is(err, ErrPoolFull) {
		t.Fatalf("cheaper than everything: %v", err)
	}
	if err := f.pool.Add(f.tx(2, 0, 9e9, 1e9)); err != nil {
		t.Fatalf("richer tx not admitted: %v", err)
	}
	if _, _, ok := f.pool.Get(cheap.Hash()); ok {
		t.Fatal("cheapest transaction not evicted")
	}
}

func TestSubscribe(t *testing.T) {
	f := newFixture(t, Config{}, 1)
	ch, cancel := f.pool.Subscribe(4)
	defer cancel()
	tx := f.tx(0, 0, 2e9, 1e9)
	f.pool.Add(tx)
	if got := <-ch; got.Hash() != tx.Hash() {
		t.Fatal("wrong tx delivered")
	}
}

// A sender streaming consecutive nonces is not capped by AccountSlots or the
// nonce gap while the pool has room: both count from its pending run.
func TestStreamingSender(t *testing.T) {
	f := newFixture(t, Config{AccountSlots: 4, GlobalSlots: 100, MaxNonceGap: 2}, 1)
	for n := uint64(0); n < 20; n++ {
		if err := f.pool.Add(f.tx(0, n, 2e9, 1e9)); err != nil {
			t.Fatalf("nonce %d: %v", n, err)
		}
	}
	if got, err := f.pool.Nonce(f.addr[0]); err != nil || got != 20 {
		t.Fatalf("pending nonce %d, want 20", got)
	}
	if err := f.pool.Add(f.tx(0, 22, 2e9, 1e9)); err != nil {
		t.Fatalf("nonce within the gap of the pending run: %v", err)
	}
	if err := f.pool.Add(f.tx(0, 23, 2e9, 1e9)); !errors.Is(err, ErrFutureNonce) {
		t.Fatalf("nonce past the gap: %v", err)
	}
}

func TestContent(t *testing.T) {
	f := newFixture(t, Config{}, 2)
	for _, n := range []uint64{0, 1, 3, 5} {
		if err := f.pool.Add(f.tx(0, n, 2e9, 1e9)); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.pool.Add(f.tx(1, 2, 2e9, 1e9)); err != nil {
		t.Fatal(err)
	}
	pending, queued := f.pool.Content()
	nonces := func(txs []*types.Transaction) []uint64 {
		var out []uint64
		for _, tx := range txs {
			out = append(out, tx.Nonce())
		}
		return out
	}
	if got := nonces(pending[f.addr[0]]); !slices.Equal(got, []uint64{0, 1}) {
		t.Fatalf("pending of sender 0: %v", got)
	}
	if got := nonces(queued[f.addr[0]]); !slices.Equal(got, []uint64{3, 5}) {
		t.Fatalf("queued of sender 0: %v", got)
	}
	if len(pending[f.addr[1]]) != 0 || !slices.Equal(nonces(queued[f.addr[1]]), []uint64{2}) {
		t.Fatalf("sender 1: pending %v queued %v", nonces(pending[f.addr[1]]), nonces(queued[f.addr[1]]))
	}
}

// The pool's knowledge of a sender's executable run stays right as the run
// grows, loses a middle transaction, gets it back, has one replaced and
// moves with the state nonce: the pending nonce, the pending run and the
// announcements are those of a walk from the state nonce.
func TestRunCacheFollowsChanges(t *testing.T) {
	f := newFixture(t, Config{}, 1)
	sub, cancel := f.pool.Subscribe(64)
	defer cancel()
	announced := func() (n []uint64) {
		for len(sub) > 0 {
			n = append(n, (<-sub).Nonce())
		}
		return n
	}
	txs := make([]*types.Transaction, 10)
	for i := range txs {
		txs[i] = f.tx(0, uint64(i), 2e9, 1e9)
		if err := f.pool.Add(txs[i]); err != nil {
			t.Fatal(err)
		}
	}
	check := func(step string, nonce uint64, pending int, ann []uint64) {
		t.Helper()
		if got, err := f.pool.Nonce(f.addr[0]); err != nil || got != nonce {
			t.Errorf("%s: pending nonce %d, want %d", step, got, nonce)
		}
		if got := len(f.pool.Pending()[f.addr[0]]); got != pending {
			t.Errorf("%s: %d pending, want %d", step, got, pending)
		}
		if got := announced(); !slices.Equal(got, ann) {
			t.Errorf("%s: announced %v, want %v", step, got, ann)
		}
	}
	check("ten in a row", 10, 10, []uint64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.pool.Remove(txs[5].Hash())
	check("fifth removed", 5, 5, nil)
	if err := f.pool.Add(txs[5]); err != nil {
		t.Fatal(err)
	}
	check("fifth back", 10, 10, []uint64{5})
	if err := f.pool.Add(f.tx(0, 3, 22e8, 11e8)); err != nil { // a 10% bump replaces
		t.Fatal(err)
	}
	check("third replaced", 10, 10, []uint64{3})
	f.st.nonce[f.addr[0]] = 4 // a block took 0..3
	f.pool.Reset(f.head())
	check("moved to nonce 4", 10, 6, nil)
	if err := f.pool.Add(f.tx(0, 10, 2e9, 1e9)); err != nil {
		t.Fatal(err)
	}
	check("one more", 11, 7, []uint64{10})
}

// BenchmarkStreamingSender: one sender adds a run of transactions in nonce
// order, as a load generator or an exchange's hot wallet does; the pool's
// cost per transaction must not grow with the run.
func BenchmarkStreamingSender(b *testing.B) {
	for _, run := range []int{100, 2000} {
		b.Run(strconv.Itoa(run), func(b *testing.B) {
			f := newFixture(&testing.T{}, Config{}, 1)
			txs := make([]*types.Transaction, run)
			for i := range txs {
				txs[i] = f.tx(0, uint64(i), 2e9, 1e9)
				signer.Sender(txs[i]) // recovered once, as the RPC layer does before the pool
			}
			b.ResetTimer()
			for b.Loop() {
				b.StopTimer()
				f.pool.Clear()
				b.StartTimer()
				for _, tx := range txs {
					if err := f.pool.Add(tx); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*run), "ns/tx")
		})
	}
}

// BenchmarkByPrice orders a full pool (64 senders of 200 transactions) for
// a block: all of it, or only a 30M-gas block's worth of transfers.
func BenchmarkByPrice(b *testing.B) {
	f := newFixture(&testing.T{}, Config{}, 64)
	for i := range f.keys {
		for n := range uint64(200) {
			if err := f.pool.Add(f.tx(i, n, 2e9+uint64(i), 1e9)); err != nil {
				b.Fatal(err)
			}
		}
	}
	pending := f.pool.Pending()
	for _, limit := range []int{0, 30_000_000 / 21_000} {
		b.Run("limit="+strconv.Itoa(limit), func(b *testing.B) {
			for b.Loop() {
				ByPriceN(pending, uint256.NewInt(1e9), limit)
			}
		})
	}
}
