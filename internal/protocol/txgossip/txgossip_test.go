package txgossip

import (
	"fmt"
	"testing"

	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/types"
)

func TestKnownTxs(t *testing.T) {
	keys := devload.Keys("known-txs", 1)
	txs, err := devload.NewSigner(8119).Workload(devload.KindTransfer, keys[0], 0, 3, types.Address{})
	if err != nil {
		t.Fatal(err)
	}
	validated := types.NewBlockWithHeader(&types.Header{Number: 1}).WithBody(types.Body{Transactions: txs[:2]})
	committed := types.NewBlockWithHeader(&types.Header{Number: 1}).WithBody(types.Body{Transactions: txs[1:2]})
	k := newKnownTxs(16)
	k.add(validated, false)
	k.add(committed, true)
	for i, want := range []struct {
		committed bool
		validated *types.Transaction
	}{{false, txs[0]}, {true, nil}, {false, nil}} {
		c, v := k.lookup(txs[i].Hash())
		if c != want.committed || v != want.validated {
			t.Errorf("tx %d: committed %v, validated copy %p; want %v, %p", i, c, v, want.committed, want.validated)
		}
	}
	// Bounded: old generations go.
	for n := range uint64(40) {
		k.add(types.NewBlockWithHeader(&types.Header{Number: n}).WithBody(types.Body{Transactions: mustWorkload(t, n)}), true)
	}
	if c, v := k.lookup(txs[0].Hash()); c || v != nil {
		t.Fatal("an old transaction is still remembered")
	}
}

func mustWorkload(t *testing.T, seed uint64) types.Transactions {
	keys := devload.Keys(fmt.Sprint("known-txs-", seed), 1)
	txs, err := devload.NewSigner(8119).Workload(devload.KindTransfer, keys[0], 0, 1, types.Address{})
	if err != nil {
		t.Fatal(err)
	}
	return txs
}
