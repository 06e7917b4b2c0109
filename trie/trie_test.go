package trie

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math/rand"
	"sort"
	"strings"
	"testing"
)

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

func TestEmptyRoot(t *testing.T) {
	tr := NewEmpty()
	if tr.Hash() != EmptyRoot {
		t.Fatalf("empty trie root %x", tr.Hash())
	}
	if got := NewStackTrie().Hash(); got != EmptyRoot {
		t.Fatalf("empty stack trie root %x", got)
	}
	if got := ListRoot(0, nil); got != EmptyRoot {
		t.Fatalf("empty list root %x", got)
	}
}

// Known roots from the Ethereum wiki / go-ethereum tests.
func TestKnownRoots(t *testing.T) {
	for _, tc := range []struct {
		pairs [][2]string
		root  string
	}{
		{[][2]string{{"doe", "reindeer"}, {"dog", "puppy"}, {"dogglesworth", "cat"}},
			"8aad789dff2f538bca5d8ea56e8abe10f4c7ba3a5dea95fea4cd6e7c3a1168d3"},
		{[][2]string{{"A", strings.Repeat("a", 50)}},
			"d23786fb4a010da3ce639d66d5e904a11dbc02746d1ce25029e53290cabf28ab"},
	} {
		tr := NewEmpty()
		for _, p := range tc.pairs {
			tr.Update([]byte(p[0]), []byte(p[1]))
		}
		if h := tr.Hash(); hex.EncodeToString(h[:]) != tc.root {
			got := hex.EncodeToString(h[:])
			t.Errorf("%v: root %s, want %s", tc.pairs, got, tc.root)
		}
	}
}

func TestCompactRoundTrip(t *testing.T) {
	for n := 0; n < 10; n++ {
		nib := make([]byte, n)
		for i := range nib {
			nib[i] = byte(i*7) & 0x0f
		}
		for _, leaf := range []bool{false, true} {
			enc := EncodeCompact(nib, leaf)
			got, gotLeaf, err := DecodeCompact(enc)
			if err != nil || gotLeaf != leaf || !bytes.Equal(got, nib) {
				t.Fatalf("%x %v: got %x %v %v", nib, leaf, got, gotLeaf, err)
			}
		}
	}
	for _, bad := range []string{"", "40", "01", "2f"} {
		if _, _, err := DecodeCompact(mustHex(bad)); !errors.Is(err, ErrBadCompact) {
			t.Errorf("%s: err %v", bad, err)
		}
	}
}

// model is the reference the trie is checked against: a plain map.
type model map[string][]byte

func (m model) sortedKeys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// randKey draws keys from a small alphabet of prefixes so that branches,
// extensions, prefix keys and embedded nodes all occur.
func randKey(rng *rand.Rand) []byte {
	switch rng.Intn(4) {
	case 0:
		k := make([]byte, 32)
		rng.Read(k)
		return k
	case 1:
		return []byte{byte(rng.Intn(4)), byte(rng.Intn(4))}[:rng.Intn(3)]
	default:
		k := make([]byte, 1+rng.Intn(5))
		for i := range k {
			k[i] = byte(rng.Intn(3)) * 0x11
		}
		return k
	}
}

func randValue(rng *rand.Rand) []byte {
	if rng.Intn(3) == 0 {
		return []byte{byte(1 + rng.Intn(200))}
	}
	v := make([]byte, 1+rng.Intn(60))
	rng.Read(v)
	return v
}

// rootOf builds a fresh trie from m's contents in the given key order.
func rootOf(m model, keys []string) [32]byte {
	tr := NewEmpty()
	for _, k := range keys {
		tr.Update([]byte(k), m[k])
	}
	return tr.Hash()
}

func TestRandomAgainstModel(t *testing.T) {
	for seed := int64(0); seed < 60; seed++ {
		rng := rand.New(rand.NewSource(seed))
		db := NewMemoryDB()
		tr := NewEmpty()
		m := model{}
		type version struct {
			root [32]byte
			m    model
		}
		var versions []version
		steps := 20 + rng.Intn(300)
		for step := 0; step < steps; step++ {
			k := randKey(rng)
			switch rng.Intn(10) {
			case 0, 1, 2:
				if err := tr.Delete(k); err != nil {
					t.Fatal(err)
				}
				delete(m, string(k))
			case 3:
				// Delete an existing key.
				if keys := m.sortedKeys(); len(keys) > 0 {
					k := keys[rng.Intn(len(keys))]
					tr.Update([]byte(k), nil)
					delete(m, k)
				}
			default:
				v := randValue(rng)
				if err := tr.Update(k, v); err != nil {
					t.Fatal(err)
				}
				m[string(k)] = v
			}
			if rng.Intn(20) == 0 {
				root, set := tr.Commit()
				db.Update(set)
				cp := model{}
				for k, v := range m {
					cp[k] = v
				}
				versions = append(versions, version{root, cp})
			}
			if rng.Intn(40) == 0 {
				// Reopen from the database at the current root.
				root, set := tr.Commit()
				db.Update(set)
				var err error
				if tr, err = New(root, db); err != nil {
					t.Fatalf("seed %d: reopen: %v", seed, err)
				}
			}
		}
		keys := m.sortedKeys()
		want := rootOf(m, keys)
		if got := tr.Hash(); got != want {
			t.Fatalf("seed %d: root %x, fresh build %x", seed, got, want)
		}
		// Order independence.
		rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		if got := rootOf(m, keys); got != want {
			t.Fatalf("seed %d: shuffled root %x, want %x", seed, got, want)
		}
		checkContents(t, tr, m)
		root, set := tr.Commit()
		db.Update(set)
		versions = append(versions, version{root, m})
		for _, v := range versions {
			old, err := New(v.root, db)
			if err != nil {
				t.Fatalf("seed %d: open %x: %v", seed, v.root, err)
			}
			checkContents(t, old, v.m)
			if old.Hash() != v.root {
				t.Fatalf("seed %d: reopened root %x, want %x", seed, old.Hash(), v.root)
			}
		}
	}
}

