package chain

import (
	"errors"
	"testing"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/holiman/uint256"
)

// TestInsertChain imports a segment whose senders are recovered ahead of
// execution across blocks: the follower must reach the proposer's head,
// skip blocks it already has, and stop at a failing block with the ones
// before it stored.
func TestInsertChain(t *testing.T) {
	const senders, blocks, perSender = 5, 6, 3
	g := &Genesis{Config: AllForks(8118), GasLimit: 30_000_000, Alloc: Alloc{}}
	var keys []*secp256k1.PrivateKey
	for i := 0; i < senders; i++ {
		k, _ := crypto.GenerateKey()
		keys = append(keys, k)
		var bal U256
		bal.SetUint64(1e18)
		g.Alloc[types.Address(crypto.PubkeyToAddress(k.PubKey()))] = Account{Balance: bal}
	}
	proposer, err := Open(g, store.NewMem(), nil)
	if err != nil {
		t.Fatal(err)
	}
	signer := proposer.Config.Signer(1, 1)
	to := types.Address{0x42}
	var raw [][]byte
	for n := 0; n < blocks; n++ {
		var txs []*types.Transaction
		for _, k := range keys {
			for j := 0; j < perSender; j++ {
				txs = append(txs, types.MustSignNewTx(k, signer, &types.DynamicFeeTx{ChainID: *uint256.NewInt(8118),
					Nonce: uint64(n*perSender + j), GasFeeCap: *uint256.NewInt(2e9), Gas: 21000, To: &to, Value: *uint256.NewInt(1)}))
			}
		}
		built, err := proposer.BuildBlock(BuildParams{Coinbase: types.Address{0xc0}, Time: uint64(10 * (n + 1))}, txs)
		if err != nil {
			t.Fatal(err)
		}
		if len(built.Block.Transactions()) != len(txs) {
			t.Fatalf("block %d: %d of %d txs included", n+1, len(built.Block.Transactions()), len(txs))
		}
		if err := proposer.CommitBuilt(built); err != nil {
			t.Fatal(err)
		}
		raw = append(raw, built.Block.EncodeRLP())
	}
	// Decoded afresh, so no sender is cached in the transactions.
	decode := func(idx ...int) []*types.Block {
		var out []*types.Block
		for _, i := range idx {
			b, err := types.DecodeBlock(raw[i])
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, b)
		}
		return out
	}

	follower, err := Open(g, store.NewMem(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []uint64
	record := func(b *types.Block) { got = append(got, b.Number()) }
	if n, err := follower.InsertChain(decode(0, 1, 2), record); err != nil || n != 3 {
		t.Fatalf("first segment: n=%d err=%v", n, err)
	}
	// Blocks 2 and 3 are known and skipped; 4..6 go in.
	if n, err := follower.InsertChain(decode(1, 2, 3, 4, 5), record); err != nil || n != 5 {
		t.Fatalf("second segment: n=%d err=%v", n, err)
	}
	if want := []uint64{1, 2, 3, 4, 5, 6}; len(got) != len(want) || got[0] != 1 || got[5] != 6 {
		t.Fatalf("inserted %v, want %v", got, want)
	}
	if follower.Head().Hash() != proposer.Head().Hash() {
		t.Fatal("heads differ")
	}
	for i, tx := range follower.Head().Transactions() {
		from, err := signer.Sender(tx)
		if err != nil || from != types.Address(crypto.PubkeyToAddress(keys[i/perSender].PubKey())) {
			t.Fatalf("tx %d: sender %s, %v", i, from, err)
		}
	}

	// A gap: block 4 follows block 2 directly, so it fails at index 2 and
	// blocks 1 and 2 stay stored.
	other, err := Open(g, store.NewMem(), nil)
	if err != nil {
		t.Fatal(err)
	}
	n, err := other.InsertChain(decode(0, 1, 3, 4), nil)
	if n != 2 || !errors.Is(err, ErrUnknownParent) {
		t.Fatalf("gap: n=%d err=%v, want 2 and ErrUnknownParent", n, err)
	}
	if other.Head().Number() != 2 {
		t.Fatalf("head %d after the failed segment, want 2", other.Head().Number())
	}
}
