package trie

import (
	"encoding/binary"
	"testing"

	"github.com/chaind/chaind/internal/crypto"
)

// hashedKeysTrie is a trie of n keys spread as a state's are (keccak256
// of a counter), committed.
func hashedKeysTrie(t *testing.T, n int) ([32]byte, *NodeSet) {
	t.Helper()
	tr, err := New(EmptyRoot, NewMemoryDB())
	if err != nil {
		t.Fatal(err)
	}
	var b [8]byte
	for i := range n {
		binary.BigEndian.PutUint64(b[:], uint64(i))
		k := crypto.Keccak256(b[:])
		if err := tr.Update(k[:], append(k[:], 1)); err != nil {
			t.Fatal(err)
		}
	}
	return tr.Commit()
}

// A commit records each node's depth in its trie: with 4096 hashed keys
// the root and its 16 children are full branch nodes, and every one of
// the 256 below them is a node too (about 16 keys each), so the nodes
// less than 1, 2 and 3 deep are 1, 17 and 273, the root first among none.
func TestCommitRecordsDepths(t *testing.T) {
	root, set := hashedKeysTrie(t, 4096)
	for _, tc := range []struct{ depth, want int }{{0, 0}, {1, 1}, {2, 17}, {3, 273}, {noDepth + 1, set.Len()}} {
		var got int
		set.ForEachUpper(tc.depth, func(h [32]byte, _ []byte) {
			if tc.depth == 1 && h != root {
				t.Errorf("the node at depth 0 is %x, not the root %x", h[:4], root[:4])
			}
			got++
		})
		if got != tc.want {
			t.Errorf("%d nodes less than %d deep, want %d", got, tc.depth, tc.want)
		}
	}
	added := NewNodeSet()
	added.Add(root, []byte("code or a node from elsewhere"))
	added.ForEachUpper(noDepth, func([32]byte, []byte) { t.Error("a blob Add took has a depth") })
}
