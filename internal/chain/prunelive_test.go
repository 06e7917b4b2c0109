package chain

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/holiman/uint256"
)

// liveHarness is a chain that prunes incrementally, made block by block
// from one funded key: transfers to plain accounts and slot writes to two
// contracts that start with the same storage (storeOrDie).
type liveHarness struct {
	t       testing.TB
	g       *Genesis
	kv      *crashKV
	c       *Chain
	key     *secp256k1.PrivateKey
	nonce   uint64
	plain   []types.Address
	deleted int // nodes deleted by the steps so far
}

var liveContracts = []types.Address{{0xcc}, {0xcd}}

func newLiveHarness(t testing.TB, accounts int) *liveHarness {
	key := secp256k1.PrivKeyFromBytes(bytes.Repeat([]byte{0x42}, 32))
	h := &liveHarness{t: t, key: key}
	h.g = &Genesis{Config: AllForks(8118), GasLimit: 60_000_000, Timestamp: 1_700_000_000, Alloc: Alloc{}}
	var bal U256
	bal.SetUint64(1e18)
	h.g.Alloc[types.Address(crypto.PubkeyToAddress(key.PubKey()))] = Account{Balance: bal}
	for _, a := range liveContracts {
		h.g.Alloc[a] = Account{Code: storeOrDie, Storage: map[types.Hash]types.Hash{{31: 1}: {31: 1}, {31: 2}: {31: 2}}}
	}
	var one U256
	one.SetUint64(1)
	for i := 0; i < accounts; i++ {
		a := types.Address{0xbe, byte(i >> 16), byte(i >> 8), byte(i)}
		h.g.Alloc[a] = Account{Balance: one}
		h.plain = append(h.plain, a)
	}
	h.kv = &crashKV{KV: store.NewMem(), left: -1}
	h.open()
	if !h.c.Incremental() {
		t.Fatal("a new chain does not prune incrementally")
	}
	return h
}

