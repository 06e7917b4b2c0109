package trie

import (
	"bytes"
	"math/rand"
	"sort"
	"testing"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/rlp"
)

// seedProof builds a small trie and returns a proof for one of its keys,
// packed as an RLP list of the proof nodes.
func seedProof(n int, key []byte) []byte {
	tr := NewEmpty()
	rng := rand.New(rand.NewSource(int64(n)))
	for i := 0; i < n; i++ {
		k := make([]byte, 1+rng.Intn(8))
		rng.Read(k)
		tr.Update(k, bytes.Repeat(k, 1+rng.Intn(5)))
	}
	proof, _ := tr.Prove(key)
	var b rlp.Buffer
	l := b.List()
	for _, p := range proof {
		b.WriteBytes(p)
	}
	b.ListEnd(l)
	return b.Bytes()
}

// FuzzVerifyProof feeds hostile proofs to VerifyProof. The root is the hash
// of the first node so that decoding is actually reached. It must never
// panic, and whatever it accepts must be consistent with a re-verification.
func FuzzVerifyProof(f *testing.F) {
	f.Add([]byte{1, 2}, seedProof(10, []byte{1, 2}))
	f.Add([]byte("dog"), seedProof(50, []byte("dog")))
	f.Add([]byte{}, seedProof(3, nil))
	f.Add([]byte{0xff}, []byte{0xc0})
	f.Fuzz(func(t *testing.T, key, packed []byte) {
		content, _, err := rlp.SplitList(packed)
		if err != nil {
			return
		}
		var proof [][]byte
		for len(content) > 0 {
			p, rest, err := rlp.SplitString(content)
			if err != nil {
				return
			}
			proof = append(proof, p)
			content = rest
		}
		if len(proof) == 0 {
			return
		}
		root := crypto.Keccak256(proof[0])
		v1, err1 := VerifyProof(root, key, proof)
		v2, err2 := VerifyProof(root, key, proof)
		if (err1 == nil) != (err2 == nil) || !bytes.Equal(v1, v2) {
			t.Fatal("VerifyProof is not deterministic")
		}
	})
}

// FuzzDecodeNode checks that node decoding never panics and that whatever
// it accepts is canonical: encoding the decoded node gives the input back.
func FuzzDecodeNode(f *testing.F) {
	tr := NewEmpty()
	for i := 0; i < 40; i++ {
		tr.Update([]byte{byte(i * 37), byte(i)}, bytes.Repeat([]byte{byte(i)}, i%40+1))
	}
	_, set := tr.Commit()
	set.ForEach(func(_ [32]byte, blob []byte) { f.Add(blob) })
	f.Add([]byte{0xc2, 0x20, 0x01})
	f.Add([]byte{0xc0})
	f.Fuzz(func(t *testing.T, blob []byte) {
		n, err := decodeNode(crypto.Keccak256(blob), blob, 1)
		if err != nil {
			return
		}
		h := getHasher()
		defer putHasher(h)
		h.encode(n)
		if !bytes.Equal(h.buf, blob) {
			t.Fatalf("decoded %x re-encodes as %x", blob, h.buf)
		}
	})
}

// FuzzTrieOps interprets the input as a sequence of updates and deletes and
// checks the trie against a map, a rebuilt trie and the stack trie.
func FuzzTrieOps(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 1, 1, 2, 5, 2, 1, 2})
	f.Add([]byte("\x00\x03dog\x05puppy\x00\x03doe\x08reindeer\x01\x03dog"))
	f.Fuzz(func(t *testing.T, ops []byte) {
		tr := NewEmpty()
		m := model{}
		take := func() []byte {
			if len(ops) == 0 {
				return nil
			}
			n := int(ops[0]) % 8
			ops = ops[1:]
			n = min(n, len(ops))
			b := ops[:n]
			ops = ops[n:]
			return b
		}
		for len(ops) > 0 {
			kind := ops[0] % 3
			ops = ops[1:]
			k := bytes.Clone(take())
			if kind == 1 {
				tr.Delete(k)
				delete(m, string(k))
				continue
			}
			v := bytes.Clone(take())
			tr.Update(k, v)
			if len(v) == 0 {
				delete(m, string(k))
			} else {
				m[string(k)] = v
			}
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		st := NewStackTrie()
		for _, k := range keys {
			st.Update([]byte(k), m[k])
		}
		root := tr.Hash()
		if want := rootOf(m, keys); root != want {
			t.Fatalf("root %x, rebuilt %x", root, want)
		}
		if sr := st.Hash(); sr != root {
			t.Fatalf("root %x, stack trie %x", root, sr)
		}
		for _, k := range keys {
			if v, _ := tr.Get([]byte(k)); !bytes.Equal(v, m[k]) {
				t.Fatalf("Get(%x) = %x, want %x", k, v, m[k])
			}
		}
	})
}

// FuzzFollowEncoded walks hostile stored nodes the way Prove does: it must
// not panic, and for nodes the decoder accepts it must agree with walking
// the decoded node.
func FuzzFollowEncoded(f *testing.F) {
	tr := NewEmpty()
	for i := 0; i < 40; i++ {
		tr.Update([]byte{byte(i * 37), byte(i)}, bytes.Repeat([]byte{byte(i)}, i%40+1))
	}
	_, set := tr.Commit()
	set.ForEach(func(_ [32]byte, blob []byte) { f.Add(blob, []byte{0x25, 0x01}) })
	f.Fuzz(func(t *testing.T, blob, key []byte) {
		nib := KeyToNibbles(key)
		next, _, err := followEncoded(blob, nib)
		if err != nil {
			return
		}
		n, derr := decodeItem(blob, 0)
		if derr != nil {
			return
		}
		// Walk the decoded node to the first hash reference.
		for n != nil {
			switch c := n.(type) {
			case *hashNode:
				if !bytes.Equal(next, c[:]) {
					t.Fatalf("followEncoded gives %x, decoded walk %x", next, c[:])
				}
				return
			case *leafNode:
				n = nil
			case *shortNode:
				if len(nib) < len(c.key) || !bytes.Equal(c.key, nib[:len(c.key)]) {
					n = nil
					break
				}
				nib, n = nib[len(c.key):], c.child
			case *fullNode:
				if len(nib) == 0 {
					n = nil
					break
				}
				n, nib = c.children[nib[0]], nib[1:]
			}
		}
		if next != nil {
			t.Fatalf("followEncoded gives %x, decoded walk ends", next)
		}
	})
}
