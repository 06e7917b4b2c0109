package ethbackend

import (
	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/trie"
	"github.com/holiman/uint256"
)

// Proof proves an account and storage slots of it against the state root
// of block h (EIP-1186).
func (b *Backend) Proof(h *types.Header, addr types.Address, keys []types.Hash) (*backend.AccountProof, error) {
	// The state every other read of block h sees: on a development node,
	// with the test helpers' edits.
	root := b.view.StateRoot(h)
	// Pinned: the proofs walk the tries after the reads.
	st, release, err := b.chain.StateAtBlock(h.Number, root)
	if err != nil {
		return nil, err
	}
	defer release()
	// Read before proving: on a forked chain the reads fetch the nodes the
	// proofs walk.
	st.Exist(addr)
	values := make([]types.Hash, len(keys))
	for i, key := range keys {
		values[i] = st.GetState(addr, key)
	}
	if err := st.Error(); err != nil {
		return nil, err
	}
	accTrie, err := trie.NewSecure(root, b.chain.DB())
	if err != nil {
		return nil, err
	}
	accProof, err := accTrie.Prove(addr[:])
	if err != nil {
		return nil, err
	}
	res := &backend.AccountProof{
		Address:     addr,
		Proof:       accProof,
		Balance:     new(uint256.Int).Set(st.GetBalance(addr)),
		CodeHash:    st.GetCodeHash(addr),
		Nonce:       st.GetNonce(addr),
		StorageHash: st.GetStorageRoot(addr),
		Storage:     []backend.StorageProof{},
	}
	if !st.Exist(addr) {
		res.CodeHash = types.EmptyCodeHash
		res.StorageHash = types.EmptyRootHash
	}
	var stTrie *trie.SecureTrie
	if res.StorageHash != types.EmptyRootHash && res.StorageHash != (types.Hash{}) {
		if stTrie, err = trie.NewSecure(res.StorageHash, b.chain.DB()); err != nil {
			return nil, err
		}
	}
	for i, key := range keys {
		proof := [][]byte{}
		if stTrie != nil {
			if proof, err = stTrie.Prove(key[:]); err != nil {
				return nil, err
			}
		}
		res.Storage = append(res.Storage, backend.StorageProof{Key: key, Value: values[i], Proof: proof})
	}
	return res, nil
}
