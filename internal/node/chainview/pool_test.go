package chainview

import (
	"log/slog"
	"testing"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/txpool"
	"github.com/chaind/chaind/internal/types"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/holiman/uint256"
)

// A client that sees a new head (a receipt, a balance) and at once sends a
// transaction that head made possible meets a pool that stands on it, even
// before the keeper has been told of the head (the consensus callback and
// Follow run after the chain publishes it): the pool moves itself on
// admission. Without that, a key funded by the block was refused against
// the state before it ("insufficient funds ... have 0": the CI flake of
// TestMinVersionRaisedStopsSigning, whose validators vote right after the
// block that funds them).
func TestPoolStandsOnTheHeadItAdmitsAgainst(t *testing.T) {
	funder, _ := crypto.GenerateKey()
	funded, _ := crypto.GenerateKey()
	from, to := addrOf(funder), addrOf(funded)
	c := fundedChain(t, from, store.NewMem())
	v := New(c)
	ph, err := v.PoolHead()
	if err != nil {
		t.Fatal(err)
	}
	pool := txpool.New(txpool.DefaultConfig, ph)
	v.KeepPool(pool, slog.New(slog.DiscardHandler))

	signer := c.Config.Signer(1, 1)
	send := func(key *secp256k1.PrivateKey, nonce uint64, value uint64) *types.Transaction {
		return types.MustSignNewTx(key, signer, &types.DynamicFeeTx{ChainID: *uint256.NewInt(8118), Nonce: nonce,
			GasTipCap: *uint256.NewInt(1), GasFeeCap: *uint256.NewInt(2e9), Gas: 21000, To: &to, Value: *uint256.NewInt(value)})
	}
	// Block 1 funds the second key; the keeper is not told (no Reset).
	built, err := c.BuildBlock(chain.BuildParams{Time: c.Head().Time() + 1}, []*types.Transaction{send(funder, 0, 1e17)})
	if err != nil {
		t.Fatal(err)
	}
	if len(built.Block.Transactions()) != 1 {
		t.Fatalf("block 1 holds %d transactions, want the funding one", len(built.Block.Transactions()))
	}
	if err := c.CommitBuilt(built); err != nil {
		t.Fatal(err)
	}
	if n, err := pool.Nonce(from); err != nil || n != 1 {
		t.Errorf("pending nonce of the funder %d after block 1, want 1", n)
	}
	if err := pool.Add(send(funded, 0, 1)); err != nil {
		t.Fatalf("a key funded by the head refused: %v", err)
	}
	// The one the head already holds is gone from the pool.
	if pool.Len() != 1 {
		t.Fatalf("pool holds %d transactions, want 1", pool.Len())
	}
}

// fundedChain opens a chain of every fork at chain ID 8118 on kv whose
// genesis gives from 1 ETH.
func fundedChain(t *testing.T, from types.Address, kv store.KV) *chain.Chain {
	t.Helper()
	g := &chain.Genesis{Config: chain.AllForks(8118), GasLimit: 30_000_000, Alloc: chain.Alloc{}}
	var bal chain.U256
	bal.SetUint64(1e18)
	g.Alloc[from] = chain.Account{Balance: bal}
	c, err := chain.Open(g, kv, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func addrOf(k *secp256k1.PrivateKey) types.Address { return types.Address(crypto.PrivkeyToAddress(k)) }
