package main

import (
	"bytes"
	"math/rand"
	"sort"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/trie"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/ethdb/memorydb"
	gtrie "github.com/ethereum/go-ethereum/trie"
)

// orderedProof records the proof nodes go-ethereum writes, in order.
type orderedProof struct{ nodes [][]byte }

func (p *orderedProof) Put(_ []byte, v []byte) error {
	p.nodes = append(p.nodes, bytes.Clone(v))
	return nil
}
func (p *orderedProof) Delete([]byte) error { return nil }

func randTrieKey(rng *rand.Rand) []byte {
	switch rng.Intn(3) {
	case 0:
		k := make([]byte, 32)
		rng.Read(k)
		return k
	default:
		k := make([]byte, rng.Intn(5))
		for i := range k {
			k[i] = byte(rng.Intn(4)) * 0x11
		}
		return k
	}
}

// TestTrieAgainstGeth drives both tries with the same random updates and
// deletes and compares roots, committed node sets, proofs (byte for byte,
// in order) and the stack tries.
func TestTrieAgainstGeth(t *testing.T) {
	for seed := int64(0); seed < 40; seed++ {
		rng := rand.New(rand.NewSource(seed))
		ours := trie.NewEmpty()
		geth := gtrie.NewEmpty(nil)
		m := map[string][]byte{}
		var probes [][]byte
		for i := 0; i < 20+rng.Intn(400); i++ {
			k := randTrieKey(rng)
			probes = append(probes, k)
			if rng.Intn(4) == 0 {
				ours.Delete(k)
				geth.Delete(k)
				delete(m, string(k))
				continue
			}
			v := make([]byte, 1+rng.Intn(50))
			rng.Read(v)
			ours.Update(k, v)
			geth.Update(k, bytes.Clone(v))
			m[string(k)] = v
		}
		if a, b := ours.Hash(), geth.Hash(); a != b {
			t.Fatalf("seed %d: root %x, geth %x", seed, a, b)
		}
		root := common.Hash(ours.Hash())
		for _, k := range probes {
			p1, err := ours.Prove(k)
			if err != nil {
				t.Fatal(err)
			}
			var p2 orderedProof
			if err := geth.Prove(k, &p2); err != nil {
				t.Fatal(err)
			}
			if len(p1) != len(p2.nodes) {
				t.Fatalf("seed %d key %x: %d proof nodes, geth %d", seed, k, len(p1), len(p2.nodes))
			}
			pdb := memorydb.New()
			for i := range p1 {
				if !bytes.Equal(p1[i], p2.nodes[i]) {
					t.Fatalf("seed %d key %x: proof node %d differs", seed, k, i)
				}
				pdb.Put(gcryptoKeccak(p1[i]), p1[i])
			}
			gv, gerr := gtrie.VerifyProof(root, k, pdb)
			ov, oerr := trie.VerifyProof(root, k, p1)
			if gerr != nil || oerr != nil || !bytes.Equal(gv, ov) || !bytes.Equal(ov, m[string(k)]) {
				t.Fatalf("seed %d key %x: verify ours %x %v, geth %x %v, want %x", seed, k, ov, oerr, gv, gerr, m[string(k)])
			}
		}
		// Committed nodes: the same set of encodings.
		_, set := ours.Commit()
		_, gset := geth.Commit(false)
		want := map[[32]byte]bool{}
		if gset != nil {
			for h := range gset.HashSet() {
				want[h] = true
			}
		}
		got := map[[32]byte]bool{}
		set.ForEach(func(h [32]byte, _ []byte) { got[h] = true })
		for h := range want {
			if !got[h] {
				t.Fatalf("seed %d: geth committed %x, we did not", seed, h)
			}
		}
		for h := range got {
			if !want[h] {
				t.Fatalf("seed %d: we committed %x, geth did not", seed, h)
			}
		}
		// Stack tries over the sorted final contents.
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		st, gst := trie.NewStackTrie(), gtrie.NewStackTrie(nil)
		prefixFree := true // go-ethereum's stack trie panics on prefix keys
		for i, k := range keys {
			st.Update([]byte(k), m[k])
			if i > 0 && strings.HasPrefix(k, keys[i-1]) {
				prefixFree = false
			}
		}
		if a := st.Hash(); a != root {
			t.Fatalf("seed %d: stack trie %x, trie %x", seed, a, root)
		}
		if prefixFree {
			for _, k := range keys {
				gst.Update([]byte(k), m[k])
			}
			if b := gst.Hash(); b != root {
				t.Fatalf("seed %d: geth stack trie %x, trie %x", seed, b, root)
			}
		}
	}
}

func gcryptoKeccak(b []byte) []byte {
	h := crypto.Keccak256(b)
	return h[:]
}
