package chain

import (
	"fmt"
	"testing"

	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// TestNothingOfACommitWaitsInMemory: every way a block or a state reaches
// the chain returns with all of it written — the batch and the trie nodes
// staged for it are empty again — so a process that stops right after
// (Node.Close closes the store without a flush of the chain) loses none
// of it: a chain opened again on the store has the same head, its state,
// receipts, lookups and certificate. If a commit ever leaves part of its
// block for a later write, this fails.
func TestNothingOfACommitWaitsInMemory(t *testing.T) {
	key, from, g := fundedGenesis(30_000_000)
	kv := store.NewMem()
	c, err := Open(g, kv, nil)
	if err != nil {
		t.Fatal(err)
	}
	other, err := Open(g, store.NewMem(), nil) // builds blocks c inserts
	if err != nil {
		t.Fatal(err)
	}
	nonce := uint64(0)
	build := func(on *Chain) *Built {
		t.Helper()
		built, err := on.BuildBlock(BuildParams{Time: on.Head().Time() + 10}, []*types.Transaction{transfer(on, key, nonce)})
		if err != nil {
			t.Fatal(err)
		}
		nonce++
		return built
	}
	mirror := func(b *types.Block) { // keeps other on c's head
		t.Helper()
		if other.Head().Hash() != b.ParentHash() {
			return
		}
		if _, err := other.InsertBlock(b); err != nil {
			t.Fatal(err)
		}
	}
	var lastCert []byte
	for _, tc := range []struct {
		name   string
		commit func() error
	}{
		{"CommitBuilt", func() error { b := build(c); mirror(b.Block); return c.CommitBuilt(b) }},
		{"CommitCertified", func() error {
			b := build(c)
			mirror(b.Block)
			lastCert = fmt.Appendf(nil, "cert of %d", b.Block.Number())
			return c.CommitCertified(b, lastCert)
		}},
		{"InsertBlock", func() error {
			b := build(other)
			if err := other.CommitBuilt(b); err != nil {
				return err
			}
			_, err := c.InsertBlock(b.Block)
			return err
		}},
		{"InsertCertified", func() error {
			b := build(other)
			if err := other.CommitBuilt(b); err != nil {
				return err
			}
			lastCert = fmt.Appendf(nil, "cert of %d", b.Block.Number())
			_, err := c.InsertCertified(b.Block, lastCert)
			return err
		}},
		{"CommitState", func() error {
			st, err := c.StateAt(c.Head().Root())
			if err != nil {
				return err
			}
			st.SetBalance(types.Address{0x77}, uint256.NewInt(5))
			_, err = c.CommitState(st)
			return err
		}},
	} {
		if err := tc.commit(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		c.db.mu.RLock()
		pending, nodes := c.db.pending.Len(), len(c.db.overlay)
		c.db.mu.RUnlock()
		if pending != 0 || nodes != 0 {
			t.Fatalf("after %s: %d writes and %d trie nodes wait in memory", tc.name, pending, nodes)
		}
	}
	// A block built and never committed (a proposal not decided) is all
	// that can be in memory when a node stops; it is no block of the
	// chain, and nothing of it is staged either.
	build(c)
	c.db.mu.RLock()
	pending := c.db.pending.Len() + len(c.db.overlay)
	c.db.mu.RUnlock()
	if pending != 0 {
		t.Fatalf("a built block staged %d writes", pending)
	}
	head := c.Head()
	reopened, err := Open(g, kv, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := reopened.Head(); got.Hash() != head.Hash() {
		t.Fatalf("reopened at %d %s, want %d %s", got.Number(), got.Hash(), head.Number(), head.Hash())
	}
	st, err := reopened.StateAt(head.Root())
	if err != nil {
		t.Fatalf("state of the head after reopening: %v", err)
	}
	if n := st.GetNonce(from); n != nonce-1 {
		t.Fatalf("sender's nonce %d after reopening, want %d", n, nonce-1)
	}
	if cert, err := reopened.Certificate(head.Number()); err != nil || string(cert) != string(lastCert) {
		t.Fatalf("head's certificate %q, %v; want %q", cert, err, lastCert)
	}
	for _, tx := range head.Transactions() {
		if _, _, ok := reopened.db.TxLookup(tx.Hash()); !ok {
			t.Fatalf("lookup of the head's transaction %s lost", tx.Hash())
		}
	}
}
