package trie

import "github.com/chaind/chaind/internal/crypto"

// SecureTrie is a Trie whose keys are replaced by their keccak256 hash, as in
// Ethereum's state and storage tries: it keeps the trie balanced whatever
// keys an adversary picks. Iteration and proofs are in hashed-key space.
type SecureTrie struct {
	trie      Trie
	sha       crypto.KeccakState
	hashed    [32]byte
	preimages map[[32]byte][]byte // nil unless RecordPreimages was called
}

// NewSecure opens the secure trie with the given root.
func NewSecure(root [32]byte, db Reader) (*SecureTrie, error) {
	t, err := New(root, db)
	if err != nil {
		return nil, err
	}
	return &SecureTrie{trie: *t, sha: crypto.NewKeccak()}, nil
}

func (t *SecureTrie) hashKey(key []byte) []byte {
	t.sha.Reset()
	t.sha.Write(key)
	t.sha.Read(t.hashed[:])
	return t.hashed[:]
}

// Get returns the value stored under key, or nil.
func (t *SecureTrie) Get(key []byte) ([]byte, error) { return t.trie.Get(t.hashKey(key)) }

// Update stores value under key; an empty value deletes it.
func (t *SecureTrie) Update(key, value []byte) error {
	hk := t.hashKey(key)
	if t.preimages != nil && len(value) > 0 {
		t.preimages[t.hashed] = append([]byte(nil), key...)
	}
	return t.trie.Update(hk, value)
}

// Delete removes key.
func (t *SecureTrie) Delete(key []byte) error { return t.trie.Delete(t.hashKey(key)) }

// Hash returns the root hash.
func (t *SecureTrie) Hash() [32]byte { return t.trie.Hash() }

// Commit returns the root hash and the new nodes; see Trie.Commit.
func (t *SecureTrie) Commit() ([32]byte, *NodeSet) { return t.trie.Commit() }

// Copy returns an independent copy.
func (t *SecureTrie) Copy() *SecureTrie {
	cp := &SecureTrie{trie: *t.trie.Copy(), sha: crypto.NewKeccak()}
	if t.preimages != nil {
		cp.preimages = make(map[[32]byte][]byte, len(t.preimages))
		for k, v := range t.preimages {
			cp.preimages[k] = v
		}
	}
	return cp
}

// Prove returns the proof for key (hashed), as eth_getProof returns it.
func (t *SecureTrie) Prove(key []byte) ([][]byte, error) { return t.trie.Prove(t.hashKey(key)) }

// VerifySecureProof is VerifyProof for a key of a secure trie.
func VerifySecureProof(root [32]byte, key []byte, proof [][]byte) ([]byte, error) {
	h := crypto.Keccak256(key)
	return VerifyProof(root, h[:], proof)
}

// NewIterator iterates in hashed-key order from the hashed key start.
func (t *SecureTrie) NewIterator(start []byte) *Iterator { return t.trie.NewIterator(start) }

// RecordPreimages makes the trie remember the original of every key it is
// given from now on, for GetKey.
func (t *SecureTrie) RecordPreimages() {
	if t.preimages == nil {
		t.preimages = make(map[[32]byte][]byte)
	}
}

// GetKey returns the original key of a hashed key, if this trie recorded it.
func (t *SecureTrie) GetKey(hashed []byte) []byte {
	if len(hashed) != 32 || t.preimages == nil {
		return nil
	}
	return t.preimages[[32]byte(hashed)]
}
