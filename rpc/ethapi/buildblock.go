package ethapi

import (
	"context"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
	"github.com/holiman/uint256"
)

type payloadAttributes struct {
	Timestamp             types.HexUint64 `json:"timestamp"`
	PrevRandao            types.Hash      `json:"prevRandao"`
	SuggestedFeeRecipient types.Address   `json:"suggestedFeeRecipient"`
	Withdrawals           []simWithdrawal `json:"withdrawals"`
	ParentBeaconBlockRoot *types.Hash     `json:"parentBeaconBlockRoot"`
}

// buildBlock is testing_buildBlockV1: it builds (but does not import) a
// block on the given parent from exactly the given transactions, failing
// when one of them does not apply, and returns it as an engine-API
// payload envelope. An empty list builds an empty block; null (or no
// list) builds from the pool's pending transactions, as a proposer would.
func (api *ethAPI) buildBlock(ctx context.Context, p rpc.Params) (any, error) {
	var (
		parentHash types.Hash
		attrs      payloadAttributes
		raws       []types.HexBytes
		extra      types.HexBytes
	)
	if err := p.Decode(0, &parentHash); err != nil {
		return nil, err
	}
	if err := p.Decode(1, &attrs); err != nil {
		return nil, err
	}
	listed, err := p.Optional(2, &raws)
	if err != nil {
		return nil, err
	}
	if _, err := p.Optional(3, &extra); err != nil {
		return nil, err
	}
	req := &backend.BuildRequest{
		Parent: parentHash, Timestamp: uint64(attrs.Timestamp), PrevRandao: attrs.PrevRandao,
		FeeRecipient: attrs.SuggestedFeeRecipient, ParentBeaconRoot: attrs.ParentBeaconBlockRoot, Extra: extra,
		FromPool: !listed,
	}
	for _, w := range attrs.Withdrawals {
		req.Withdrawals = append(req.Withdrawals, w.toBackend())
	}
	for _, raw := range raws {
		req.Transactions = append(req.Transactions, raw)
	}
	built, err := api.b.BuildBlock(ctx, req)
	if err != nil {
		return nil, err
	}
	return payloadEnvelope(built.Block, built.Value, built.Requests), nil
}

type executionPayload struct {
	ParentHash    types.Hash       `json:"parentHash"`
	FeeRecipient  types.Address    `json:"feeRecipient"`
	StateRoot     types.Hash       `json:"stateRoot"`
	ReceiptsRoot  types.Hash       `json:"receiptsRoot"`
	LogsBloom     types.HexBytes   `json:"logsBloom"`
	PrevRandao    types.Hash       `json:"prevRandao"`
	BlockNumber   types.HexUint64  `json:"blockNumber"`
	GasLimit      types.HexUint64  `json:"gasLimit"`
	GasUsed       types.HexUint64  `json:"gasUsed"`
	Timestamp     types.HexUint64  `json:"timestamp"`
	ExtraData     types.HexBytes   `json:"extraData"`
	BaseFeePerGas *types.HexU256   `json:"baseFeePerGas"`
	BlockHash     types.Hash       `json:"blockHash"`
	Transactions  []types.HexBytes `json:"transactions"`
	Withdrawals   *[]simWithdrawal `json:"withdrawals,omitempty"`
	BlobGasUsed   *types.HexUint64 `json:"blobGasUsed,omitempty"`
	ExcessBlobGas *types.HexUint64 `json:"excessBlobGas,omitempty"`
}

type blobsBundle struct {
	Commitments []types.HexBytes `json:"commitments"`
	Proofs      []types.HexBytes `json:"proofs"`
	Blobs       []types.HexBytes `json:"blobs"`
}

type payloadEnvelopeJSON struct {
	ExecutionPayload      executionPayload `json:"executionPayload"`
	BlockValue            *types.HexU256   `json:"blockValue"`
	BlobsBundle           blobsBundle      `json:"blobsBundle"`
	ExecutionRequests     []types.HexBytes `json:"executionRequests"`
	ShouldOverrideBuilder bool             `json:"shouldOverrideBuilder"`
}

func payloadEnvelope(blk *types.Block, value *uint256.Int, requests [][]byte) *payloadEnvelopeJSON {
	h := blk.HeaderRef()
	ep := executionPayload{
		ParentHash: h.ParentHash, FeeRecipient: h.Coinbase, StateRoot: h.Root, ReceiptsRoot: h.ReceiptHash,
		LogsBloom: h.Bloom[:], PrevRandao: h.MixDigest, BlockNumber: types.HexUint64(h.Number),
		GasLimit: types.HexUint64(h.GasLimit), GasUsed: types.HexUint64(h.GasUsed), Timestamp: types.HexUint64(h.Time),
		ExtraData: types.HexBytes(append([]byte{}, h.Extra...)), BlockHash: blk.Hash(), Transactions: []types.HexBytes{},
	}
	if h.BaseFee != nil {
		ep.BaseFeePerGas = (*types.HexU256)(new(uint256.Int).Set(h.BaseFee))
	}
	for _, tx := range blk.Transactions() {
		enc, _ := tx.MarshalBinary()
		ep.Transactions = append(ep.Transactions, enc)
	}
	if ws := blk.Withdrawals(); ws != nil {
		list := []simWithdrawal{}
		ep.Withdrawals = &list
		for _, w := range ws {
			list = append(list, simWithdrawal{
				Index: types.HexUint64(w.Index), Validator: types.HexUint64(w.Validator), Address: w.Address, Amount: types.HexUint64(w.Amount),
			})
		}
	}
	if h.BlobGasUsed != nil {
		u, e := types.HexUint64(*h.BlobGasUsed), types.HexUint64(*h.ExcessBlobGas)
		ep.BlobGasUsed, ep.ExcessBlobGas = &u, &e
	}
	out := &payloadEnvelopeJSON{
		ExecutionPayload:  ep,
		BlockValue:        (*types.HexU256)(value),
		BlobsBundle:       blobsBundle{Commitments: []types.HexBytes{}, Proofs: []types.HexBytes{}, Blobs: []types.HexBytes{}},
		ExecutionRequests: []types.HexBytes{},
	}
	for _, r := range requests {
		out.ExecutionRequests = append(out.ExecutionRequests, r)
	}
	return out
}
