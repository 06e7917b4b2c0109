package chain

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
)

func manyAccounts(n int) []types.Address {
	addrs := make([]types.Address, n)
	for i := range addrs {
		addrs[i] = types.Address{0xaa, byte(i >> 16), byte(i >> 8), byte(i)}
	}
	return addrs
}

// A data directory keeps its genesis without the allocation: the record a
// start reads has the same size for 2 accounts as for 3,000, the genesis
// read back carries no allocation and refuses to build block 0, and a
// chain opened with it is the chain stored.
func TestStoredGenesisLeavesTheAllocationInTheState(t *testing.T) {
	var sizes []int
	for _, n := range []int{2, 3000} {
		g := DevGenesis(MainChainID, manyAccounts(n), 1_700_000_000)
		kv := store.NewMem()
		c, err := Open(g, kv, nil)
		if err != nil {
			t.Fatal(err)
		}
		head, err := kv.Get(keyGenesisHead)
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, len(head))
		stored, ok, err := StoredGenesis(kv)
		if err != nil || !ok {
			t.Fatalf("StoredGenesis: %v %v", ok, err)
		}
		if len(stored.Alloc) != 0 {
			t.Fatalf("%d accounts: the stored genesis carries %d allocations", n, len(stored.Alloc))
		}
		if h, ok := stored.StoredHash(); !ok || h != c.Genesis().Hash() {
			t.Fatalf("StoredHash %s %v, block 0 is %s", h, ok, c.Genesis().Hash())
		}
		if _, err := stored.ToBlock(nil); !errors.Is(err, ErrAllocNotLoaded) {
			t.Fatalf("ToBlock of the stored genesis: %v, want ErrAllocNotLoaded", err)
		}
		re, err := Open(stored, kv, nil)
		if err != nil {
			t.Fatal(err)
		}
		if re.Genesis().Hash() != c.Genesis().Hash() || re.Head().Hash() != c.Head().Hash() {
			t.Fatal("reopened with the stored genesis: another chain")
		}
		st, err := re.StateAt(re.Head().Root())
		if err != nil {
			t.Fatal(err)
		}
		if st.GetBalance(types.Address{0xaa, 0, 0, 1}).IsZero() {
			t.Fatal("a genesis account reads as empty")
		}
		// The genesis given again, spelled anew, is recognised; with
		// one account more it is another chain.
		again, err := ParseGenesis(mustJSON(t, g))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Open(again, kv, nil); err != nil {
			t.Fatalf("the same genesis again: %v", err)
		}
		again.Alloc[types.Address{0xbb}] = Account{Balance: g.Alloc[types.Address{0xaa, 0, 0, 1}].Balance}
		if _, err := Open(again, kv, nil); !errors.Is(err, ErrGenesisMismatch) {
			t.Fatalf("one account more: %v, want ErrGenesisMismatch", err)
		}
	}
	if sizes[0] != sizes[1] {
		t.Fatalf("genesis record of %d bytes for 2 accounts, %d for 3,000", sizes[0], sizes[1])
	}
}

// A data directory of the layout before (the whole spec under one key) is
// read as before and moved to the new records by its first writable open.
func TestGenesisRecordsMigrate(t *testing.T) {
	g := DevGenesis(MainChainID, manyAccounts(50), 1_700_000_000)
	kv := store.NewMem()
	c, err := Open(g, kv, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b store.Batch
	b.Put(keyGenesisSpec, mustJSON(t, g))
	b.Delete(keyGenesisHead)
	b.Delete(keyGenesisAlloc)
	if err := kv.Write(&b); err != nil {
		t.Fatal(err)
	}
	old, ok, err := StoredGenesis(kv)
	if err != nil || !ok || len(old.Alloc) != len(g.Alloc) {
		t.Fatalf("old layout: %v %v, %d allocations", ok, err, len(old.Alloc))
	}
	if _, err := Open(old, kv, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Get(keyGenesisSpec); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the whole spec is still stored: %v", err)
	}
	stored, ok, err := StoredGenesis(kv)
	if err != nil || !ok || len(stored.Alloc) != 0 {
		t.Fatalf("after the move: %v %v, %d allocations", ok, err, len(stored.Alloc))
	}
	re, err := Open(stored, kv, nil)
	if err != nil {
		t.Fatal(err)
	}
	if re.Genesis().Hash() != c.Genesis().Hash() {
		t.Fatal("another block 0 after the move")
	}
	// The same genesis given again is recognised by its records.
	if same, err := isStoredGenesis(kv, g, Ethereum{}, c.Genesis().Hash()); err != nil || !same {
		t.Fatalf("the genesis given again is not recognised: %v %v", same, err)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
