package chain

import (
	"testing"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// forwarder is runtime code that CALLs to with all of its call value, then
// stops (or reverts the whole transaction when revert is set).
func forwarder(to types.Address, revert bool) []byte {
	code := []byte{0x60, 0, 0x60, 0, 0x60, 0, 0x60, 0, 0x34, 0x73} // retSize..argsOffset, CALLVALUE, PUSH20
	code = append(code, to[:]...)
	code = append(code, 0x5a, 0xf1) // GAS, CALL
	if revert {
		return append(code, 0x60, 0, 0x60, 0, 0xfd) // REVERT(0, 0)
	}
	return append(code, 0x00)
}

// TestHistoryIndexesInternalTransfers: value a contract passes on lists
// the transaction for its recipient as well; a transfer undone by a
// failing frame or a reverted transaction lists nothing.
func TestHistoryIndexesInternalTransfers(t *testing.T) {
	key, _ := crypto.GenerateKey()
	from := types.Address(crypto.PubkeyToAddress(key.PubKey()))
	var (
		payee     = types.Address{0xaa}
		refuser   = types.Address{0xbb} // reverts whatever it is sent
		fwd       = types.Address{0xf1}
		fwdRevert = types.Address{0xf2} // forwards to payee2, then reverts
		payee2    = types.Address{0xcc}
		fwdRefuse = types.Address{0xf3} // forwards to the refuser, which fails
	)
	g := &Genesis{Config: AllForks(8118), GasLimit: 30_000_000, Alloc: Alloc{}}
	var bal U256
	bal.SetUint64(1e18)
	g.Alloc[from] = Account{Balance: bal}
	g.Alloc[refuser] = Account{Code: []byte{0x60, 0, 0x60, 0, 0xfd}}
	g.Alloc[fwd] = Account{Code: forwarder(payee, false)}
	g.Alloc[fwdRevert] = Account{Code: forwarder(payee2, true)}
	g.Alloc[fwdRefuse] = Account{Code: forwarder(refuser, false)}
	proposer, err := Open(g, store.NewMem(), nil)
	if err != nil {
		t.Fatal(err)
	}
	follower, err := Open(g, store.NewMem(), nil)
	if err != nil {
		t.Fatal(err)
	}
	signer := proposer.Config.Signer(1, 1)
	var txs []*types.Transaction
	for i, to := range []types.Address{fwd, fwdRevert, fwdRefuse} {
		to := to
		txs = append(txs, types.MustSignNewTx(key, signer, &types.DynamicFeeTx{ChainID: *uint256.NewInt(8118), Nonce: uint64(i),
			GasTipCap: *uint256.NewInt(1), GasFeeCap: *uint256.NewInt(2e9), Gas: 100_000, To: &to, Value: *uint256.NewInt(5)}))
	}
	built, err := proposer.BuildBlock(BuildParams{Time: 10}, txs)
	if err != nil {
		t.Fatal(err)
	}
	if len(built.Block.Transactions()) != 3 {
		t.Fatalf("%d of 3 transactions built", len(built.Block.Transactions()))
	}
	if err := proposer.CommitBuilt(built); err != nil {
		t.Fatal(err)
	}
	if _, err := follower.InsertBlock(built.Block); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]*Chain{"builder": proposer, "importer": follower} {
		for _, tc := range []struct {
			addr types.Address
			want uint64
		}{
			{payee, 1},   // reached through fwd
			{payee2, 0},  // its transfer was reverted with the transaction
			{refuser, 0}, // its frame failed
			{fwd, 1}, {fwdRevert, 1}, {fwdRefuse, 1},
			{from, 3},
		} {
			n, err := c.DB().AddressTxCount(tc.addr)
			if err != nil {
				t.Fatal(err)
			}
			if n != tc.want {
				t.Errorf("%s: %s has %d indexed transactions, want %d", name, tc.addr, n, tc.want)
			}
		}
		ref, err := c.DB().AddressTxAt(payee, 0)
		if err != nil || ref.Hash != txs[0].Hash() {
			t.Errorf("%s: payee's transaction %+v (%v), want %s", name, ref, err, txs[0].Hash())
		}
	}
}
