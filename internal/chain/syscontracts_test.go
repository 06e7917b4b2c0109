package chain

import (
	"bytes"
	"errors"
	"testing"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// A genesis that schedules Prague without the contracts its blocks call is
// refused by Open, naming what is missing, whether Prague starts at
// genesis or later; the dev genesis of every fork --hardfork takes opens.
func TestOpenRefusesMissingSystemContracts(t *testing.T) {
	later := uint64(5_000)
	for _, tc := range []struct {
		name    string
		genesis func() *Genesis
		missing types.Address // zero: opens
	}{
		{"cancun", func() *Genesis { return mustDev(t, forks.Cancun) }, types.Address{}},
		{"prague", func() *Genesis { return mustDev(t, forks.Prague) }, types.Address{}},
		{"osaka", func() *Genesis { return mustDev(t, forks.Osaka) }, types.Address{}},
		{"cancun+pragueTime 0", func() *Genesis {
			g := mustDev(t, forks.Cancun)
			g.Config.PragueTime = u64(0)
			return g
		}, HistoryStorageAddress},
		{"cancun+pragueTime later", func() *Genesis {
			g := mustDev(t, forks.Cancun)
			g.Config.PragueTime = &later
			return g
		}, HistoryStorageAddress},
		{"prague without 7251", func() *Genesis {
			g := mustDev(t, forks.Prague)
			delete(g.Alloc, ConsolidationQueue)
			return g
		}, ConsolidationQueue},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Open(tc.genesis(), store.NewMem(), nil)
			if tc.missing == (types.Address{}) {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, ErrMissingSystemContract) || !bytes.Contains([]byte(err.Error()), []byte(tc.missing.Hex())) {
				t.Fatalf("Open: %v, want ErrMissingSystemContract naming %s", err, tc.missing.Hex())
			}
		})
	}
}

func mustDev(t *testing.T, f forks.Fork) *Genesis {
	t.Helper()
	g, err := DevGenesisFork(MainChainID, nil, 1_700_000_000, f)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func TestDevGenesisForkRefusesOldForks(t *testing.T) {
	for _, f := range []forks.Fork{forks.Shanghai, forks.London, forks.Fork(99)} {
		if _, err := DevGenesisFork(MainChainID, nil, 1, f); err == nil {
			t.Errorf("%s accepted", f)
		}
	}
}

// On the Prague and Osaka dev genesis, blocks are built and imported (the
// request queues answer) and an EIP-7702 transaction delegates an account.
func TestDevForksBuildSetCodeBlocks(t *testing.T) {
	for _, f := range []forks.Fork{forks.Prague, forks.Osaka} {
		t.Run(f.String(), func(t *testing.T) {
			key, _ := crypto.GenerateKey()
			authKey, _ := crypto.GenerateKey()
			from := types.Address(crypto.PubkeyToAddress(key.PubKey()))
			authority := types.Address(crypto.PubkeyToAddress(authKey.PubKey()))
			g, err := DevGenesisFork(MainChainID, []types.Address{from}, 1_700_000_000, f)
			if err != nil {
				t.Fatal(err)
			}
			proposer, err := Open(g, store.NewMem(), nil)
			if err != nil {
				t.Fatal(err)
			}
			follower, err := Open(g, store.NewMem(), nil)
			if err != nil {
				t.Fatal(err)
			}
			target := types.Address{0x77}
			auth := types.SignSetCode(authKey, types.SetCodeAuthorization{ChainID: *uint256.NewInt(MainChainID), Address: target})
			tx := types.MustSignNewTx(key, proposer.Config.Signer(1, 1_700_000_010), &types.SetCodeTx{ChainID: *uint256.NewInt(MainChainID),
				GasTipCap: *uint256.NewInt(1), GasFeeCap: *uint256.NewInt(2e9), Gas: 100_000, To: authority,
				AuthList: []types.SetCodeAuthorization{auth}})
			built, err := proposer.BuildBlock(BuildParams{Time: 1_700_000_010}, []*types.Transaction{tx})
			if err != nil {
				t.Fatal(err)
			}
			if len(built.Block.Transactions()) != 1 || built.Receipts[0].Status != types.ReceiptStatusSuccessful {
				t.Fatalf("set-code tx not included or failed: %d txs, dropped %v", len(built.Block.Transactions()), built.Dropped)
			}
			if built.Block.Header().RequestsHash == nil {
				t.Fatal("Prague block without requests hash")
			}
			if err := proposer.CommitBuilt(built); err != nil {
				t.Fatal(err)
			}
			if _, err := follower.InsertBlock(built.Block); err != nil {
				t.Fatalf("follower rejects the block: %v", err)
			}
			st, err := follower.StateAt(follower.Head().Root())
			if err != nil {
				t.Fatal(err)
			}
			if got := st.GetCode(authority); !bytes.Equal(got, evm.DelegationCode(target)) {
				t.Fatalf("authority code %x, want delegation to %s", got, target.Hex())
			}
		})
	}
}
