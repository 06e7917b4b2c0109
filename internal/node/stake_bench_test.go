package node

import (
	"testing"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/pos"
	"github.com/chaind/chaind/internal/staking"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/holiman/uint256"
)

// BenchmarkDelegateVsERC20 executes a block of 200 delegate transactions
// and a block of 200 ERC-20 transfers through the one block executor
// (chain.BuildBlock: signature recovery, EVM, system contracts, the
// end-of-block rules) on the same chain, and reports gas and time per
// transaction. Both are their worst case: every delegation opens a new
// (delegator, validator) record and every transfer pays a fresh holder.
// The target: a delegation costs at most twice an ERC-20 transfer in gas
// and in time.
func BenchmarkDelegateVsERC20(b *testing.B) {
	const senders, perSender = 8, 25
	keys := devload.Keys("stake-bench", senders)
	g := devload.GenesisWithToken(8118, keys, 1_700_000_000)
	var valKeys []*secp256k1.PrivateKey
	for i := range perSender {
		k, err := DevValidatorKey(i)
		if err != nil {
			b.Fatal(err)
		}
		valKeys = append(valKeys, k)
	}
	if err := pos.SetDevStaking(g, valKeys, ""); err != nil {
		b.Fatal(err)
	}
	c, err := chain.Open(g, store.NewMem(), pos.ForGenesis(g))
	if err != nil {
		b.Fatal(err)
	}
	signer := devload.NewSigner(8118)
	var erc20, delegations []*types.Transaction
	for _, k := range keys {
		w, err := signer.Workload(devload.KindERC20, k, 0, perSender, devload.TokenAddress)
		if err != nil {
			b.Fatal(err)
		}
		erc20 = append(erc20, w...)
		for j, vk := range valKeys {
			op, _ := staking.ConsensusAddress(vk.PubKey().SerializeCompressed())
			data, err := staking.EncodeCall("Staking", "delegate", op)
			if err != nil {
				b.Fatal(err)
			}
			tx, err := signer.Sign(k, uint64(j), &staking.StakingAddress, uint256.NewInt(1e18), 100_000, data)
			if err != nil {
				b.Fatal(err)
			}
			delegations = append(delegations, tx)
		}
	}
	head := c.Head()
	for _, w := range []struct {
		name string
		txs  []*types.Transaction
	}{{"erc20-transfer", erc20}, {"delegate", delegations}} {
		b.Run(w.name, func(b *testing.B) {
			var built *chain.Built
			for b.Loop() {
				built, err = c.BuildBlock(chain.BuildParams{Coinbase: types.Address{1}, Time: head.Time() + 1}, w.txs)
				if err != nil {
					b.Fatal(err)
				}
			}
			if got := len(built.Block.Transactions()); got != len(w.txs) {
				b.Fatalf("%d of %d transactions applied", got, len(w.txs))
			}
			for _, r := range built.Receipts {
				if r.Status != types.ReceiptStatusSuccessful {
					b.Fatal("a transaction failed")
				}
			}
			n := float64(len(w.txs))
			b.ReportMetric(float64(built.Block.GasUsed())/n, "gas/tx")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/tx")
		})
	}
}
