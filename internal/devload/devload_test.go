package devload

import (
	"errors"
	"testing"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// TestGeneratedChainsImport builds both workloads with the proposer's path
// and replays them through full validation: the token must move balances,
// emit its event, and the blocks must import to the same head.
func TestGeneratedChainsImport(t *testing.T) {
	for _, kind := range []Kind{KindTransfer, KindERC20} {
		t.Run(string(kind), func(t *testing.T) {
			senders := Keys("devload-test", 3)
			g := GenesisWithToken(1337, senders, 1_700_000_000)
			blocks, err := GenerateChain(g, senders, kind, 3, 7)
			if err != nil {
				t.Fatal(err)
			}
			c, err := chain.Open(g, store.NewMem(), nil)
			if err != nil {
				t.Fatal(err)
			}
			for _, b := range blocks {
				rs, err := c.InsertBlock(b)
				if err != nil {
					t.Fatalf("block %d: %v", b.Number(), err)
				}
				if len(rs) != 7 {
					t.Fatalf("block %d: %d receipts, want 7", b.Number(), len(rs))
				}
				if kind == KindERC20 {
					for _, r := range rs {
						if len(r.Logs) != 1 || r.Logs[0].Topics[0] != TransferTopic {
							t.Fatalf("block %d: token transfer logged %v", b.Number(), r.Logs)
						}
					}
				}
			}
			if c.Head().Hash() != blocks[len(blocks)-1].Hash() {
				t.Fatal("imported head differs from the built one")
			}
			st, err := c.StateAt(c.Head().Root())
			if err != nil {
				t.Fatal(err)
			}
			from := Address(senders[0])
			to := Recipient(from, 0)
			switch kind {
			case KindTransfer:
				if got := st.GetBalance(to); !got.Eq(uint256.NewInt(1)) {
					t.Fatalf("recipient balance %s, want 1", got)
				}
			case KindERC20:
				if got := st.GetState(TokenAddress, TokenSlot(to)); got != types.BytesToHash([]byte{1}) {
					t.Fatalf("recipient token balance %s, want 1", got)
				}
				want := new(uint256.Int).Sub(TokenSupply, uint256.NewInt(9)) // 3 blocks x 3 transfers
				if got := st.GetState(TokenAddress, TokenSlot(from)); got != types.Hash(want.Bytes32()) {
					t.Fatalf("sender token balance %s, want %s", got, want)
				}
			}
		})
	}
}

// TestTokenDeploy runs the init code through a block and checks the
// deployed code and the deployer's balance.
func TestTokenDeploy(t *testing.T) {
	keys := Keys("devload-deploy", 1)
	g := chain.DevGenesis(1337, []types.Address{Address(keys[0])}, 1_700_000_000)
	c, err := chain.Open(g, store.NewMem(), nil)
	if err != nil {
		t.Fatal(err)
	}
	s := NewSigner(1337)
	tx, err := s.Sign(keys[0], 0, nil, nil, DeployGas, TokenInitCode())
	if err != nil {
		t.Fatal(err)
	}
	built, err := c.BuildBlock(chain.BuildParams{Time: c.Head().Time() + 1}, []*types.Transaction{tx})
	if err != nil {
		t.Fatal(err)
	}
	if len(built.Receipts) != 1 || built.Receipts[0].Status != types.ReceiptStatusSuccessful {
		t.Fatalf("deploy failed: %+v", built.Receipts)
	}
	addr := CreateAddress(Address(keys[0]), 0)
	if got := built.State.GetCode(addr); string(got) != string(TokenRuntime()) {
		t.Fatalf("deployed code %x, want %x", got, TokenRuntime())
	}
	if got := built.State.GetState(addr, TokenSlot(Address(keys[0]))); got != types.Hash(TokenSupply.Bytes32()) {
		t.Fatalf("deployer balance %s", got)
	}
}

// Validate followed by CommitBuilt (a BFT validator's path) stores the same
// chain as InsertBlock, and Validate alone stores nothing.
func TestValidateThenCommit(t *testing.T) {
	senders := Keys("devload-validate", 2)
	g := GenesisWithToken(1337, senders, 1_700_000_000)
	blocks, err := GenerateChain(g, senders, KindERC20, 3, 4)
	if err != nil {
		t.Fatal(err)
	}
	c, err := chain.Open(g, store.NewMem(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks {
		v, err := c.Validate(b)
		if err != nil {
			t.Fatalf("block %d: %v", b.Number(), err)
		}
		if c.Head().Number() != b.Number()-1 {
			t.Fatal("Validate moved the head")
		}
		if err := c.CommitBuilt(v); err != nil {
			t.Fatal(err)
		}
	}
	if c.Head().Hash() != blocks[len(blocks)-1].Hash() {
		t.Fatal("head differs from the generated chain")
	}
	if _, err := c.Validate(blocks[1]); err == nil {
		t.Fatal("an already stored block validated again")
	}
}

// Pruning keeps every node the last states need, also while blocks are
// inserted during the pass, and the chain keeps importing on the pruned
// store (which re-derives every root from it).
func TestPruneKeepsRecentStates(t *testing.T) {
	senders := Keys("devload-prune", 4)
	g := GenesisWithToken(1337, senders, 1_700_000_000)
	blocks, err := GenerateChain(g, senders, KindERC20, 40, 12)
	if err != nil {
		t.Fatal(err)
	}
	c, err := chain.Open(g, store.NewMem(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range blocks[:20] {
		if _, err := c.InsertBlock(b); err != nil {
			t.Fatal(err)
		}
	}
	st, err := c.Prune(5)
	if err != nil {
		t.Fatal(err)
	}
	if st.Deleted == 0 || st.Roots != 5+1 { // the last 5 and the genesis state
		t.Fatalf("first pass: %+v", st)
	}
	if _, err := c.DB().Node([32]byte(blocks[2].Root())); err == nil {
		t.Fatal("the state root of block 3 survived pruning to the last 5 blocks")
	}
	// Insert the rest while passes run.
	done := make(chan error, 1)
	go func() {
		for _, b := range blocks[20:] {
			if _, err := c.InsertBlock(b); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for i := 0; i < 5; i++ {
		if _, err := c.Prune(3); err != nil && !errors.Is(err, chain.ErrPruneBusy) {
			t.Fatal(err)
		}
	}
	if err := <-done; err != nil {
		t.Fatalf("import after pruning: %v", err)
	}
	// A pass over the last 3 states reads every node they use: it fails
	// on a missing one.
	if _, err := c.Prune(3); err != nil {
		t.Fatalf("a kept state lost a node: %v", err)
	}
	last := blocks[len(blocks)-1]
	s, err := c.StateAt(last.Root())
	if err != nil {
		t.Fatal(err)
	}
	if got := s.GetState(TokenAddress, TokenSlot(Recipient(Address(senders[0]), 0))); got != types.BytesToHash([]byte{1}) {
		t.Fatalf("token balance after pruning: %s", got)
	}
}
