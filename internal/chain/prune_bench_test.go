package chain

import (
	"slices"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// BenchmarkPrunePause measures a pruning pass over a state of 20,000
// accounts after 8 blocks of 50 transfers each: ns/op is the whole pass
// (in the background), pause-max-ns and pause-p99-ns the longest holds of
// the chain, which is what block production waits for.
func BenchmarkPrunePause(b *testing.B) {
	key, _, g := fundedGenesis(60_000_000)
	var one U256
	one.SetUint64(1)
	for i := 0; i < 20_000; i++ {
		g.Alloc[types.Address{0xbe, byte(i >> 16), byte(i >> 8), byte(i)}] = Account{Balance: one}
	}
	c, err := Open(g, store.NewMem(), nil)
	if err != nil {
		b.Fatal(err)
	}
	nonce := uint64(0)
	var pauses []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for blk := 0; blk < 8; blk++ {
			var txs []*types.Transaction
			for k := 0; k < 50; k++ {
				to := types.Address{0xbe, 0, byte(nonce >> 8), byte(nonce)}
				txs = append(txs, types.MustSignNewTx(key, c.Config.Signer(1, 1), &types.DynamicFeeTx{ChainID: *uint256.NewInt(8118),
					Nonce: nonce, GasTipCap: *uint256.NewInt(1), GasFeeCap: *uint256.NewInt(2e9), Gas: 21000, To: &to, Value: *uint256.NewInt(1)}))
				nonce++
			}
			built, err := c.BuildBlock(BuildParams{Time: c.Head().Time() + 1}, txs)
			if err != nil {
				b.Fatal(err)
			}
			if err := c.CommitBuilt(built); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		st, err := c.Prune(4)
		if err != nil {
			b.Fatal(err)
		}
		pauses = append(pauses, st.Pauses...)
	}
	b.StopTimer()
	if len(pauses) > 0 {
		slices.Sort(pauses)
		b.ReportMetric(float64(pauses[len(pauses)-1].Nanoseconds()), "pause-max-ns")
		b.ReportMetric(float64(pauses[len(pauses)*99/100].Nanoseconds()), "pause-p99-ns")
	}
}
