package trie

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/chaind/chaind/internal/crypto"
)

// A commit of many changes collects the root's subtrees on several
// goroutines (commitChildrenParallel); it must give the set a commit on
// one goroutine gives, node for node and in the same order (children
// before parents, each with its depth), whatever the trie went through:
// built fresh, reopened from the store and changed, or a copy sharing its
// dirty nodes with the trie it was copied from.
func TestParallelCommitMatchesSerial(t *testing.T) {
	key := func(i int) []byte {
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], uint64(i))
		k := crypto.Keccak256(b[:])
		return k[:]
	}
	fill := func(t *testing.T, tr *Trie, from, to int, tag byte) {
		for i := from; i < to; i++ {
			k := key(i)
			v := append(append([]byte(nil), k[:i%33]...), tag) // short values too: embedded nodes
			if err := tr.Update(k, v); err != nil {
				t.Fatal(err)
			}
		}
	}
	base := NewMemoryDB()
	seed, err := New(EmptyRoot, base)
	if err != nil {
		t.Fatal(err)
	}
	fill(t, seed, 0, 6000, 1)
	seedRoot, seedSet := seed.Commit()
	if err := base.Update(seedSet); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		make func(t *testing.T) *Trie // the trie to commit, changes made
	}{
		{"fresh", func(t *testing.T) *Trie {
			tr, _ := New(EmptyRoot, NewMemoryDB())
			fill(t, tr, 0, 5000, 2)
			return tr
		}},
		{"reopened and changed", func(t *testing.T) *Trie {
			tr, err := New(seedRoot, base)
			if err != nil {
				t.Fatal(err)
			}
			fill(t, tr, 3000, 8000, 3) // updates and inserts
			for i := 0; i < 1000; i++ {
				if err := tr.Delete(key(i * 3)); err != nil {
					t.Fatal(err)
				}
			}
			return tr
		}},
		{"copy sharing dirty nodes", func(t *testing.T) *Trie {
			tr, _ := New(EmptyRoot, NewMemoryDB())
			fill(t, tr, 0, 4000, 4)
			cp := tr.Copy()
			fill(t, cp, 2000, 2600, 5)
			fill(t, tr, 0, 300, 6) // the original moves on too
			return cp
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			par, ser := tc.make(t), tc.make(t)
			if par.uncommitted < parallelThreshold {
				t.Fatalf("%d changes: below the parallel threshold", par.uncommitted)
			}
			ser.uncommitted = 0 // commits on this goroutine
			pr, ps := par.Commit()
			sr, ss := ser.Commit()
			if pr != sr {
				t.Fatalf("root %x, serial %x", pr[:4], sr[:4])
			}
			if ps.Len() != ss.Len() || ps.Size() != ss.Size() {
				t.Fatalf("%d nodes (%d bytes), serial %d (%d)", ps.Len(), ps.Size(), ss.Len(), ss.Size())
			}
			for i := range ps.nodes {
				p, s := ps.nodes[i], ss.nodes[i]
				if p.hash != s.hash || p.depth != s.depth || !bytes.Equal(p.blob, s.blob) {
					t.Fatalf("node %d: %x at depth %d, serial %x at %d", i, p.hash[:4], p.depth, s.hash[:4], s.depth)
				}
			}
			// The set is complete: the committed trie reads back from it alone.
			db := NewMemoryDB()
			if err := db.Update(ps); err != nil {
				t.Fatal(err)
			}
			back, err := New(pr, layered{db, base})
			if err != nil {
				t.Fatal(err)
			}
			if got := back.Hash(); got != pr {
				t.Fatalf("reopened root %x", got[:4])
			}
			it := back.NewIterator(nil)
			for it.Next() {
			}
			if err := it.Err(); err != nil {
				t.Fatalf("reopened: %v", err)
			}
		})
	}
}

// layered reads nodes from the first reader that has them.
type layered [2]Reader

func (l layered) Node(h [32]byte) ([]byte, error) {
	if b, err := l[0].Node(h); err == nil {
		return b, nil
	}
	return l[1].Node(h)
}
