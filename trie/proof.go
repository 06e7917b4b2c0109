package trie

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/chaind/chaind/internal/crypto"
)

// ErrBadProof is returned (wrapped with details) by VerifyProof when the
// proof does not prove anything about the key under the root.
var ErrBadProof = errors.New("trie: bad proof")

// Prove returns the encodings of the nodes on the path to key, root first:
// every node that is referred to by hash (embedded nodes are part of their
// parent's encoding), and the root even when it is small. For an absent key
// the path ends at the node that shows the key is missing. This is the
// proof format of eth_getProof.
func (t *Trie) Prove(key []byte) ([][]byte, error) {
	t.Hash()
	nib := KeyToNibbles(key)
	h := getHasher()
	defer putHasher(h)
	var proof [][]byte
	n := t.root
	for first := true; n != nil; first = false {
		if hn, ok := n.(*hashNode); ok {
			rn, err := t.resolve(hn)
			if err != nil {
				return nil, err
			}
			n = rn
		}
		h.buf = h.buf[:0]
		h.encode(n)
		if first || len(h.buf) >= 32 {
			proof = append(proof, bytes.Clone(h.buf))
		}
		switch c := n.(type) {
		case *leafNode:
			n = nil
		case *shortNode:
			if len(nib) < len(c.key) || !bytes.Equal(c.key, nib[:len(c.key)]) {
				n = nil
				break
			}
			nib = nib[len(c.key):]
			n = c.child
		case *fullNode:
			if len(nib) == 0 {
				n = nil
				break
			}
			n = c.children[nib[0]]
			nib = nib[1:]
		}
	}
	return proof, nil
}

// VerifyProof checks a proof made by Prove against root. It returns the
// value stored under key, nil when the proof shows that key is absent, and
// an error wrapping ErrBadProof or ErrInvalidNode when the proof is not
// valid. The order of the proof nodes does not matter and unused nodes are
// ignored. The returned value is a sub-slice of a proof node.
func VerifyProof(root [32]byte, key []byte, proof [][]byte) ([]byte, error) {
	if root == EmptyRoot {
		return nil, nil
	}
	byHash := make(map[[32]byte][]byte, len(proof))
	sha := crypto.NewKeccak()
	for _, p := range proof {
		var h [32]byte
		sha.Reset()
		sha.Write(p)
		sha.Read(h[:])
		byHash[h] = p
	}
	nib := KeyToNibbles(key)
	want := root
	for depth := 0; ; depth++ {
		blob, ok := byHash[want]
		if !ok {
			return nil, fmt.Errorf("%w: node %x (step %d) missing", ErrBadProof, want, depth)
		}
		n, err := decodeItem(blob, 0)
		if err != nil {
			return nil, fmt.Errorf("%w: node %x: %w", ErrBadProof, want, err)
		}
		// Walk the node and whatever is embedded in it.
		for {
			switch c := n.(type) {
			case nil:
				return nil, nil
			case *hashNode:
				want = *c
			case *leafNode:
				if bytes.Equal(c.key, nib) {
					return c.val, nil
				}
				return nil, nil
			case *shortNode:
				if len(nib) < len(c.key) || !bytes.Equal(c.key, nib[:len(c.key)]) {
					return nil, nil
				}
				nib = nib[len(c.key):]
				n = c.child
				continue
			case *fullNode:
				if len(nib) == 0 {
					return c.val, nil
				}
				n = c.children[nib[0]]
				nib = nib[1:]
				continue
			}
			break
		}
	}
}
