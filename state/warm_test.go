package state

import (
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/trie"
)

// seenDB records the nodes read through it (from any goroutine); with
// only set, it serves only the nodes another seenDB recorded.
type seenDB struct {
	db   trie.Reader
	mu   sync.Mutex
	seen map[[32]byte]bool
	only map[[32]byte]bool
}

func (s *seenDB) Node(h [32]byte) ([]byte, error) {
	if s.only != nil && !s.only[h] {
		return nil, trie.MissingNode(h)
	}
	s.mu.Lock()
	s.seen[h] = true
	s.mu.Unlock()
	return s.db.Node(h)
}

// warmAccounts reads every node on the paths of the account keys it is
// given (so the updates after it find them cached), and none of the slot
// keys': a trie that can read only the nodes it read finds every one of
// those accounts.
func TestWarmAccountsLoadsEveryPath(t *testing.T) {
	mem, root, addrs := accountTrie(t, "")
	var keys []prefetchKey
	for i, a := range addrs[:1000] {
		keys = append(keys, prefetchKey{addr: a, isSlot: i%10 == 9})
	}
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one CPU: warmAccounts leaves the paths to IntermediateRoot")
	}
	seen := &seenDB{db: mem, seen: map[[32]byte]bool{}}
	warmAccounts(seen, types.Hash(root), keys)
	check, err := trie.New(root, &seenDB{db: mem, seen: map[[32]byte]bool{}, only: seen.seen})
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if k.isSlot {
			continue
		}
		if v, err := check.Get(hashed(k.addr)); err != nil || len(v) == 0 {
			t.Fatalf("account %x: %v: its path was not read", k.addr[:4], err)
		}
	}
	// The accounts not given, slot keys' among them, are not all there.
	var missing int
	for _, a := range addrs[1000:] {
		if _, err := check.Get(hashed(a)); err != nil {
			missing++
		}
	}
	if missing == 0 {
		t.Fatal("every account's path was read, not only the keys'")
	}
}

// accountTrie commits an account trie of 3,000 accounts, their addresses
// derived from tag, to a memory database.
func accountTrie(t *testing.T, tag string) (*trie.MemoryDB, [32]byte, []types.Address) {
	t.Helper()
	mem := trie.NewMemoryDB()
	tr, err := trie.New(trie.EmptyRoot, mem)
	if err != nil {
		t.Fatal(err)
	}
	var addrs []types.Address
	for i := range 3000 {
		h := crypto.Keccak256([]byte(tag + fmt.Sprint(i)))
		a := types.BytesToAddress(h[:20])
		addrs = append(addrs, a)
		if err := tr.Update(hashed(a), []byte{byte(len(tag)), byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	root, set := tr.Commit()
	if err := mem.Update(set); err != nil {
		t.Fatal(err)
	}
	return mem, root, addrs
}

func hashed(a types.Address) []byte {
	h := crypto.Keccak256(a[:])
	return h[:]
}

// WarmAccountPaths reads every given account's path, whether the batch is
// large enough to be spread over goroutines or read on the caller's, and
// stops on a goroutine's first missing node rather than failing.
func TestWarmAccountPathsLoadsEveryPath(t *testing.T) {
	mem, root, addrs := accountTrie(t, "warm")
	for _, n := range []int{1, warmMin - 1, 40 * warmMin} {
		seen := &seenDB{db: mem, seen: map[[32]byte]bool{}}
		WarmAccountPaths(seen, types.Hash(root), addrs[:n])
		check, err := trie.New(root, &seenDB{db: mem, seen: map[[32]byte]bool{}, only: seen.seen})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range addrs[:n] {
			if v, err := check.Get(hashed(a)); err != nil || len(v) == 0 {
				t.Fatalf("%d accounts: %x: %v: its path was not read", n, a[:4], err)
			}
		}
	}
	// A root whose nodes are not there: every goroutine stops at once.
	WarmAccountPaths(&seenDB{db: mem, seen: map[[32]byte]bool{}}, types.Hash{1}, addrs)
}
