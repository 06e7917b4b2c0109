package ethapi

import (
	"context"
	"encoding/json"
	"math/big"

	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
	"github.com/chaind/chaind/trie"
	"github.com/holiman/uint256"
)

// ProofBackend is implemented by backends that can serve Merkle proofs:
// they expose the node store the state tries live in.
type ProofBackend interface {
	TrieReader() trie.Reader
}

type storageResult struct {
	Key   string           `json:"key"`
	Value *types.HexU256   `json:"value"`
	Proof []types.HexBytes `json:"proof"`
}

type accountResult struct {
	Address      types.Address    `json:"address"`
	AccountProof []types.HexBytes `json:"accountProof"`
	Balance      *types.HexU256   `json:"balance"`
	CodeHash     types.Hash       `json:"codeHash"`
	Nonce        types.HexUint64  `json:"nonce"`
	StorageHash  types.Hash       `json:"storageHash"`
	StorageProof []storageResult  `json:"storageProof"`
}

func (api *ethAPI) getProof(_ context.Context, p rpc.Params) (any, error) {
	pb, ok := api.b.(ProofBackend)
	if !ok {
		return nil, rpc.Errorf(rpc.CodeMethodNotFound, "the method eth_getProof does not exist/is not available")
	}
	var addr types.Address
	if err := p.Decode(0, &addr); err != nil {
		return nil, err
	}
	var rawKeys []json.RawMessage
	if err := p.Decode(1, &rawKeys); err != nil {
		return nil, err
	}
	blk, st, err := api.stateAt(p, 2)
	if err != nil {
		return nil, err
	}
	accTrie, err := trie.NewSecure(blk.Root(), pb.TrieReader())
	if err != nil {
		return nil, err
	}
	accProof, err := accTrie.Prove(addr[:])
	if err != nil {
		return nil, err
	}
	res := accountResult{
		Address:      addr,
		AccountProof: hexList(accProof),
		Balance:      (*types.HexU256)(new(uint256.Int).Set(st.GetBalance(addr))),
		CodeHash:     st.GetCodeHash(addr),
		Nonce:        types.HexUint64(st.GetNonce(addr)),
		StorageHash:  st.GetStorageRoot(addr),
		StorageProof: []storageResult{},
	}
	if !st.Exist(addr) {
		res.CodeHash = types.EmptyCodeHash
		res.StorageHash = types.EmptyRootHash
	}
	var stTrie *trie.SecureTrie
	if res.StorageHash != types.EmptyRootHash && res.StorageHash != (types.Hash{}) {
		if stTrie, err = trie.NewSecure(res.StorageHash, pb.TrieReader()); err != nil {
			return nil, err
		}
	}
	for _, raw := range rawKeys {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, rpc.InvalidParams(1, err)
		}
		key, err := storageKey(raw)
		if err != nil {
			return nil, err
		}
		// Short keys are echoed as quantities, full ones as hashes, as
		// go-ethereum does.
		out := key.Hex()
		if b, _ := types.ParseBytes(evenHex(s)); len(b) != 32 {
			out = "0x" + new(big.Int).SetBytes(key[:]).Text(16)
		}
		proof := [][]byte{}
		if stTrie != nil {
			if proof, err = stTrie.Prove(key[:]); err != nil {
				return nil, err
			}
		}
		v := st.GetState(addr, key)
		res.StorageProof = append(res.StorageProof, storageResult{
			Key: out, Value: (*types.HexU256)(new(uint256.Int).SetBytes(v[:])), Proof: hexList(proof),
		})
	}
	return res, nil
}

func hexList(bs [][]byte) []types.HexBytes {
	out := make([]types.HexBytes, len(bs))
	for i, b := range bs {
		out[i] = b
	}
	return out
}
