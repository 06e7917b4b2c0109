package state

import (
	"maps"
	"math/rand"
	"testing"

	"github.com/chaind/chaind/internal/types"
)

// TestRandomBlocksRootMatchesRebuild runs random transactions (with
// snapshots, reverts, intermediate roots, commits and reopening at the
// committed root) and checks that the incrementally maintained root equals
// the root of the same final state written into an empty trie at once.
//
// With a ReadCache shared by every StateDB of a run, the same must hold:
// the cache may only answer for tries that still hold the root it names.
func TestRandomBlocksRootMatchesRebuild(t *testing.T) {
	t.Run("direct", func(t *testing.T) { randomBlocks(t, nil) })
	t.Run("read cache", func(t *testing.T) { randomBlocks(t, NewReadCache(16<<10)) })
}

func randomBlocks(t *testing.T, rc *ReadCache) {
	for seed := int64(0); seed < 60; seed++ {
		r := rand.New(rand.NewSource(seed))
		s, db := newEmpty(t)
		if rc != nil {
			s.SetReadCache(rc)
		}
		block := newModel()
		for tx := 0; tx < 25; tx++ {
			s.BeginTx(types.Hash{}, tx)
			m := block.clone()
			m.beginTx()
			var snaps []struct {
				id int
				m  *model
			}
			for i := 0; i < 20; i++ {
				switch r.Intn(6) {
				case 0:
					snaps = append(snaps, struct {
						id int
						m  *model
					}{s.Snapshot(), m.clone()})
				case 1:
					if len(snaps) > 0 {
						j := r.Intn(len(snaps))
						s.RevertToSnapshot(snaps[j].id)
						m = snaps[j].m
						snaps = snaps[:j]
					}
				default:
					step(r, s, m)
				}
			}
			s.Finalise(true)
			for a, x := range m.accts {
				if x.destructed || (m.touchedAtEnd(a) && x.nonce == 0 && x.bal.IsZero() && len(x.code) == 0) {
					delete(m.accts, a)
				}
				x.committed = maps.Clone(x.storage) // the finalised transaction's writes
			}
			*m.ripemdQuirk = false
			block = m
			compare(t, s, m, "seed "+itoa(seed)+" after tx")
			switch r.Intn(4) {
			case 0:
				s.IntermediateRoot(true)
			case 1:
				root, err := s.Commit(true)
				if err != nil {
					t.Fatalf("seed %d: commit: %v", seed, err)
				}
				if r.Intn(2) == 0 {
					if s, err = New(root, db); err != nil {
						t.Fatalf("seed %d: reopen: %v", seed, err)
					}
					if rc != nil {
						s.SetReadCache(rc)
					}
				}
			}
		}
		got := s.IntermediateRoot(true)
		if err := s.Error(); err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		fresh, _ := newEmpty(t)
		for a, x := range block.accts {
			fresh.CreateAccount(a)
			fresh.SetNonce(a, x.nonce)
			fresh.SetBalance(a, &x.bal)
			fresh.SetCode(a, x.code)
			for k, v := range x.storage {
				fresh.SetState(a, k, v)
			}
		}
		if want := fresh.IntermediateRoot(false); got != want {
			t.Fatalf("seed %d: root %s, rebuilt %s", seed, got, want)
		}
	}
}

// TestParallelStorageHashing changes enough storage tries at once for
// IntermediateRoot to hash them concurrently, and compares with the same
// changes hashed a few accounts at a time (sequentially).
func TestParallelStorageHashing(t *testing.T) {
	big, _ := newEmpty(t)
	small, _ := newEmpty(t)
	for i := 0; i < 200; i++ {
		a := types.Address{0: byte(i), 19: 7}
		for _, s := range []*StateDB{big, small} {
			s.SetNonce(a, 1)
			for k := 0; k < 5; k++ {
				s.SetState(a, types.Hash{31: byte(k)}, types.Hash{0: byte(i), 31: byte(k + 1)})
			}
		}
		if i%3 == 0 {
			small.IntermediateRoot(true)
		}
	}
	if got, want := big.IntermediateRoot(true), small.IntermediateRoot(true); got != want {
		t.Fatalf("parallel root %s, sequential %s", got, want)
	}
}
