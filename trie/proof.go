package trie

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/rlp"
)

// ErrBadProof is returned (wrapped with details) by VerifyProof when the
// proof does not prove anything about the key under the root.
var ErrBadProof = errors.New("trie: bad proof")

// Prove returns the encodings of the nodes on the path to key, root first:
// every node that is referred to by hash (embedded nodes are part of their
// parent's encoding), and the root even when it is small. For an absent key
// the path ends at the node that shows the key is missing. This is the
// proof format of eth_getProof. The proof shares one fresh buffer.
func (t *Trie) Prove(key []byte) ([][]byte, error) {
	t.Hash()
	var kb [80]byte
	nib := appendNibbles(kb[:0], key)
	h := getHasher()
	defer putHasher(h)
	// Loaded nodes are encoded one after the other into h.buf; stored ones
	// are referenced where they are. Both are copied once, at the end.
	var pieceBuf [16]proofPiece
	pieces := pieceBuf[:0]
	n := t.root
	for first := true; n != nil; first = false {
		if hn, ok := n.(*hashNode); ok {
			// The rest of the path is not loaded: walk the stored
			// encodings themselves, which are the proof nodes.
			var err error
			if pieces, err = t.proveStored(*hn, nib, pieces); err != nil {
				return nil, err
			}
			break
		}
		start := len(h.buf)
		h.encode(n)
		if first || len(h.buf)-start >= 32 {
			pieces = append(pieces, proofPiece{start: start, end: len(h.buf)})
		} else {
			h.buf = h.buf[:start]
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
	total := 0
	for _, p := range pieces {
		total += p.end - p.start + len(p.stored)
	}
	buf := make([]byte, 0, total)
	proof := make([][]byte, len(pieces))
	for i, p := range pieces {
		l := len(buf)
		if p.stored != nil {
			buf = append(buf, p.stored...)
		} else {
			buf = append(buf, h.buf[p.start:p.end]...)
		}
		proof[i] = buf[l:len(buf):len(buf)]
	}
	return proof, nil
}

// proofPiece is one proof node: a stored encoding, or a range of the
// hasher's buffer.
type proofPiece struct {
	stored     []byte
	start, end int
}

// proveStored adds the stored nodes on the path of key from hash on.
func (t *Trie) proveStored(hash [32]byte, key []byte, pieces []proofPiece) ([]proofPiece, error) {
	for {
		if t.db == nil {
			return pieces, MissingNode(hash)
		}
		blob, err := t.db.Node(hash)
		if err != nil {
			return pieces, err
		}
		pieces = append(pieces, proofPiece{stored: blob})
		var next []byte
		next, key, err = followEncoded(blob, key)
		if err != nil || next == nil {
			return pieces, err
		}
		hash = [32]byte(next)
	}
}

// followEncoded follows key through the node encoding enc and the nodes
// embedded in it without decoding them into memory. It returns the hash of
// the stored node where the path continues together with the rest of the
// key, or nil when the path ends inside enc.
func followEncoded(enc, key []byte) (next, rest []byte, err error) {
	for {
		content, _, err := rlp.SplitList(enc)
		if err != nil {
			return nil, nil, invalid("%v", err)
		}
		// Two items make a leaf or an extension, more a branch; telling
		// them apart needs only the first two headers.
		_, _, second, err := rlp.Split(content)
		if err != nil {
			return nil, nil, invalid("%v", err)
		}
		_, _, third, err := rlp.Split(second)
		if err != nil {
			return nil, nil, invalid("%v", err)
		}
		var ref []byte
		if len(third) == 0 {
			compact, _, err := rlp.SplitString(content)
			if err != nil {
				return nil, nil, invalid("%v", err)
			}
			plen, leaf, ok := matchCompact(compact, key)
			if leaf || !ok {
				return nil, nil, nil
			}
			key, ref = key[plen:], second
		} else {
			// A branch: skip to the child of the next nibble.
			if len(key) == 0 {
				return nil, nil, nil
			}
			switch key[0] {
			case 0:
				ref = content
			case 1:
				ref = second
			default:
				ref = third
				for i := byte(2); i < key[0]; i++ {
					if _, _, ref, err = rlp.Split(ref); err != nil {
						return nil, nil, invalid("%v", err)
					}
				}
			}
			key = key[1:]
		}
		k, c, _, err := rlp.Split(ref)
		switch {
		case err != nil:
			return nil, nil, invalid("%v", err)
		case k == rlp.List:
			_, _, r, _ := rlp.Split(ref)
			enc = ref[:len(ref)-len(r)]
		case len(c) == 32:
			return c, key, nil
		default:
			return nil, nil, nil
		}
	}
}

// matchCompact reports the length of the hex-prefix encoded path, whether
// it ends in a leaf, and whether key continues with it (for a leaf: equals
// it).
func matchCompact(compact, key []byte) (plen int, leaf, ok bool) {
	if len(compact) == 0 {
		return 0, false, false
	}
	flag := compact[0] >> 4
	leaf = flag&2 != 0
	odd := flag&1 != 0
	plen = 2 * (len(compact) - 1)
	if odd {
		plen++
	}
	if len(key) < plen || leaf && len(key) != plen {
		return plen, leaf, false
	}
	i := 0
	if odd {
		if key[0] != compact[0]&0x0f {
			return plen, leaf, false
		}
		i = 1
	}
	for _, b := range compact[1:] {
		if key[i] != b>>4 || key[i+1] != b&0x0f {
			return plen, leaf, false
		}
		i += 2
	}
	return plen, leaf, true
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
