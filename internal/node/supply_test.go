package node

import (
	"errors"
	"testing"

	"github.com/chaind/chaind/internal/staking"
	"github.com/chaind/chaind/state"
	"github.com/chaind/chaind/trie"
	"github.com/holiman/uint256"
)

// checkSupply checks the supply the staking state records against the
// world state itself at every block of n's chain whose state is kept: the
// sum of every account's balance (walked through the account trie) is
// exactly genesis + minted − burned. Tips move coins between accounts;
// base fees, blob fees, slashes and vetoed deposits leave the supply;
// rewards enter it.
func checkSupply(t *testing.T, n *Node) {
	t.Helper()
	checked := 0
	head := n.Chain.Head().Number()
	// Newest first: the chain goes on deciding, and its pruner may delete
	// the oldest kept state while this walks it. A node missing from a
	// state is the pruning boundary only after a newer state was checked
	// whole; the newest must be complete.
	for num := int64(head); num >= 0; num-- {
		b, err := n.Chain.BlockByNumber(uint64(num))
		if err != nil {
			t.Fatal(err)
		}
		st, err := n.Chain.StateAt(b.Root())
		if err != nil {
			break // pruned, and every older one too
		}
		recorded := staking.ReadSupply(st)
		st.Release()
		tr, err := trie.NewSecure(b.Root(), n.Chain.DB())
		if err != nil {
			t.Fatal(err)
		}
		sum := new(uint256.Int)
		it := tr.NewIterator(nil)
		for it.Next() {
			acc, err := state.DecodeAccount(it.Value())
			if err != nil {
				t.Fatal(err)
			}
			sum.Add(sum, &acc.Balance)
		}
		if err := it.Err(); err != nil {
			if errors.Is(err, trie.ErrMissingNode) && checked > 0 {
				break // pruned under the walk
			}
			t.Fatalf("block %d: %v", num, err)
		}
		if !sum.Eq(recorded.Total) {
			t.Fatalf("block %d: balances sum to %v, the recorded supply is %v (minted %v, burned %v)", num, sum, recorded.Total, recorded.Minted, recorded.Burned)
		}
		checked++
	}
	if checked < int(min(head+1, 64)) {
		t.Fatalf("only %d of %d blocks had their state to check", checked, head+1)
	}
	t.Logf("supply exact at %d blocks", checked)
}
