package chain

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/chaind/chaind/internal/conformance"
	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
)

// TestImportAndReopen imports the Cancun-era vector chain into an on-disk
// store, reopens it and checks the head, a receipt lookup and the state.
func TestImportAndReopen(t *testing.T) {
	vec := conformance.VectorsDir("../..")
	if vec == "" {
		t.Skip("../shared/vectors absent: import test skipped")
	}
	dir := filepath.Join(vec, "execution-apis/tests")
	g, err := LoadGenesis(filepath.Join(dir, "genesis.json"))
	if err != nil {
		t.Fatal(err)
	}
	datadir := t.TempDir()
	kv, err := store.Open(datadir)
	if err != nil {
		t.Fatal(err)
	}
	c, err := Open(g, kv, nil)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "chain.rlp"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var last *types.Block
	if err := ReadBlocks(f, func(b *types.Block) error {
		_, err := c.InsertBlock(b)
		last = b
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.InsertBlock(last); !errors.Is(err, ErrKnownBlock) {
		t.Fatalf("re-insert: %v", err)
	}
	kv.Close()

	kv, err = store.Open(datadir)
	if err != nil {
		t.Fatal(err)
	}
	defer kv.Close()
	c, err = Open(g, kv, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.Head().Hash() != last.Hash() || c.Head().Number() != 20 {
		t.Fatalf("reopened head %d %s", c.Head().Number(), c.Head().Hash())
	}
	tx := last.Transactions()[0]
	bh, idx, ok := c.DB().TxLookup(tx.Hash())
	if !ok || bh != last.Hash() || idx != 0 {
		t.Fatalf("tx lookup: %v %d %v", bh, idx, ok)
	}
	rs, err := c.DB().Receipts(last.Hash())
	if err != nil || len(rs) != len(last.Transactions()) {
		t.Fatalf("receipts: %v %d", err, len(rs))
	}
	st, err := c.StateAt(c.Head().Root())
	if err != nil {
		t.Fatal(err)
	}
	if st.GetBalance(types.MustAddress("0x0c2c51a0990aee1d73c1228de158688341557508")).IsZero() {
		t.Fatal("funded genesis account reads as empty")
	}
	// Another genesis must be refused on this data directory.
	other := *g
	other.Timestamp = 1
	if _, err := Open(&other, kv, nil); !errors.Is(err, ErrGenesisMismatch) {
		t.Fatalf("foreign genesis: %v", err)
	}
	// So must the same block 0 under another chain ID (not part of its hash).
	otherID := *g
	cfg := *g.Config
	cfg.ChainID++
	otherID.Config = &cfg
	if _, err := Open(&otherID, kv, nil); !errors.Is(err, ErrGenesisMismatch) {
		t.Fatalf("same genesis block, other chain ID: %v", err)
	}
}
