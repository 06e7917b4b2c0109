package chain

import (
	"context"
	"fmt"
	"runtime/pprof"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/holiman/uint256"
)

// countingKV counts the bytes of the batches written to a store and the
// reads of single keys.
type countingKV struct {
	store.KV
	written int64
	gets    atomic.Int64
}

func (c *countingKV) Get(k []byte) ([]byte, error) {
	c.gets.Add(1)
	return c.KV.Get(k)
}

func (c *countingKV) Write(b *store.Batch) error {
	c.written += int64(b.Size())
	return c.KV.Write(b)
}

// cpuTime is the process's user and system CPU time so far: it counts the
// store's background work and the collector, which wall time on a shared
// machine does not show reliably.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkBlockCommit is a validator's work for one block of signed
// transfers (16 senders, each transfer to a new account, as netbench's
// load): Validate executes it on the head's state and CommitBuilt stores
// it, on a store on disk. "flat" keeps the flat copy of the state, "trie"
// runs without it (reads walk the tries, commits write no copy). Besides
// ns/op it reports cpu-ns/op (the process's CPU time, background
// compaction and collection included), written-B/op (the bytes of the
// batches written per block) and store-gets/op (single-key reads of the
// store: trie nodes, flat copy): the last two are exact on a loaded machine;
// validate-ns/op and commit-ns/op split the wall time between the two calls.
func BenchmarkBlockCommit(b *testing.B) {
	for _, txs := range []int{500, 1500} {
		for _, mode := range []string{"flat", "trie"} {
			b.Run(fmt.Sprintf("txs=%d/%s", txs, mode), func(b *testing.B) { benchBlockCommit(b, txs, mode == "flat") })
		}
	}
}

func benchBlockCommit(b *testing.B, txs int, withFlat bool) {
	const senders = 16
	keys := make([]*secp256k1.PrivateKey, senders)
	g := &Genesis{Config: AllForks(8118), GasLimit: 1_000_000_000, Alloc: Alloc{}}
	var bal U256
	bal.SetUint64(1e19)
	for i := range keys {
		keys[i], _ = crypto.GenerateKey()
		g.Alloc[types.Address(crypto.PubkeyToAddress(keys[i].PubKey()))] = Account{Balance: bal}
	}
	var one U256
	one.SetUint64(1)
	for i := 0; i < 50_000; i++ { // a state of some depth
		g.Alloc[types.Address{0xaa, byte(i >> 16), byte(i >> 8), byte(i)}] = Account{Balance: one}
	}
	proposer, err := Open(g, store.NewMem(), nil)
	if err != nil {
		b.Fatal(err)
	}
	kv, err := store.Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer kv.Close()
	ckv := &countingKV{KV: kv}
	c, err := Open(g, ckv, nil)
	if err != nil {
		b.Fatal(err)
	}
	if !withFlat {
		c.db.flat = nil
	}
	signer := proposer.Config.Signer(1, 1)
	nonces := make([]uint64, senders)
	next := uint64(0)
	block := func() *Built {
		list := make([]*types.Transaction, 0, txs)
		for i := 0; i < txs; i++ {
			s := i % senders
			next++
			to := types.Address{0xbe, byte(next >> 24), byte(next >> 16), byte(next >> 8), byte(next)}
			list = append(list, types.MustSignNewTx(keys[s], signer, &types.DynamicFeeTx{ChainID: *uint256.NewInt(8118),
				Nonce: nonces[s], GasTipCap: *uint256.NewInt(1), GasFeeCap: *uint256.NewInt(2e9), Gas: 21000, To: &to, Value: *uint256.NewInt(1)}))
			nonces[s]++
		}
		built, err := proposer.BuildBlock(BuildParams{Coinbase: types.Address{0xc0}, Time: proposer.Head().Time() + 1}, list)
		if err != nil {
			b.Fatal(err)
		}
		if len(built.Block.Transactions()) != txs {
			b.Fatalf("%d of %d transfers in the block", len(built.Block.Transactions()), txs)
		}
		if err := proposer.CommitBuilt(built); err != nil {
			b.Fatal(err)
		}
		return built
	}
	var cpu, validating, committing time.Duration
	written := ckv.written // c writes only in the measured part
	var gets int64
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		blk := block().Block
		start, startGets := cpuTime(), ckv.gets.Load()
		b.StartTimer()
		// The label picks the measured part out of a -cpuprofile.
		pprof.Do(context.Background(), pprof.Labels("part", "measured"), func(context.Context) {
			t0 := time.Now()
			v, err := c.Validate(blk)
			if err != nil {
				b.Fatal(err)
			}
			t1 := time.Now()
			if err := c.CommitBuilt(v); err != nil {
				b.Fatal(err)
			}
			validating, committing = validating+t1.Sub(t0), committing+time.Since(t1)
		})
		b.StopTimer()
		cpu += cpuTime() - start
		gets += ckv.gets.Load() - startGets
		b.StartTimer()
	}
	b.StopTimer()
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	// The two parts of a validator's critical path: the proposer's block
	// budget (bft's pacing) must cover both.
	b.ReportMetric(float64(validating.Nanoseconds())/float64(b.N), "validate-ns/op")
	b.ReportMetric(float64(committing.Nanoseconds())/float64(b.N), "commit-ns/op")
	b.ReportMetric(float64(ckv.written-written)/float64(b.N), "written-B/op")
	b.ReportMetric(float64(gets)/float64(b.N), "store-gets/op")
}
