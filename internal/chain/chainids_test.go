package chain

import (
	"errors"
	"slices"
	"testing"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

func TestWithChainID(t *testing.T) {
	for _, c := range []struct {
		name     string
		list     []chainIDFrom
		from, id uint64
		want     []chainIDFrom
	}{
		{"first change", nil, 5, 7, []chainIDFrom{{5, 7}}},
		{"back to the genesis's adds nothing", nil, 5, 1, []chainIDFrom{}},
		{"a later change", []chainIDFrom{{5, 7}}, 9, 8, []chainIDFrom{{5, 7}, {9, 8}}},
		{"again at the same block replaces it", []chainIDFrom{{5, 7}}, 5, 8, []chainIDFrom{{5, 8}}},
		{"back to the ID before drops the change", []chainIDFrom{{5, 7}, {9, 8}}, 9, 7, []chainIDFrom{{5, 7}}},
		{"changes past from go", []chainIDFrom{{5, 7}, {9, 8}}, 6, 3, []chainIDFrom{{5, 7}, {6, 3}}},
		{"a rewind below every change keeps the top ID", []chainIDFrom{{5, 7}, {9, 8}}, 2, 8, []chainIDFrom{{2, 8}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := withChainID(c.list, 1, c.from, c.id)
			if !slices.Equal(got, c.want) {
				t.Fatalf("got %v, want %v", got, c.want)
			}
			at := func(list []chainIDFrom, n uint64) uint64 {
				cfg := &Config{ChainID: 1, ChainIDs: NewChainIDs()}
				cfg.ChainIDs.list.Store(&list)
				return cfg.ChainIDAt(n)
			}
			if got := at(got, c.from); got != c.id {
				t.Fatalf("ChainIDAt(%d) = %d, want %d", c.from, got, c.id)
			}
			if c.from > 0 && at(got, c.from-1) != at(c.list, c.from-1) {
				t.Fatalf("ChainIDAt(%d) moved from %d to %d", c.from-1, at(c.list, c.from-1), at(got, c.from-1))
			}
		})
	}
}

// FuzzDecodeChainIDs: the stored record's decoder never panics, and what
// it accepts encodes back to the same bytes.
func FuzzDecodeChainIDs(f *testing.F) {
	f.Add([]byte{})
	f.Add(encodeChainIDs([]chainIDFrom{{1, 777}, {5, 8118}}))
	f.Add(encodeChainIDs([]chainIDFrom{{5, 7}, {5, 8}}))
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, v []byte) {
		list, err := decodeChainIDs(v)
		if err != nil {
			return
		}
		if again := encodeChainIDs(list); string(again) != string(v) {
			t.Fatalf("%x decoded to %v, which encodes to %x", v, list, again)
		}
	})
}

// chainIDCode stores CHAINID in slot 0: CHAINID PUSH0 SSTORE STOP.
var chainIDCode = []byte{0x46, 0x5f, 0x55, 0x00}

