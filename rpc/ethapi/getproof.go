package ethapi

import (
	"context"
	"encoding/json"
	"math/big"

	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
	"github.com/holiman/uint256"
)

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
	var addr types.Address
	if err := p.Decode(0, &addr); err != nil {
		return nil, err
	}
	var rawKeys []json.RawMessage
	if err := p.Decode(1, &rawKeys); err != nil {
		return nil, err
	}
	ref, err := blockRef(p, 2)
	if err != nil {
		return nil, err
	}
	blk, err := resolveState(api.b, ref)
	if err != nil {
		return nil, err
	}
	keys := make([]types.Hash, len(rawKeys))
	echo := make([]string, len(rawKeys))
	for i, raw := range rawKeys {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, rpc.InvalidParams(1, err)
		}
		key, err := storageKey(1, raw)
		if err != nil {
			return nil, err
		}
		keys[i] = key
		// Short keys are echoed as quantities, full ones as hashes, as
		// go-ethereum does.
		echo[i] = key.Hex()
		if b, _ := types.ParseBytes(evenHex(s)); len(b) != 32 {
			echo[i] = "0x" + new(big.Int).SetBytes(key[:]).Text(16)
		}
	}
	pr, err := api.b.Proof(blk.HeaderRef(), addr, keys)
	if err != nil {
		return nil, err
	}
	res := accountResult{
		Address:      pr.Address,
		AccountProof: hexList(pr.Proof),
		Balance:      (*types.HexU256)(new(uint256.Int).Set(pr.Balance)),
		CodeHash:     pr.CodeHash,
		Nonce:        types.HexUint64(pr.Nonce),
		StorageHash:  pr.StorageHash,
		StorageProof: []storageResult{},
	}
	for i, sp := range pr.Storage {
		res.StorageProof = append(res.StorageProof, storageResult{
			Key: echo[i], Value: (*types.HexU256)(new(uint256.Int).SetBytes(sp.Value[:])), Proof: hexList(sp.Proof),
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
