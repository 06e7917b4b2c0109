package trie

import (
	"bytes"
	"errors"
	"testing"

	"github.com/chaind/chaind/internal/crypto"
)

// dropDB forgets one node of a MemoryDB to simulate a partial database.
type dropDB struct {
	*MemoryDB
	drop [32]byte
}

func (d dropDB) Node(h [32]byte) ([]byte, error) {
	if h == d.drop {
		return nil, MissingNode(h)
	}
	return d.MemoryDB.Node(h)
}

func bigTestTrie(n int) (*Trie, [][]byte) {
	tr := NewEmpty()
	var keys [][]byte
	for i := 0; i < n; i++ {
		k := crypto.Keccak256([]byte{byte(i), byte(i >> 8)})
		keys = append(keys, k[:])
		tr.Update(k[:], bytes.Repeat([]byte{byte(i)}, 40))
	}
	return tr, keys
}

func TestMissingNodeErrors(t *testing.T) {
	tr, keys := bigTestTrie(500)
	db := NewMemoryDB()
	root, set := tr.Commit()
	db.Update(set)
	// Drop the node holding the first key's leaf.
	proof, _ := tr.Prove(keys[0])
	leaf := crypto.Keccak256(proof[len(proof)-1])
	bad := dropDB{db, leaf}
	re, err := New(root, bad)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := re.Get(keys[0]); !errors.Is(err, ErrMissingNode) {
		t.Errorf("Get: %v", err)
	}
	if err := re.Update(keys[0], []byte{1}); !errors.Is(err, ErrMissingNode) {
		t.Errorf("Update: %v", err)
	}
	if _, err := re.Prove(keys[0]); !errors.Is(err, ErrMissingNode) {
		t.Errorf("Prove: %v", err)
	}
	it := re.NewIterator(nil)
	for it.Next() {
	}
	if !errors.Is(it.Err(), ErrMissingNode) {
		t.Errorf("iterator: %v", it.Err())
	}
	// Other keys are still readable.
	if v, err := re.Get(keys[1]); err != nil || len(v) != 40 {
		t.Errorf("Get other key: %x %v", v, err)
	}
}

func TestCommitTwice(t *testing.T) {
	tr, keys := bigTestTrie(300)
	db := NewMemoryDB()
	root1, set1 := tr.Commit()
	db.Update(set1)
	// Rewriting a value with itself changes nothing.
	v, _ := tr.Get(keys[3])
	tr.Update(keys[3], bytes.Clone(v))
	if r, set := tr.Commit(); r != root1 || set.Len() != 0 {
		t.Fatalf("no-op update: root %x, %d nodes", r, set.Len())
	}
	tr.Update(keys[5], []byte("changed"))
	tr.Delete(keys[6])
	root2, set2 := tr.Commit()
	if set2.Len() == 0 || set2.Len() > 10 {
		t.Fatalf("second commit has %d nodes", set2.Len())
	}
	db.Update(set2)
	for _, c := range []struct {
		root [32]byte
		k6   bool
		v5   string
	}{{root1, true, string(bytes.Repeat([]byte{5}, 40))}, {root2, false, "changed"}} {
		re, err := New(c.root, db)
		if err != nil {
			t.Fatal(err)
		}
		v5, _ := re.Get(keys[5])
		v6, _ := re.Get(keys[6])
		if string(v5) != c.v5 || (v6 != nil) != c.k6 {
			t.Fatalf("root %x: key5 %q key6 %x", c.root, v5, v6)
		}
	}
}

func TestSecureTrie(t *testing.T) {
	st, err := NewSecure(EmptyRoot, nil)
	if err != nil {
		t.Fatal(err)
	}
	st.RecordPreimages()
	plain := NewEmpty()
	for i := 0; i < 50; i++ {
		k := []byte{byte(i), 'k'}
		st.Update(k, []byte{byte(i + 1)})
		h := crypto.Keccak256(k)
		plain.Update(h[:], []byte{byte(i + 1)})
	}
	if st.Hash() != plain.Hash() {
		t.Fatal("secure trie root differs from hashing keys by hand")
	}
	k := []byte{7, 'k'}
	if v, _ := st.Get(k); !bytes.Equal(v, []byte{8}) {
		t.Fatalf("Get: %x", v)
	}
	h := crypto.Keccak256(k)
	if got := st.GetKey(h[:]); !bytes.Equal(got, k) {
		t.Fatalf("GetKey: %x", got)
	}
	proof, _ := st.Prove(k)
	if v, err := VerifySecureProof(st.Hash(), k, proof); err != nil || !bytes.Equal(v, []byte{8}) {
		t.Fatalf("secure proof: %x %v", v, err)
	}
	db := NewMemoryDB()
	root, set := st.Commit()
	db.Update(set)
	re, err := NewSecure(root, db)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := re.Get(k); !bytes.Equal(v, []byte{8}) {
		t.Fatalf("reopened Get: %x", v)
	}
	n := 0
	for it := re.NewIterator(nil); it.Next(); n++ {
	}
	if n != 50 {
		t.Fatalf("iterated %d keys", n)
	}
}

func TestVerifyProofErrors(t *testing.T) {
	tr, keys := bigTestTrie(200)
	root := tr.Hash()
	proof, _ := tr.Prove(keys[0])
	if _, err := VerifyProof(root, keys[0], proof[:len(proof)-1]); !errors.Is(err, ErrBadProof) {
		t.Errorf("truncated proof: %v", err)
	}
	if _, err := VerifyProof([32]byte{1}, keys[0], proof); !errors.Is(err, ErrBadProof) {
		t.Errorf("wrong root: %v", err)
	}
	if v, err := VerifyProof(EmptyRoot, keys[0], nil); v != nil || err != nil {
		t.Errorf("empty root: %x %v", v, err)
	}
	// The root node stored with a trailing byte no longer hashes to root.
	bad := append([][]byte{append(bytes.Clone(proof[0]), 0)}, proof[1:]...)
	if _, err := VerifyProof(root, keys[0], bad); err == nil {
		t.Error("proof with garbage root node accepted")
	}
}

// Long keys give hex-prefix paths of hundreds of bytes and overflow the
// stack buffers used for short keys.
func TestLongKeys(t *testing.T) {
	prefix := bytes.Repeat([]byte{0xab}, 300)
	tr := NewEmpty()
	m := model{}
	for i := 0; i < 40; i++ {
		k := append(bytes.Clone(prefix), byte(i), byte(i*7))
		if i%5 == 0 {
			k = k[:300+i%2]
		}
		v := bytes.Repeat([]byte{byte(i + 1)}, 1+i)
		tr.Update(k, v)
		m[string(k)] = v
	}
	db := NewMemoryDB()
	root, set := tr.Commit()
	db.Update(set)
	re, err := New(root, db)
	if err != nil {
		t.Fatal(err)
	}
	checkContents(t, re, m)
	for k := range m {
		want, _ := tr.Prove([]byte(k))
		fresh, _ := New(root, db)
		got, err := fresh.Prove([]byte(k))
		if err != nil || len(got) != len(want) {
			t.Fatalf("stored proof: %d nodes, want %d (%v)", len(got), len(want), err)
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("stored proof node %d differs", i)
			}
		}
	}
}
