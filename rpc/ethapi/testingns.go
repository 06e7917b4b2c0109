package ethapi

import (
	"context"
	"fmt"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
	"github.com/chaind/chaind/trie"
	"github.com/holiman/uint256"
)

// builderGasLimit is the gas limit testing_buildBlockV1 steers toward, as
// far as the 1/1024 rule allows per block (go-ethereum's miner default).
const builderGasLimit = 60_000_000

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
// payload envelope.
func (api *ethAPI) buildBlock(_ context.Context, p rpc.Params) (any, error) {
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
	if _, err := p.Optional(2, &raws); err != nil {
		return nil, err
	}
	if _, err := p.Optional(3, &extra); err != nil {
		return nil, err
	}
	parentBlk, err := orNil(api.b.BlockByHash(parentHash))
	if err != nil {
		return nil, err
	}
	if parentBlk == nil {
		return nil, fmt.Errorf("parent block %s not found", parentHash)
	}
	parent := parentBlk.HeaderRef()
	cfg := api.b.Config()
	h := &types.Header{
		ParentHash:  parentHash,
		UncleHash:   types.EmptyUncleHash,
		Coinbase:    attrs.SuggestedFeeRecipient,
		Number:      parent.Number + 1,
		GasLimit:    towardGasLimit(parent.GasLimit, builderGasLimit),
		Time:        uint64(attrs.Timestamp),
		Extra:       extra,
		MixDigest:   attrs.PrevRandao,
		TxHash:      types.EmptyRootHash,
		ReceiptHash: types.EmptyRootHash,
	}
	if h.Time <= parent.Time {
		return nil, &rpc.Error{Code: rpc.CodeInvalidParams, Message: fmt.Sprintf("timestamp %d not after parent's %d", h.Time, parent.Time)}
	}
	fork := cfg.Fork(h.Number, h.Time)
	if fork >= forks.London {
		h.BaseFee = cfg.CalcBaseFee(parent)
	}
	if fork >= forks.Cancun {
		var excess, used uint64
		if cfg.IsCancunAt(parent) && parent.ExcessBlobGas != nil && parent.BlobGasUsed != nil {
			excess = cfg.Blob(h.Number, h.Time).ExcessBlobGas(fork, *parent.ExcessBlobGas, *parent.BlobGasUsed, parent.BaseFee)
		}
		h.ExcessBlobGas, h.BlobGasUsed = &excess, &used
		br := types.Hash{}
		if attrs.ParentBeaconBlockRoot != nil {
			br = *attrs.ParentBeaconBlockRoot
		}
		h.ParentBeaconRoot = &br
	}
	st, err := api.b.StateAt(parent.Root)
	if err != nil {
		return nil, err
	}
	deleteEmpty := fork >= forks.SpuriousDragon
	vm := evm.NewEVM(cfg.BlockContext(h, api.b.GetHash), st, cfg.ChainID, fork)
	if fork >= forks.Prague {
		st.BeginTx(types.Hash{}, -1)
		if _, err := vm.SystemCall(evm.HistoryStorageAddress, h.ParentHash[:]); err != nil {
			return nil, err
		}
		st.Finalise(deleteEmpty)
	}
	if h.ParentBeaconRoot != nil {
		st.BeginTx(types.Hash{}, -1)
		if _, err := vm.SystemCall(evm.BeaconRootsAddress, h.ParentBeaconRoot[:]); err != nil {
			return nil, err
		}
		st.Finalise(deleteEmpty)
	}
	signer := cfg.Signer(h.Number, h.Time)
	var (
		txs      []*types.Transaction
		receipts types.Receipts
		logs     []*types.Log
		gp       = evm.GasPool(h.GasLimit)
		gasUsed  uint64
		blobGas  uint64
		value    = new(uint256.Int)
	)
	for i, raw := range raws {
		tx := new(types.Transaction)
		if err := tx.UnmarshalBinary(raw); err != nil {
			return nil, &rpc.Error{Code: rpc.CodeInvalidParams, Message: fmt.Sprintf("transaction %d: %v", i, err)}
		}
		from, err := signer.Sender(tx)
		if err != nil {
			return nil, fmt.Errorf("transaction %d: %w", i, err)
		}
		st.BeginTx(tx.Hash(), i)
		res, err := evm.ApplyMessage(vm, evm.TransactionToMessage(tx, from), &gp)
		if err != nil {
			return nil, fmt.Errorf("%w: address %s", err, from)
		}
		if fork >= forks.Byzantium {
			st.Finalise(true)
		}
		gasUsed += res.UsedGas
		blobGas += tx.BlobGas()
		if tip, err := tx.EffectiveGasTip(h.BaseFee); err == nil {
			value.Add(value, new(uint256.Int).Mul(tip, uint256.NewInt(res.UsedGas)))
		}
		rc := &types.Receipt{Type: tx.Type(), CumulativeGasUsed: gasUsed}
		if fork < forks.Byzantium {
			r := st.IntermediateRoot(deleteEmpty)
			rc.PostState = r[:]
		} else if !res.Failed() {
			rc.Status = types.ReceiptStatusSuccessful
		}
		rc.Logs = append([]*types.Log(nil), st.Logs()...)
		rc.Bloom = types.LogsBloom(rc.Logs)
		logs = append(logs, rc.Logs...)
		receipts = append(receipts, rc)
		txs = append(txs, tx)
	}
	h.GasUsed = gasUsed
	if h.BlobGasUsed != nil {
		*h.BlobGasUsed = blobGas
	}
	requests := [][]byte{}
	if fork >= forks.Prague {
		sim := &simulator{cfg: cfg, st: st}
		reqs, err := sim.requestList(vm, logs, deleteEmpty)
		if err != nil {
			return nil, err
		}
		for _, r := range reqs {
			if len(r) > 1 {
				requests = append(requests, r)
			}
		}
		rh := requestsHash(reqs)
		h.RequestsHash = &rh
	}
	body := types.Body{Transactions: txs}
	if fork >= forks.Shanghai {
		body.Withdrawals = creditWithdrawals(st, attrs.Withdrawals)
		wr := types.DeriveWithdrawalsRoot(body.Withdrawals, trie.NewStackTrie())
		h.WithdrawalsHash = &wr
	}
	h.Root = st.IntermediateRoot(deleteEmpty)
	h.TxHash = types.DeriveTxRoot(txs, trie.NewStackTrie())
	h.ReceiptHash = types.DeriveReceiptRoot(receipts, trie.NewStackTrie())
	h.Bloom = types.CreateBloom(receipts)
	blk := types.NewBlock(h, &body)
	return payloadEnvelope(blk, value, requests), nil
}

// towardGasLimit moves a parent's gas limit toward desired by at most the
// 1/1024 step the protocol allows.
func towardGasLimit(parent, desired uint64) uint64 {
	delta := parent/1024 - 1
	switch {
	case desired > parent:
		return min(desired, parent+delta)
	case desired < parent:
		return max(desired, parent-delta, 5000)
	}
	return parent
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
