package state

import (
	"sync/atomic"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/trie"
	"github.com/holiman/uint256"
)

// flatMemDB is an in-memory node store with a flat copy of one state, as
// the chain's store has: reads of that state never walk its tries. It
// counts the node reads that reach it (from any goroutine).
type flatMemDB struct {
	*trie.MemoryDB
	root  types.Hash
	accts map[types.Hash][]byte
	slots map[[2]types.Hash][]byte
	reads atomic.Int64
}

func (f *flatMemDB) Node(h [32]byte) ([]byte, error) {
	f.reads.Add(1)
	return f.MemoryDB.Node(h)
}

func (f *flatMemDB) FlatAccount(root, ah types.Hash) ([]byte, bool, error) {
	if root != f.root {
		return nil, false, nil
	}
	return f.accts[ah], true, nil
}

func (f *flatMemDB) FlatStorage(root, ah, sh types.Hash) ([]byte, bool, error) {
	if root != f.root {
		return nil, false, nil
	}
	return f.slots[[2]types.Hash{ah, sh}], true, nil
}

func (f *flatMemDB) UpdateFlat(from, to types.Hash, d *Diff) error { return nil }

// prefetchState is a state of 3,000 accounts and a contract with 500
// slots, with its flat copy.
func prefetchState(t *testing.T) (f *flatMemDB, accounts []types.Address, token types.Address, slots []types.Hash) {
	t.Helper()
	s, mem := newEmpty(t)
	for i := range 3000 {
		a := types.Address{0: 0xaa, 17: byte(i >> 16), 18: byte(i >> 8), 19: byte(i)}
		s.SetBalance(a, uint256.NewInt(uint64(i)+1))
		accounts = append(accounts, a)
	}
	token = addr(0xee)
	s.SetCode(token, []byte{0x00}) // not empty: it keeps its storage
	for j := range 500 {
		k := types.Hash{30: byte(j >> 8), 31: byte(j)}
		s.SetState(token, k, word(1))
		slots = append(slots, k)
	}
	root, err := s.Commit(true)
	if err != nil {
		t.Fatal(err)
	}
	f = &flatMemDB{MemoryDB: mem, root: root, accts: map[types.Hash][]byte{}, slots: map[[2]types.Hash][]byte{}}
	at, err := trie.New(root, mem)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range append(accounts, token) {
		enc, err := secureGet(at, a[:])
		if err != nil {
			t.Fatal(err)
		}
		f.accts[crypto.Keccak256(a[:])] = enc
	}
	ta, err := DecodeAccount(f.accts[crypto.Keccak256(token[:])])
	if err != nil {
		t.Fatal(err)
	}
	st, err := trie.New(ta.Root, mem)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range slots {
		enc, err := secureGet(st, k[:])
		if err != nil {
			t.Fatal(err)
		}
		f.slots[[2]types.Hash{crypto.Keccak256(token[:]), crypto.Keccak256(k[:])}] = enc
	}
	return f, accounts, token, slots
}

// waitPrefetched waits until the prefetcher has looked up every key
// queued.
func waitPrefetched(t *testing.T, s *StateDB) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); s.prefetch.waiting.Load() > 0; time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d keys still queued", s.prefetch.waiting.Load())
		}
	}
}

// With the prefetcher done, IntermediateRoot reads no node: every path
// it writes was loaded into the tries it took over. Without one it reads
// many; the root is the same either way, and the same again when the
// prefetcher is stopped halfway.
func TestPrefetchLoadsPathsAhead(t *testing.T) {
	f, accounts, token, slots := prefetchState(t)
	run := func(prefetch, stopEarly bool) (types.Hash, int64) {
		s, err := New(f.root, f)
		if err != nil {
			t.Fatal(err)
		}
		if prefetch {
			s.Prefetch()
		}
		for i := range 200 {
			s.AddBalance(accounts[i*7], uint256.NewInt(1))
			s.SubBalance(accounts[i*7+3], uint256.NewInt(1))
			s.AddBalance(types.Address{0xbb, byte(i)}, uint256.NewInt(1)) // a new account
			s.SetState(token, slots[i*2], word(2))
			s.SetState(token, types.Hash{0xcc, byte(i)}, word(3)) // a new slot
			s.Finalise(true)
			if stopEarly && i == 100 {
				s.StopPrefetch()
			}
		}
		if prefetch && !stopEarly {
			waitPrefetched(t, s)
		}
		before := f.reads.Load()
		root := s.IntermediateRoot(true)
		if s.prefetch != nil {
			t.Fatal("the prefetcher outlived IntermediateRoot")
		}
		return root, f.reads.Load() - before
	}
	want, cold := run(false, false)
	got, warm := run(true, false)
	if got != want {
		t.Fatalf("root with the prefetcher %s, without %s", got, want)
	}
	if cold == 0 {
		t.Fatal("IntermediateRoot read no node without the prefetcher: the test covers nothing")
	}
	t.Logf("nodes IntermediateRoot read: %d without the prefetcher, %d with it", cold, warm)
	if warm != 0 {
		t.Fatalf("IntermediateRoot read %d nodes after the prefetcher loaded every path (%d without it)", warm, cold)
	}
	if got, _ := run(true, true); got != want {
		t.Fatalf("root with the prefetcher stopped early %s, without %s", got, want)
	}
}

// The queue holds at most maxPrefetchQueue keys; the rest are dropped.
func TestPrefetchQueueBounded(t *testing.T) {
	p := &prefetcher{wake: make(chan struct{}, 1)}
	keys := make([]prefetchKey, 1000)
	for range maxPrefetchQueue/len(keys) + 2 {
		p.push(keys)
	}
	if len(p.queue) != maxPrefetchQueue || p.waiting.Load() != maxPrefetchQueue {
		t.Fatalf("%d keys queued (%d counted), bound %d", len(p.queue), p.waiting.Load(), maxPrefetchQueue)
	}
}
