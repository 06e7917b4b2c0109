package ethbackend

import (
	"context"
	"testing"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/node/chainview"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// crediting is an engine whose end-of-block rule changes the state: a
// path that skipped it would end on another state root.
type crediting struct{ chain.Ethereum }

func (crediting) Finalize(x *chain.Exec, _ *uint256.Int) (*chain.ValidatorUpdate, error) {
	x.State.AddBalance(types.Address{0xee}, uint256.NewInt(x.Header.Number))
	return nil, nil
}

// TestOneExecutorEveryPath builds a block through the block builder,
// replays it through import, and runs the same inputs through
// testing_buildBlockV1 and eth_simulateV1: every path is the one block
// executor, so every path must arrive at the same header. (Simulated
// transactions are unsigned calls, so there only the transaction root —
// and with it the hash — may differ, as in go-ethereum.)
func TestOneExecutorEveryPath(t *testing.T) {
	key, _ := crypto.GenerateKey()
	from := types.Address(crypto.PubkeyToAddress(key.PubKey()))
	g := chain.DevGenesis(chain.MainChainID, []types.Address{from}, 1_700_000_000)
	// An end-of-block rule that changes the state: a path that skipped it
	// would end on another state root.
	open := func() *chain.Chain {
		c, err := chain.Open(g, store.NewMem(), crediting{})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	builder, importer := open(), open()
	b := New(chainview.New(open()), nil, Options{GasCap: 50_000_000})

	// A contract that logs and stores, deployed and called, and a transfer.
	initcode := []byte{0x60, 0x0e, 0x60, 0x0c, 0x60, 0x00, 0x39, 0x60, 0x0e, 0x60, 0x00, 0xf3, // CODECOPY runtime, RETURN
		0x60, 0x2a, 0x60, 0x00, 0x52, 0x60, 0x20, 0x60, 0x00, 0xa0, 0x60, 0x01, 0x60, 0x00, 0x55, 0x00} // MSTORE 42, LOG0, SSTORE 0=1
	created := types.CreateAddress(from, 0)
	to := types.Address{0x42}
	type call struct {
		to   *types.Address
		data []byte
		gas  uint64
	}
	calls := []call{{nil, initcode, 200_000}, {&created, nil, 100_000}, {&to, nil, 21_000}}
	parent := builder.Head().Header()
	signer := builder.Config.Signer(parent.Number+1, parent.Time+12)
	tip, feeCap := uint256.NewInt(2), uint256.NewInt(50e9)
	var txs []*types.Transaction
	var raws [][]byte
	var args []backend.CallArgs
	for i, c := range calls {
		tx := types.MustSignNewTx(key, signer, &types.DynamicFeeTx{ChainID: *uint256.NewInt(g.Config.ChainID), Nonce: uint64(i),
			GasTipCap: *tip, GasFeeCap: *feeCap, Gas: c.gas, To: c.to, Value: *uint256.NewInt(7), Data: c.data})
		txs = append(txs, tx)
		raw, _ := tx.MarshalBinary()
		raws = append(raws, raw)
		data := c.data
		args = append(args, backend.CallArgs{From: &from, To: c.to, Gas: ptr(c.gas), MaxFeePerGas: feeCap,
			MaxPriorityFeePerGas: tip, Value: uint256.NewInt(7), Nonce: ptr(uint64(i)), Input: &data})
	}
	coinbase, random, beacon := types.Address{0xc0}, types.Hash{0x5e}, types.Hash{0xbe}
	time := parent.Time + 12
	const gasLimit = 60_000_000 // testing_buildBlockV1 steers toward it

	built, err := builder.BuildBlock(chain.BuildParams{Coinbase: coinbase, Time: time, GasLimit: gasLimit,
		Random: random, ParentBeaconRoot: beacon}, txs)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(built.Block.Transactions()); n != len(txs) {
		t.Fatalf("builder took %d of %d transactions (dropped %v)", n, len(txs), built.Dropped)
	}
	want := built.Block.Header()
	if err := builder.CommitBuilt(built); err != nil {
		t.Fatalf("builder's own commit: %v", err)
	}

	if _, err := importer.InsertBlock(built.Block); err != nil {
		t.Fatalf("import: %v", err)
	}
	same(t, "import", want, importer.Head().Header(), false)

	ctx := context.Background()
	tb, err := b.BuildBlock(ctx, &backend.BuildRequest{Parent: parent.Hash(), Timestamp: time, PrevRandao: random,
		FeeRecipient: coinbase, ParentBeaconRoot: &beacon, Transactions: raws})
	if err != nil {
		t.Fatalf("testing_buildBlockV1: %v", err)
	}
	same(t, "testing_buildBlockV1", want, tb.Block.Header(), false)

	sims, err := b.Simulate(ctx, &backend.SimulateRequest{Base: b.Head(), Validation: true, Blocks: []backend.SimBlock{{
		Overrides: &backend.SimBlockOverrides{Number: ptr(parent.Number + 1), Time: &time, GasLimit: ptr(want.GasLimit),
			FeeRecipient: &coinbase, PrevRandao: &random, BeaconRoot: &beacon},
		Calls: args,
	}}})
	if err != nil {
		t.Fatalf("eth_simulateV1: %v", err)
	}
	same(t, "eth_simulateV1", want, sims[0].Block.Header(), true)
}

// same compares every header field; unsignedTxs leaves out the
// transaction root (simulated transactions carry no signature).
func same(t *testing.T, path string, want, got *types.Header, unsignedTxs bool) {
	t.Helper()
	if unsignedTxs {
		c := *got
		c.TxHash = want.TxHash
		got = &c
	}
	if got.Hash() == want.Hash() {
		return
	}
	wj, _ := want.MarshalJSON()
	gj, _ := got.MarshalJSON()
	t.Errorf("%s gives another header:\n got  %s\n want %s", path, gj, wj)
}
