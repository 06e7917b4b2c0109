package chain

import (
	"errors"
	"testing"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/holiman/uint256"
)

// fundedGenesis is a genesis of every fork at chain ID 8118 with the given
// gas limit, funding one fresh key with 1 ETH: the fixture most of this
// package's tests start from.
func fundedGenesis(gasLimit Uint64) (*secp256k1.PrivateKey, types.Address, *Genesis) {
	key, _ := crypto.GenerateKey()
	from := types.Address(crypto.PubkeyToAddress(key.PubKey()))
	g := &Genesis{Config: AllForks(8118), GasLimit: gasLimit, Alloc: Alloc{}}
	var bal U256
	bal.SetUint64(1e18)
	g.Alloc[from] = Account{Balance: bal}
	return key, from, g
}

// execFixture is a chain with one funded key.
func execFixture(t *testing.T) (*Genesis, *Chain, *secp256k1.PrivateKey) {
	t.Helper()
	key, _, g := fundedGenesis(30_000_000)
	c, err := Open(g, store.NewMem(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return g, c, key
}

func transfer(c *Chain, key *secp256k1.PrivateKey, nonce uint64) *types.Transaction {
	to := types.Address{0x42}
	return types.MustSignNewTx(key, c.Config.Signer(1, 1), &types.DynamicFeeTx{ChainID: *uint256.NewInt(c.Config.ChainID),
		Nonce: nonce, GasTipCap: *uint256.NewInt(1), GasFeeCap: *uint256.NewInt(2e9), Gas: 21000, To: &to, Value: *uint256.NewInt(1)})
}

// transferBlocks returns a builder of blocks of n transfers each from key,
// numbering the nonces from 0 in the order the blocks are built; each block
// is 10 s after the head it is built on.
func transferBlocks(tb testing.TB, c *Chain, key *secp256k1.PrivateKey, n int) func() *Built {
	nonce := uint64(0)
	return func() *Built {
		tb.Helper()
		batch := make([]*types.Transaction, 0, n)
		for range n {
			batch = append(batch, transfer(c, key, nonce))
			nonce++
		}
		built, err := c.BuildBlock(BuildParams{Time: c.Head().Time() + 10}, batch)
		if err != nil {
			tb.Fatal(err)
		}
		return built
	}
}

// TestCommitChecksStateRoot: a block whose header claims another state root
// than its execution produced is refused at commit, and nothing of it is
// stored, even on the path that skips validation (CommitBuilt).
func TestCommitChecksStateRoot(t *testing.T) {
	_, c, key := execFixture(t)
	built, err := c.BuildBlock(BuildParams{Time: 10}, []*types.Transaction{transfer(c, key, 0)})
	if err != nil {
		t.Fatal(err)
	}
	h := built.Block.Header()
	h.Root = types.Hash{0xba, 0xd}
	forged := types.NewBlock(h, built.Block.Body())
	err = c.CommitBuilt(&Built{Block: forged, State: built.State, Receipts: built.Receipts})
	if !errors.Is(err, ErrBadPostState) {
		t.Fatalf("commit of a block with a wrong state root: %v, want ErrBadPostState", err)
	}
	if c.Head().Number() != 0 {
		t.Fatalf("head moved to %d", c.Head().Number())
	}
	if _, ok := c.DB().BlockNumber(forged.Hash()); ok {
		t.Fatal("the refused block was stored")
	}
	// The honest block still commits afterwards.
	built, err = c.BuildBlock(BuildParams{Time: 10}, []*types.Transaction{transfer(c, key, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CommitBuilt(built); err != nil {
		t.Fatal(err)
	}
}

// finalizeEngine is an engine whose end-of-block rule is a test's function.
type finalizeEngine struct {
	Ethereum
	finalize func(x *Exec, burned *uint256.Int) error
}

func (e finalizeEngine) Finalize(x *Exec, burned *uint256.Int) (*ValidatorUpdate, error) {
	return nil, e.finalize(x, burned)
}

// TestEngineFinalizeOnEveryPath: the engine's end-of-block rule changes
// the state of a block the builder makes, an importing node reaches the
// same root only because it runs the rule too, and the rule is fed what
// the block burned.
func TestEngineFinalizeOnEveryPath(t *testing.T) {
	reward := types.Address{0xee}
	var burned []*uint256.Int
	rule := finalizeEngine{finalize: func(x *Exec, b *uint256.Int) error {
		x.State.AddBalance(reward, uint256.NewInt(x.Header.Number))
		burned = append(burned, new(uint256.Int).Set(b))
		return nil
	}}
	g, proposer, key := execFixture(t)
	proposer.engine = rule
	built, err := proposer.BuildBlock(BuildParams{Time: 10}, []*types.Transaction{transfer(proposer, key, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if err := proposer.CommitBuilt(built); err != nil {
		t.Fatal(err)
	}
	st, _ := proposer.StateAt(proposer.Head().Root())
	if got := st.GetBalance(reward); got.Uint64() != 1 {
		t.Fatalf("rule's credit: %v", got)
	}
	h := built.Block.HeaderRef()
	if want := new(uint256.Int).Mul(h.BaseFee, uint256.NewInt(h.GasUsed)); len(burned) != 1 || !burned[0].Eq(want) || want.IsZero() {
		t.Fatalf("burned fed to the rule: %v, want [%s]", burned, want)
	}

	withRule, err := Open(&Genesis{Config: g.Config, GasLimit: g.GasLimit, Alloc: g.Alloc}, store.NewMem(), rule)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := withRule.InsertBlock(built.Block); err != nil {
		t.Fatalf("importer running the rule: %v", err)
	}
	without, err := Open(&Genesis{Config: g.Config, GasLimit: g.GasLimit, Alloc: g.Alloc}, store.NewMem(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := without.InsertBlock(built.Block); !errors.Is(err, ErrBadPostState) {
		t.Fatalf("importer without the rule: %v, want ErrBadPostState", err)
	}

	// A failing rule makes the block invalid.
	withRule.engine = finalizeEngine{finalize: func(*Exec, *uint256.Int) error { return errors.New("boom") }}
	if _, err := withRule.BuildBlock(BuildParams{Time: 20}, nil); err == nil {
		t.Fatal("a failing end-of-block rule went unnoticed")
	}
}

// TestNextHeader: the fields a parent determines, and the attributes'.
func TestNextHeader(t *testing.T) {
	_, c, _ := execFixture(t)
	parent := c.Head().Header()
	br := types.Hash{0xbe}
	h, err := c.Config.NextHeader(parent, Attributes{Coinbase: types.Address{1}, Time: parent.Time + 5,
		GasLimit: 60_000_000, Extra: []byte("x"), Random: types.Hash{2}, ParentBeaconRoot: &br})
	if err != nil {
		t.Fatal(err)
	}
	if h.Number != 1 || h.ParentHash != parent.Hash() || h.Coinbase != (types.Address{1}) || h.MixDigest != (types.Hash{2}) {
		t.Fatalf("header: %+v", h)
	}
	if want := parent.GasLimit + parent.GasLimit/1024 - 1; h.GasLimit != want {
		t.Fatalf("gas limit %d, want one step up %d", h.GasLimit, want)
	}
	if h.BaseFee == nil || h.BaseFee.Cmp(c.Config.CalcBaseFee(parent)) != 0 {
		t.Fatalf("base fee %v", h.BaseFee)
	}
	if h.ParentBeaconRoot == nil || *h.ParentBeaconRoot != br || h.ExcessBlobGas == nil || h.WithdrawalsHash == nil {
		t.Fatalf("fork fields: %+v", h)
	}
	if _, err := c.Config.NextHeader(parent, Attributes{Time: parent.Time}); !errors.Is(err, ErrBadTimestamp) {
		t.Fatalf("timestamp not after parent: %v", err)
	}
	if err := c.Rules().ValidateHeader(parent, h); err != nil {
		t.Fatalf("the next header does not validate: %v", err)
	}
}

// TestNextHeaderBaseFeeOverride: a chosen base fee replaces the parent's
// EIP-1559 one, in the header and in the block built with it, and the
// block then fails Ethereum's header rule, as it must on other nodes.
func TestNextHeaderBaseFeeOverride(t *testing.T) {
	_, c, key := execFixture(t)
	parent := c.Head().Header()
	for _, fee := range []uint64{0, 7, 1_000_000_000_000} {
		h, err := c.Config.NextHeader(parent, Attributes{Time: parent.Time + 1, BaseFee: uint256.NewInt(fee)})
		if err != nil {
			t.Fatal(err)
		}
		if !h.BaseFee.Eq(uint256.NewInt(fee)) {
			t.Errorf("base fee %s, want %d", h.BaseFee, fee)
		}
		if err := c.Rules().ValidateHeader(parent, h); fee != c.Config.CalcBaseFee(parent).Uint64() && !errors.Is(err, ErrBadBaseFee) {
			t.Errorf("base fee %d: ValidateHeader = %v, want ErrBadBaseFee", fee, err)
		}
	}
	// The transfer's fee cap is 2 gwei: a block whose base fee is above
	// it leaves the transfer out.
	for _, c2 := range []struct{ fee, txs uint64 }{{0, 1}, {2e9, 1}, {2e9 + 1, 0}} {
		built, err := c.BuildBlock(BuildParams{Time: parent.Time + 1, BaseFee: uint256.NewInt(c2.fee)}, []*types.Transaction{transfer(c, key, 0)})
		if err != nil {
			t.Fatal(err)
		}
		if !built.Block.BaseFee().Eq(uint256.NewInt(c2.fee)) || uint64(len(built.Block.Transactions())) != c2.txs {
			t.Errorf("built with base fee %d: header %s, %d txs, want %d", c2.fee, built.Block.BaseFee(), len(built.Block.Transactions()), c2.txs)
		}
		built.State.Release()
	}
}

// TestTryApplyRestores: an invalid transaction leaves neither state nor
// gas pool changed.
func TestTryApplyRestores(t *testing.T) {
	_, c, key := execFixture(t)
	parent := c.Head().Header()
	h, _ := c.Config.NextHeader(parent, Attributes{Time: parent.Time + 1})
	st, _ := c.StateAt(parent.Root)
	x, err := c.Rules().Open(h, st, c.GetHash, nil)
	if err != nil {
		t.Fatal(err)
	}
	before, gas := st.IntermediateRoot(true), x.GasLeft()
	bad := transfer(c, key, 7) // nonce gap
	from, _ := x.Signer.Sender(bad)
	if _, _, err := x.TryApply(bad, evmMessage(bad, from)); err == nil {
		t.Fatal("nonce gap applied")
	}
	if st.IntermediateRoot(true) != before || x.GasLeft() != gas || len(x.Txs) != 0 {
		t.Fatal("a refused transaction changed the block")
	}
	if _, _, err := x.ApplyTx(transfer(c, key, 0)); err != nil {
		t.Fatal(err)
	}
	if x.GasUsed != 21000 || len(x.Receipts) != 1 || x.Receipts[0].CumulativeGasUsed != 21000 {
		t.Fatalf("gas used %d, receipts %d", x.GasUsed, len(x.Receipts))
	}
	res, err := x.Finish(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := x.ApplyTx(transfer(c, key, 1)); err == nil {
		t.Fatal("applied to a finished block")
	}
	blk := x.Seal(res)
	if _, err := c.InsertBlock(blk); err != nil {
		t.Fatalf("sealed block does not import: %v", err)
	}
}

func evmMessage(tx *types.Transaction, from types.Address) *evm.Message {
	return evm.TransactionToMessage(tx, from)
}
