package ethapi

import (
	"context"

	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
)

func (api *ethAPI) refParam(p rpc.Params) (*types.Block, error) {
	var ref BlockRef
	if err := p.Decode(0, &ref); err != nil {
		return nil, err
	}
	blk, err := resolve(api.b, ref)
	if err != nil {
		return nil, err
	}
	if blk == nil {
		return nil, errBlockNotFound
	}
	return blk, nil
}

var errBlockNotFound = &rpc.Error{Code: rpc.CodeServer, Message: "block not found"}

func (api *ethAPI) rawBlock(_ context.Context, p rpc.Params) (any, error) {
	blk, err := api.refParam(p)
	if err != nil {
		return nil, err
	}
	return types.HexBytes(blk.EncodeRLP()), nil
}

func (api *ethAPI) rawHeader(_ context.Context, p rpc.Params) (any, error) {
	blk, err := api.refParam(p)
	if err != nil {
		return nil, err
	}
	return types.HexBytes(blk.HeaderRef().EncodeRLP()), nil
}

func (api *ethAPI) rawReceipts(_ context.Context, p rpc.Params) (any, error) {
	blk, err := api.refParam(p)
	if err != nil {
		return nil, err
	}
	rs, err := api.b.Receipts(blk)
	if err != nil {
		return nil, err
	}
	out := make([]types.HexBytes, len(rs))
	for i, r := range rs {
		enc, err := r.MarshalBinary()
		if err != nil {
			return nil, err
		}
		out[i] = enc
	}
	return out, nil
}

func (api *ethAPI) rawTransaction(_ context.Context, p rpc.Params) (any, error) {
	var h types.Hash
	if err := p.Decode(0, &h); err != nil {
		return nil, err
	}
	if bh, idx, ok := api.b.TxLookup(h); ok {
		blk, err := api.b.BlockByHash(bh)
		if err != nil {
			return nil, err
		}
		enc, err := blk.Transactions()[idx].MarshalBinary()
		return types.HexBytes(enc), err
	}
	if tx, _, ok := api.b.PoolTransaction(h); ok {
		enc, err := tx.MarshalBinary()
		return types.HexBytes(enc), err
	}
	return nil, nil
}