// TestSetChainID: a development chain's ID moves from the block after
// the head; the blocks before keep theirs, so replaying one gives its
// root again; transactions for the old ID are dropped from new blocks;
// a rewind keeps the latest ID; the changes survive a reopen of the
// store; other chains refuse a change.
func TestSetChainID(t *testing.T) {
	key, _ := crypto.GenerateKey()
	from := types.Address(crypto.PubkeyToAddress(key.PubKey()))
	contract := types.Address{0xc1}
	var bal U256
	bal.SetUint64(1e18)
	mkGenesis := func(ids *ChainIDs) *Genesis {
		cfg := AllForks(8118)
		cfg.ChainIDs = ids
		return &Genesis{Config: cfg, GasLimit: 30_000_000, Timestamp: 1000,
			Alloc: Alloc{from: Account{Balance: bal}, contract: Account{Code: chainIDCode}}}
	}
	kv := store.NewMem()
	c, err := Open(mkGenesis(NewChainIDs()), kv, nil)
	if err != nil {
		t.Fatal(err)
	}
	nonce := uint64(0)
	call := func(chainID uint64) *types.Transaction {
		tx := types.MustSignNewTx(key, types.LatestSigner(chainID), &types.DynamicFeeTx{ChainID: *uint256.NewInt(chainID), Nonce: nonce,
			GasTipCap: *uint256.NewInt(1), GasFeeCap: *uint256.NewInt(2e9), Gas: 60_000, To: &contract})
		return tx
	}
	build := func(txs ...*types.Transaction) *Built {
		t.Helper()
		built, err := c.BuildBlock(BuildParams{Time: c.Head().Time() + 1}, txs)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.CommitBuilt(built); err != nil {
			t.Fatal(err)
		}
		nonce += uint64(len(built.Block.Transactions()))
		return built
	}
	slot := func(b *types.Block) uint64 {
		t.Helper()
		st, err := c.StateAt(b.Root())
		if err != nil {
			t.Fatal(err)
		}
		defer st.Release()
		v := st.GetState(contract, types.Hash{})
		return new(uint256.Int).SetBytes(v[:]).Uint64()
	}

	b1 := build(call(8118)).Block
	if got := slot(b1); got != 8118 {
		t.Fatalf("block 1 stored CHAINID %d", got)
	}
	if err := c.SetChainID(0); !errors.Is(err, ErrChainIDZero) {
		t.Fatalf("SetChainID(0): %v", err)
	}
	if err := c.SetChainID(777); err != nil {
		t.Fatal(err)
	}
	if c.Config.ChainIDAt(1) != 8118 || c.Config.ChainIDAt(2) != 777 || c.Config.ChainID != 8118 {
		t.Fatalf("IDs at 1, 2: %d %d (genesis %d)", c.Config.ChainIDAt(1), c.Config.ChainIDAt(2), c.Config.ChainID)
	}
	old, fresh := call(8118), call(777) // the same nonce
	built := build(old, fresh)
	b2 := built.Block
	if len(built.Dropped) != 1 || built.Dropped[0] != old.Hash() || len(b2.Transactions()) != 1 || b2.Transactions()[0].Hash() != fresh.Hash() {
		t.Fatalf("block 2 took %d txs, dropped %v", len(b2.Transactions()), built.Dropped)
	}
	if got := slot(b2); got != 777 {
		t.Fatalf("block 2 stored CHAINID %d", got)
	}

	// Replaying block 1 on its parent's state gives its root again: the
	// replay runs under the ID block 1 was made with.
	replay := func(b *types.Block) {
		t.Helper()
		parent, _ := c.BlockByNumber(b.Number() - 1)
		st, err := c.StateAt(parent.Root())
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Rules().Process(b, st, c.GetHash)
		if err != nil {
			t.Fatalf("replay of block %d: %v", b.Number(), err)
		}
		if res.Root != b.Root() {
			t.Fatalf("replay of block %d: root %s, block says %s", b.Number(), res.Root, b.Root())
		}
	}
	replay(b1)
	replay(b2)

	// A rewind below the change keeps the latest ID for the blocks made
	// again.
	if err := c.Rewind(1); err != nil {
		t.Fatal(err)
	}
	if c.Config.ChainIDAt(1) != 8118 || c.Config.ChainIDAt(2) != 777 {
		t.Fatalf("after the rewind: %d %d", c.Config.ChainIDAt(1), c.Config.ChainIDAt(2))
	}
	if err := c.Rewind(0); err != nil {
		t.Fatal(err)
	}
	if c.Config.ChainIDAt(0) != 8118 || c.Config.ChainIDAt(1) != 777 {
		t.Fatalf("after the rewind to genesis: %d %d", c.Config.ChainIDAt(0), c.Config.ChainIDAt(1))
	}
	nonce = 0
	b1 = build(call(777)).Block
	if got := slot(b1); got != 777 {
		t.Fatalf("block 1 made again stored CHAINID %d", got)
	}
	if err := c.SetChainID(8118); err != nil {
		t.Fatal(err)
	}
	b2 = build(call(8118)).Block

	// The changes are the chain's: a reopen keeps them, a development
	// node's or not.
	for _, ids := range []*ChainIDs{NewChainIDs(), nil} {
		r, err := Open(mkGenesis(ids), kv, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Config.ChainIDAt(0) != 8118 || r.Config.ChainIDAt(1) != 777 || r.Config.ChainIDAt(2) != 8118 {
			t.Fatalf("reopened (%v): %d %d %d", ids != nil, r.Config.ChainIDAt(0), r.Config.ChainIDAt(1), r.Config.ChainIDAt(2))
		}
		parent, _ := r.BlockByNumber(0)
		st, _ := r.StateAt(parent.Root())
		if res, err := r.Rules().Process(b1, st, r.GetHash); err != nil || res.Root != b1.Root() {
			t.Fatalf("reopened (%v): replay of block 1: %v", ids != nil, err)
		}
		if err := r.SetChainID(5); (ids == nil) != errors.Is(err, ErrChainIDFixed) {
			t.Fatalf("reopened (%v): SetChainID: %v", ids != nil, err)
		}
		if ids != nil {
			r.SetChainID(8118) // back as it was for the next open
		}
	}

	// A reset to the genesis (anvil_reset) keeps the latest ID too, as
	// anvil's does.
	if err := c.SetChainID(99); err != nil {
		t.Fatal(err)
	}
	if err := c.Reset(nil); err != nil {
		t.Fatal(err)
	}
	if c.Head().Number() != 0 || c.Config.ChainIDAt(0) != 8118 || c.Config.ChainIDAt(1) != 99 {
		t.Fatalf("after a reset: head %d, IDs %d %d", c.Head().Number(), c.Config.ChainIDAt(0), c.Config.ChainIDAt(1))
	}

	fixed, err := Open(mkGenesis(nil), store.NewMem(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := fixed.SetChainID(5); !errors.Is(err, ErrChainIDFixed) || fixed.Config.ChainIDAt(9) != 8118 {
		t.Fatalf("a chain that is no development one: %v", err)
	}
}