// checkContents compares every key, the iteration order, proofs of present
// and absent keys, and tampered proofs.
func checkContents(t *testing.T, tr *Trie, m model) {
	t.Helper()
	keys := m.sortedKeys()
	root := tr.Hash()
	for _, k := range keys {
		v, err := tr.Get([]byte(k))
		if err != nil || !bytes.Equal(v, m[k]) {
			t.Fatalf("Get(%x) = %x, %v; want %x", k, v, err, m[k])
		}
		proof, err := tr.Prove([]byte(k))
		if err != nil {
			t.Fatal(err)
		}
		v, err = VerifyProof(root, []byte(k), proof)
		if err != nil || !bytes.Equal(v, m[k]) {
			t.Fatalf("proof of %x: %x, %v; want %x", k, v, err, m[k])
		}
		if len(proof) > 0 {
			bad := make([][]byte, len(proof))
			for i := range proof {
				bad[i] = bytes.Clone(proof[i])
			}
			i := len(bad) - 1
			bad[i][len(bad[i])-1] ^= 1
			if v, err := VerifyProof(root, []byte(k), bad); err == nil && bytes.Equal(v, m[k]) {
				t.Fatalf("tampered proof of %x still verifies", k)
			}
		}
	}
	for _, k := range [][]byte{{0x01, 0x02, 0x03}, {0xff}, {}, {0x11, 0x22, 0x00}} {
		if _, ok := m[string(k)]; ok {
			continue
		}
		proof, err := tr.Prove(k)
		if err != nil {
			t.Fatal(err)
		}
		v, err := VerifyProof(root, k, proof)
		if err != nil || v != nil {
			t.Fatalf("absence proof of %x: %x, %v", k, v, err)
		}
	}
	it := tr.NewIterator(nil)
	i := 0
	for it.Next() {
		if i >= len(keys) || string(it.Key()) != keys[i] || !bytes.Equal(it.Value(), m[keys[i]]) {
			t.Fatalf("iterator item %d: %x", i, it.Key())
		}
		i++
	}
	if it.Err() != nil || i != len(keys) {
		t.Fatalf("iterator stopped at %d of %d: %v", i, len(keys), it.Err())
	}
	// From assorted start keys, present or not: exactly the keys >= start.
	starts := [][]byte{nil, {}, {0x00}, {0x11}, {0x11, 0x00}, {0x22, 0x22, 0x22}, {0x80}, {0xff, 0xff}}
	for _, k := range keys {
		starts = append(starts, []byte(k), append([]byte(k), 0))
		if len(k) > 0 {
			starts = append(starts, []byte(k[:len(k)-1]))
		}
		if len(starts) > 40 {
			break
		}
	}
	for _, start := range starts {
		first := sort.SearchStrings(keys, string(start))
		it := tr.NewIterator(start)
		i := first
		for it.Next() {
			if i >= len(keys) || string(it.Key()) != keys[i] {
				t.Fatalf("iterator from %x: item %d is %x", start, i-first, it.Key())
			}
			i++
		}
		if it.Err() != nil || i != len(keys) {
			t.Fatalf("iterator from %x stopped after %d of %d: %v", start, i-first, len(keys)-first, it.Err())
		}
	}
}

func TestCopyIndependent(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	a := NewEmpty()
	for i := 0; i < 500; i++ {
		a.Update(randKey(rng), randValue(rng))
	}
	before := a.Hash()
	b := a.Copy()
	for i := 0; i < 200; i++ {
		b.Update(randKey(rng), randValue(rng))
		b.Delete(randKey(rng))
	}
	if a.Hash() != before {
		t.Fatal("changing the copy changed the original")
	}
	after := b.Hash()
	for i := 0; i < 200; i++ {
		a.Update(randKey(rng), randValue(rng))
	}
	if b.Hash() != after {
		t.Fatal("changing the original changed the copy")
	}
	// Both commit all of their nodes even though they share dirty ones.
	for _, tr := range []*Trie{a, b} {
		db := NewMemoryDB()
		root, set := tr.Commit()
		db.Update(set)
		if _, err := New(root, db); err != nil {
			t.Fatal(err)
		}
		re, _ := New(root, db)
		it := re.NewIterator(nil)
		for it.Next() {
		}
		if it.Err() != nil {
			t.Fatal(it.Err())
		}
	}
}

