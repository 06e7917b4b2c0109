package state

import (
	"testing"

	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Two roots of the same accounts, read through one cache, each give their
// own values; and a StateDB whose trie has changed stops trusting the cache.
func TestReadCacheKeepsRootsApart(t *testing.T) {
	s, db := newEmpty(t)
	a, c := types.Address{1}, types.Address{2}
	slot := types.Hash{31: 7}
	s.SetBalance(a, uint256.NewInt(10))
	s.SetNonce(c, 1) // not empty, so Commit keeps it
	s.SetState(c, slot, types.Hash{31: 1})
	root1, err := s.Commit(true)
	if err != nil {
		t.Fatal(err)
	}
	s.SetBalance(a, uint256.NewInt(20))
	s.SetState(c, slot, types.Hash{31: 2})
	root2, err := s.Commit(true)
	if err != nil {
		t.Fatal(err)
	}
	rc := NewReadCache(256 << 10)
	for round := 0; round < 2; round++ { // the second round is served by the cache
		for _, want := range []struct {
			root types.Hash
			bal  uint64
			slot byte
		}{{root1, 10, 1}, {root2, 20, 2}} {
			st, err := New(want.root, db)
			if err != nil {
				t.Fatal(err)
			}
			st.SetReadCache(rc)
			if got := st.GetBalance(a).Uint64(); got != want.bal {
				t.Fatalf("round %d root %s: balance %d, want %d", round, want.root, got, want.bal)
			}
			if got := st.GetState(c, slot); got != (types.Hash{31: want.slot}) {
				t.Fatalf("round %d root %s: slot %s", round, want.root, got)
			}
		}
	}

	// Poison the cache for an account of root2 that no StateDB has read.
	ghost := types.Address{3}
	k := readKey{root: root2, kind: readAccount}
	copy(k.key[:], ghost[:])
	poison := (&Account{Nonce: 99, Balance: *uint256.NewInt(1), Root: EmptyRoot, CodeHash: EmptyCodeHash}).AppendRLP(nil)
	rc.put(k, poison)
	st, _ := New(root2, db)
	st.SetReadCache(rc)
	if st.GetNonce(ghost) != 99 {
		t.Fatal("the cache was not consulted for an unmodified trie")
	}
	st, _ = New(root2, db)
	st.SetReadCache(rc)
	st.SetBalance(a, uint256.NewInt(30))
	st.IntermediateRoot(true) // the account trie now holds another root
	if st.GetNonce(ghost) != 0 {
		t.Fatal("a changed trie was answered from the cache of its old root")
	}

	// The same for a storage trie: poisoned slot of c under root2's storage.
	st, _ = New(root2, db)
	st.SetReadCache(rc)
	other := types.Hash{31: 8}
	st.GetState(c, slot) // opens c's storage trie
	sk := readKey{root: st.getObject(&c).storageOrigin, key: other, kind: readSlot}
	rc.put(sk, appendStorageValue(nil, &types.Hash{31: 5}))
	st.SetState(c, slot, types.Hash{31: 9})
	st.IntermediateRoot(true) // c's storage trie changed
	if got := st.GetState(c, other); !got.IsZero() {
		t.Fatalf("a changed storage trie was answered from the cache: %s", got)
	}
}
