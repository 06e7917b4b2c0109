package chain

import (
	"testing"
	"time"

	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// TestBuildAndImport builds blocks from transactions, then checks that a
// second node importing them with full validation agrees on every root.
func TestBuildAndImport(t *testing.T) {
	key, from, g := fundedGenesis(30_000_000)
	proposer, err := Open(g, store.NewMem(), nil)
	if err != nil {
		t.Fatal(err)
	}
	follower, err := Open(g, store.NewMem(), nil)
	if err != nil {
		t.Fatal(err)
	}
	signer := proposer.Config.Signer(1, 1)
	to := types.Address{0x42}
	// Deploy a contract that logs, then call it, plus plain transfers.
	initcode := []byte{0x60, 0x0a, 0x60, 0x0c, 0x60, 0x00, 0x39, 0x60, 0x0a, 0x60, 0x00, 0xf3, // CODECOPY runtime, RETURN
		0x60, 0x2a, 0x60, 0x00, 0x52, 0x60, 0x20, 0x60, 0x00, 0xa0, 0x00, 0x00} // runtime: MSTORE 42, LOG0
	nonce := uint64(0)
	mk := func(to *types.Address, data []byte, gas uint64) *types.Transaction {
		tx := types.MustSignNewTx(key, signer, &types.DynamicFeeTx{ChainID: *uint256.NewInt(8118), Nonce: nonce,
			GasTipCap: *uint256.NewInt(1), GasFeeCap: *uint256.NewInt(2e9), Gas: gas, To: to, Value: *uint256.NewInt(1), Data: data})
		nonce++
		return tx
	}
	created := types.CreateAddress(from, 0)
	blocks := [][]*types.Transaction{
		{mk(nil, initcode, 100000), mk(&to, nil, 21000)},
		{mk(&created, nil, 50000), mk(&to, nil, 21000), mk(&to, nil, 21000)},
	}
	for i, txs := range blocks {
		built, err := proposer.BuildBlock(BuildParams{Coinbase: types.Address{0xc0}, Time: uint64(10 * (i + 1))}, txs)
		if err != nil {
			t.Fatal(err)
		}
		if len(built.Block.Transactions()) != len(txs) || len(built.Dropped) != 0 {
			t.Fatalf("block %d: %d of %d txs included, dropped %v", i+1, len(built.Block.Transactions()), len(txs), built.Dropped)
		}
		if err := proposer.CommitBuilt(built); err != nil {
			t.Fatal(err)
		}
		if _, err := follower.InsertBlock(built.Block); err != nil {
			t.Fatalf("follower rejects block %d: %v", i+1, err)
		}
	}
	rs, err := proposer.DB().Receipts(proposer.Head().Hash())
	if err != nil || len(rs) != 3 || len(rs[0].Logs) != 1 {
		t.Fatalf("receipts of the logging call: %v %+v", err, rs)
	}
	if follower.Head().Hash() != proposer.Head().Hash() {
		t.Fatal("heads differ")
	}
	// A transaction with a stale nonce is dropped, one from the future deferred.
	stale := types.MustSignNewTx(key, signer, &types.DynamicFeeTx{ChainID: *uint256.NewInt(8118), Nonce: 0,
		GasFeeCap: *uint256.NewInt(2e9), Gas: 21000, To: &to})
	future := types.MustSignNewTx(key, signer, &types.DynamicFeeTx{ChainID: *uint256.NewInt(8118), Nonce: 99,
		GasFeeCap: *uint256.NewInt(2e9), Gas: 21000, To: &to})
	built, err := proposer.BuildBlock(BuildParams{Time: 100}, []*types.Transaction{stale, future})
	if err != nil {
		t.Fatal(err)
	}
	if len(built.Block.Transactions()) != 0 || len(built.Dropped) != 1 || built.Dropped[0] != stale.Hash() {
		t.Fatalf("included %d, dropped %v", len(built.Block.Transactions()), built.Dropped)
	}
}

// The builder stops adding transactions at its deadline, but only after
// the first MinTxs (a full pool never yields an empty block, however late
// the build), and before the transactions outgrow MaxTxBytes; nothing it
// stops before is dropped.
func TestBuildStopsAtDeadlineAndSize(t *testing.T) {
	key, _, g := fundedGenesis(30_000_000)
	c, err := Open(g, store.NewMem(), nil)
	if err != nil {
		t.Fatal(err)
	}
	signer := c.Config.Signer(1, 1)
	to := types.Address{0x42}
	var txs []*types.Transaction
	for n := range uint64(20) {
		txs = append(txs, types.MustSignNewTx(key, signer, &types.DynamicFeeTx{ChainID: *uint256.NewInt(8118), Nonce: n,
			GasFeeCap: *uint256.NewInt(2e9), Gas: 21000, To: &to}))
	}
	size := int(txs[0].Size())
	for _, tc := range []struct {
		name string
		p    BuildParams
		want int
	}{
		{"no limits", BuildParams{}, 20},
		{"deadline passed, no minimum", BuildParams{Deadline: time.Now().Add(-time.Second)}, 0},
		{"deadline passed, minimum 5", BuildParams{Deadline: time.Now().Add(-time.Second), MinTxs: 5}, 5},
		{"deadline passed, minimum 16", BuildParams{Deadline: time.Now().Add(-time.Second), MinTxs: 16}, 16},
		{"deadline passed, minimum above the pool", BuildParams{Deadline: time.Now().Add(-time.Second), MinTxs: 64}, 20},
		{"deadline ahead", BuildParams{Deadline: time.Now().Add(time.Hour)}, 20},
		{"seven fit", BuildParams{MaxTxBytes: 7*size + size/2}, 7},
		{"one byte short of one", BuildParams{MaxTxBytes: size - 1}, 0},
	} {
		tc.p.Time = 10
		built, err := c.BuildBlock(tc.p, txs)
		if err != nil {
			t.Fatal(err)
		}
		if got := len(built.Block.Transactions()); got != tc.want || len(built.Dropped) != 0 {
			t.Errorf("%s: %d transactions included (%d dropped), want %d", tc.name, got, len(built.Dropped), tc.want)
		}
	}
}