// open opens the chain on the harness's store, as a restart does.
func (h *liveHarness) open() {
	h.t.Helper()
	c, err := Open(h.g, h.kv, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	h.c = c
}

func (h *liveHarness) tx(to types.Address, value uint64, data []byte) *types.Transaction {
	tx := types.MustSignNewTx(h.key, h.c.Config.Signer(1, 1), &types.DynamicFeeTx{ChainID: *uint256.NewInt(8118),
		Nonce: h.nonce, GasTipCap: *uint256.NewInt(1), GasFeeCap: *uint256.NewInt(4e9), Gas: 200_000, To: &to, Value: *uint256.NewInt(value)})
	if data != nil {
		tx = types.MustSignNewTx(h.key, h.c.Config.Signer(1, 1), &types.DynamicFeeTx{ChainID: *uint256.NewInt(8118),
			Nonce: h.nonce, GasTipCap: *uint256.NewInt(1), GasFeeCap: *uint256.NewInt(4e9), Gas: 200_000, To: &to, Data: data})
	}
	h.nonce++
	return tx
}

// slot writes value at slot of contract i.
func (h *liveHarness) slot(i int, slot, value byte) *types.Transaction {
	data := make([]byte, 64)
	data[31], data[63] = slot, value
	return h.tx(liveContracts[i], 0, data)
}

func (h *liveHarness) block(txs ...*types.Transaction) {
	h.t.Helper()
	if err := h.tryBlock(txs...); err != nil {
		h.t.Fatal(err)
	}
}

// tryBlock builds and commits a block of txs.
func (h *liveHarness) tryBlock(txs ...*types.Transaction) error {
	built, err := h.c.BuildBlock(BuildParams{Time: h.c.Head().Time() + 1}, txs)
	if err != nil {
		return err
	}
	if len(built.Block.Transactions()) != len(txs) {
		return fmt.Errorf("block %d took %d of %d transactions", built.Block.Number(), len(built.Block.Transactions()), len(txs))
	}
	return h.c.CommitBuilt(built)
}

func (h *liveHarness) step(keep uint64) StepStats {
	h.t.Helper()
	st, err := h.c.PruneStep(keep, nil)
	if err != nil {
		h.t.Fatal(err)
	}
	h.deleted += st.Deleted
	return st
}

// keptRoots are the state roots pruning to keep blocks must leave
// readable: the last keep blocks' and the genesis'.
func keptRoots(t testing.TB, c *Chain, keep uint64) []types.Hash {
	roots := []types.Hash{c.Genesis().Root()}
	head := c.Head().Number()
	for n := head; n+keep > head; n-- {
		b, err := c.BlockByNumber(n)
		if err != nil {
			t.Fatal(err)
		}
		roots = append(roots, b.Root())
		if n == 0 {
			break
		}
	}
	return roots
}

// checkNoGarbage reads every node and code blob of the kept states (a
// missing one fails it) and checks that the store holds nothing else but
// what the genesis pin filter keeps by a false positive.
func checkNoGarbage(t testing.TB, c *Chain, keep uint64) {
	t.Helper()
	reach := map[[32]byte]bool{}
	for _, root := range keptRoots(t, c, keep) {
		d := stateDiff{load: c.db.Node, made: func(h [32]byte) { reach[h] = true }, dropped: func([32]byte) {}}
		if err := d.diff(root, types.Hash{}); err != nil {
			t.Fatalf("kept state %s: %v", root, err)
		}
	}
	pin, err := loadPinSet(c.db.kv)
	if err != nil {
		t.Fatal(err)
	}
	var extra [][32]byte
	c.db.kv.IterateKeys(prefixNode, func(k []byte) bool {
		if h := [32]byte(k[len(prefixNode):]); len(k) == len(prefixNode)+32 && !reach[h] && !pin.has(h) {
			extra = append(extra, h)
		}
		return true
	})
	if len(extra) > 0 {
		t.Fatalf("head %d: %d stored nodes no kept state holds, e.g. %x", c.Head().Number(), len(extra), extra[0])
	}
}

// A node two contracts' storage share, a node a block makes again after
// an earlier one replaced it, and every node of the kept states survive
// each step; everything else is deleted.
func TestPruneStepKeepsSharedAndRemadeNodes(t *testing.T) {
	const keep = 2
	h := newLiveHarness(t, 300)
	rng := rand.New(rand.NewSource(7))
	script := [][]*types.Transaction{
		{h.slot(0, 3, 1), h.slot(1, 3, 1)}, // the same new storage in both: shared nodes
		{h.slot(0, 4, 1)},
		{h.slot(0, 4, 2)},
		{h.slot(0, 4, 1)},                    // back to block 2's storage: its nodes made again
		{h.slot(1, 3, 2)},                    // the other contract leaves the shared nodes
		{h.slot(1, 3, 1)}, {h.slot(1, 3, 2)}, // and takes them back, and leaves again
		{h.slot(0, 3, 0), h.slot(0, 4, 0)}, // the first back to its genesis storage: pinned nodes made again
		{h.slot(0, 5, 1)},                  // and away from it
	}
	for i, txs := range script {
		h.block(txs...)
		h.step(keep)
		checkNoGarbage(t, h.c, keep)
		checkKeptStates(t, h.c, keep)
		if i == 3 && h.deleted == 0 {
			t.Fatal("nothing deleted after 4 blocks kept to 2")
		}
	}
	for n := 0; n < 20; n++ {
		var txs []*types.Transaction
		for k := 0; k < 10; k++ {
			txs = append(txs, h.tx(h.plain[rng.Intn(len(h.plain))], 1, nil))
		}
		txs = append(txs, h.slot(rng.Intn(2), byte(rng.Intn(6)), byte(rng.Intn(3))))
		h.block(txs...)
		h.step(keep)
		checkNoGarbage(t, h.c, keep)
	}
	st, err := h.c.StateAt(h.c.Head().Root())
	if err != nil {
		t.Fatal(err)
	}
	if got := st.GetState(liveContracts[0], types.Hash{31: 1}); got != (types.Hash{31: 1}) {
		t.Fatalf("genesis slot after pruning: %s", got)
	}
}

// A step that stops between two batches (a crash, or a full disk) loses
// nothing: the store it leaves, reopened, gives the same chain and, once
// pruning goes on, the same store as a run without the crash, whichever
// batch the crash cut.
func TestPruneStepCrashAnywhere(t *testing.T) {
	defer func(s int) { liveSlice = s }(liveSlice)
	liveSlice = 7 // several slices a journal
	const keep, blocks, crashAt = 3, 14, 9
	run := func(crashAfter int) (map[string]string, bool) {
		h := newLiveHarness(t, 200)
		rng := rand.New(rand.NewSource(3))
		crashed := false
		for n := 1; n <= blocks; n++ {
			var txs []*types.Transaction
			for k := 0; k < 6; k++ {
				txs = append(txs, h.tx(h.plain[rng.Intn(len(h.plain))], 1, nil))
			}
			txs = append(txs, h.slot(rng.Intn(2), byte(rng.Intn(6)), byte(1+rng.Intn(3))))
			h.block(txs...)
			if n == crashAt && crashAfter >= 0 {
				// Let the blocks up to here be counted, then cut the
				// next step's batches after crashAfter of them.
				h.kv.left = crashAfter
				_, err := h.c.PruneStep(keep, nil)
				h.kv.left = -1
				if err != nil {
					if !errors.Is(err, errCrash) {
						t.Fatal(err)
					}
					crashed = true
					h.open()
					checkKeptStates(t, h.c, keep)
				}
			}
			h.step(keep)
			checkKeptStates(t, h.c, keep)
		}
		checkNoGarbage(t, h.c, keep)
		m := map[string]string{}
		h.kv.Iterate(nil, func(k, v []byte) bool {
			if k[0] == 'n' || k[0] == 'P' || bytes.HasPrefix(k, keyPrune) {
				m[string(k)] = string(v)
			}
			return true
		})
		return m, crashed
	}
	want, _ := run(-1)
	for k := 0; ; k++ {
		got, crashed := run(k)
		if !crashed {
			if k < 3 {
				t.Fatalf("the step wrote only %d batches: the crash test covers nothing", k)
			}
			break
		}
		for key, v := range want {
			if got[key] != v {
				t.Fatalf("crash after %d batches: key %x differs from the run without a crash", k, key)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("crash after %d batches: %d pruning and node keys, %d without the crash", k, len(got), len(want))
		}
	}
}

// TestPruneStepFollowsTheChain is the flat copy's random run
// (reorganisations, rewinds, development state changes, reopenings) with
// incremental pruning: every kept state stays whole.
func TestPruneStepFollowsTheChain(t *testing.T) {
	for seed := int64(1); seed <= 3; seed++ {
		flatRun(t, seed, true)
	}
}

// A pruning step holds no lock a commit takes while it writes: each of
// its writes is held until a block has committed beside it (a write made
// under the chain's lock, as slices once were, fails the check instead
// of deadlocking), and the step still leaves every kept state whole and
// nothing else.
func TestPruneStepWritesOutsideTheLocks(t *testing.T) {
	const keep = 2
	h := newLiveHarness(t, 300)
	rng := rand.New(rand.NewSource(5))
	for n := 0; n < 6; n++ {
		var txs []*types.Transaction
		for k := 0; k < 20; k++ {
			txs = append(txs, h.tx(h.plain[rng.Intn(len(h.plain))], 1, nil))
		}
		txs = append(txs, h.slot(n%2, byte(n%4), byte(1+n%3)))
		h.block(txs...)
	}
	writes, fresh := 0, byte(0)
	committing := false
	h.kv.before = func() {
		if committing {
			return // the block's own write
		}
		if !h.c.wmu.TryLock() {
			t.Error("a pruning write made under the chain's lock")
			return
		}
		h.c.wmu.Unlock()
		if !h.c.db.mu.TryLock() {
			t.Error("a pruning write made under the DB's lock")
			return
		}
		h.c.db.mu.Unlock()
		writes++
		// A transfer to a new account writes only new nodes: none of
		// them can be among those the step deletes.
		fresh++
		committing = true
		err := h.tryBlock(h.tx(types.Address{0xfe, fresh}, 1, nil))
		committing = false
		if err != nil {
			t.Errorf("a block beside a pruning write: %v", err)
		}
	}
	head := h.c.Head().Number()
	st, err := h.c.PruneStep(keep, nil)
	h.kv.before = nil
	if err != nil {
		t.Fatal(err)
	}
	if st.Deleted == 0 || writes < 2 {
		t.Fatalf("the step deleted %d nodes in %d writes: the test covers nothing", st.Deleted, writes)
	}
	if got := h.c.Head().Number(); got != head+uint64(writes) {
		t.Fatalf("head %d after %d writes from %d: blocks did not commit beside the step", got, writes, head)
	}
	checkKeptStates(t, h.c, keep)
	h.step(keep)
	checkKeptStates(t, h.c, keep)
	checkNoGarbage(t, h.c, keep)
}

// crashKV refuses every write after left more (left < 0: never); before,
// when set, is called ahead of each write.
type crashKV struct {
	store.KV
	left   int
	before func()
}

var errCrash = errors.New("crashed")

func (c *crashKV) Write(b *store.Batch) error {
	if c.before != nil {
		c.before()
	}
	if c.left == 0 {
		return errCrash
	}
	if c.left > 0 {
		c.left--
	}
	return c.KV.Write(b)
}

// BenchmarkPruneStep prunes after each block of 100 transfers to random
// accounts of a genesis of the given size, keeping 4 blocks: ns/op is one
// block's pruning (counting it, and applying the journal of the block
// that left the window), which must not grow with the state; the
// mark-and-sweep pass is beside it for scale. pause-max-ns is the longest
// hold of the chain.
func BenchmarkPruneStep(b *testing.B) {
	for _, accounts := range []int{10_000, 100_000, 400_000} {
		for _, mode := range []string{"incremental", "marksweep"} {
			b.Run(mode+"/accounts="+strconv.Itoa(accounts), func(b *testing.B) {
				h := newLiveHarness(b, accounts)
				if mode == "marksweep" {
					h.c.live.Store(nil)
				}
				rng := rand.New(rand.NewSource(1))
				var pauses []time.Duration
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					var txs []*types.Transaction
					for k := 0; k < 100; k++ {
						txs = append(txs, h.tx(h.plain[rng.Intn(len(h.plain))], 1, nil))
					}
					h.block(txs...)
					b.StartTimer()
					if mode == "marksweep" {
						st, err := h.c.Prune(4)
						if err != nil {
							b.Fatal(err)
						}
						pauses = append(pauses, st.Pauses...)
						continue
					}
					pauses = append(pauses, h.step(4).Pauses...)
				}
				b.StopTimer()
				if len(pauses) > 0 {
					slices.Sort(pauses)
					b.ReportMetric(float64(pauses[len(pauses)-1].Nanoseconds()), "pause-max-ns")
				}
			})
		}
	}
}