func TestMissingNode(t *testing.T) {
	db := NewMemoryDB()
	tr := NewEmpty()
	for i := 0; i < 100; i++ {
		tr.Update([]byte{byte(i), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, bytes.Repeat([]byte{byte(i)}, 40))
	}
	root, _ := tr.Commit()
	if _, err := New(root, db); !errors.Is(err, ErrMissingNode) {
		t.Fatalf("open of unstored root: %v", err)
	}
}

func TestStackTrieMatchesTrie(t *testing.T) {
	for seed := int64(0); seed < 200; seed++ {
		rng := rand.New(rand.NewSource(seed))
		m := model{}
		for i := rng.Intn(60); i >= 0; i-- {
			m[string(randKey(rng))] = randValue(rng)
		}
		keys := m.sortedKeys()
		st := NewStackTrie()
		for _, k := range keys {
			if err := st.Update([]byte(k), m[k]); err != nil {
				t.Fatal(err)
			}
		}
		if got, want := st.Hash(), rootOf(m, keys); got != want {
			t.Fatalf("seed %d: stack trie %x, trie %x", seed, got, want)
		}
	}
	st := NewStackTrie()
	st.Update([]byte{2}, []byte{1})
	if err := st.Update([]byte{1}, []byte{1}); !errors.Is(err, ErrKeyOrder) {
		t.Fatalf("out of order: %v", err)
	}
	if err := st.Update([]byte{3}, nil); !errors.Is(err, ErrEmptyValue) {
		t.Fatalf("empty value: %v", err)
	}
}

// A stack trie that writes its nodes out leaves a trie that reads back
// every key, for tries of one key (a root under 32 bytes) and more.
func TestStackTrieWriterStoresTheTrie(t *testing.T) {
	for seed := int64(0); seed < 100; seed++ {
		rng := rand.New(rand.NewSource(seed))
		m := model{}
		for i := rng.Intn(60); i >= 0; i-- {
			m[string(randKey(rng))] = randValue(rng)
		}
		keys := m.sortedKeys()
		set := NewNodeSet()
		st := NewStackTrieWriter(func(h [32]byte, blob []byte) { set.Add(h, blob) })
		for _, k := range keys {
			if err := st.Update([]byte(k), m[k]); err != nil {
				t.Fatal(err)
			}
		}
		root := st.Hash()
		db := NewMemoryDB()
		if err := db.Update(set); err != nil {
			t.Fatal(err)
		}
		tr, err := New(root, db)
		if err != nil {
			t.Fatalf("seed %d: %v", seed, err)
		}
		for _, k := range keys {
			v, err := tr.Get([]byte(k))
			if err != nil || !bytes.Equal(v, m[k]) {
				t.Fatalf("seed %d: key %x reads %x %v", seed, k, v, err)
			}
		}
	}
}

func TestListRoot(t *testing.T) {
	for _, n := range []int{1, 2, 3, 16, 127, 128, 129, 300, 1000} {
		items := make([][]byte, n)
		tr := NewEmpty()
		for i := range items {
			items[i] = bytes.Repeat([]byte{byte(i), byte(i >> 8)}, 1+i%60)
			var kb [9]byte
			k := kb[:0]
			if i == 0 {
				k = append(k, 0x80)
			} else if i < 0x80 {
				k = append(k, byte(i))
			} else if i < 0x100 {
				k = append(k, 0x81, byte(i))
			} else {
				k = append(k, 0x82, byte(i>>8), byte(i))
			}
			tr.Update(k, items[i])
		}
		if got, want := ListRoot(n, func(i int) []byte { return items[i] }), tr.Hash(); got != want {
			t.Fatalf("n=%d: list root %x, trie %x", n, got, want)
		}
	}
}

// Proofs read from stored nodes must equal proofs encoded from memory.
func TestProofStoredEqualsLoaded(t *testing.T) {
	rng := rand.New(rand.NewSource(7))
	tr := NewEmpty()
	var keys [][]byte
	for i := 0; i < 2000; i++ {
		k := randKey(rng)
		keys = append(keys, k)
		tr.Update(k, randValue(rng))
	}
	db := NewMemoryDB()
	root, set := tr.Commit()
	db.Update(set)
	for _, k := range append(keys, []byte("absent"), []byte{0x11, 0x22, 0x33, 0x44}, nil) {
		re, err := New(root, db)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := tr.Prove(k)
		got, err := re.Prove(k)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("key %x: %d stored proof nodes, %d loaded", k, len(got), len(want))
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("key %x: proof node %d differs", k, i)
			}
		}
	}
}
