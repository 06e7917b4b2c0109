package ethapi

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
	"github.com/holiman/uint256"
)

const feeHistoryMaxBlocks = 1024

// suggestTip is the node's one priority fee suggestion.
func (api *ethAPI) suggestTip() *uint256.Int { return backend.SuggestTip(api.b) }

func (api *ethAPI) gasPrice(context.Context, rpc.Params) (any, error) {
	price := api.suggestTip()
	if bf := api.b.Head().BaseFee(); bf != nil {
		price.Add(price, bf)
	}
	return (*types.HexU256)(price), nil
}

func (api *ethAPI) maxPriorityFee(context.Context, rpc.Params) (any, error) {
	return (*types.HexU256)(api.suggestTip()), nil
}

// baseFee is the base fee of the next block.
func (api *ethAPI) baseFee(context.Context, rpc.Params) (any, error) {
	fee := api.b.NextBaseFee(api.b.Head().HeaderRef())
	if fee == nil {
		return nil, errors.New("base fee is not available before London")
	}
	return (*types.HexU256)(fee), nil
}

func (api *ethAPI) blobBaseFee(context.Context, rpc.Params) (any, error) {
	fee := api.b.BlobBaseFee(api.b.Head().HeaderRef())
	if fee == nil {
		return nil, errors.New("blob base fee is not available before Cancun")
	}
	return (*types.HexU256)(fee), nil
}

type feeHistory struct {
	OldestBlock      types.HexUint64    `json:"oldestBlock"`
	Reward           [][]*types.HexU256 `json:"reward,omitempty"`
	BaseFee          []*types.HexU256   `json:"baseFeePerGas,omitempty"`
	GasUsedRatio     []float64          `json:"gasUsedRatio"`
	BlobBaseFee      []*types.HexU256   `json:"baseFeePerBlobGas,omitempty"`
	BlobGasUsedRatio []float64          `json:"blobGasUsedRatio,omitempty"`
}

func (api *ethAPI) feeHistory(_ context.Context, p rpc.Params) (any, error) {
	var count Quantity
	if err := p.Decode(0, &count); err != nil {
		var n uint64 // some clients send a plain number
		if p.Decode(0, &n) != nil {
			return nil, err
		}
		count = Quantity(n)
	}
	var ref BlockRef
	if err := p.Decode(1, &ref); err != nil {
		return nil, err
	}
	var percentiles []float64
	if _, err := p.Optional(2, &percentiles); err != nil {
		return nil, err
	}
	for i, q := range percentiles {
		if q < 0 || q > 100 {
			return nil, rpc.InvalidParams(2, errors.New("invalid reward percentile"))
		}
		if i > 0 && q < percentiles[i-1] {
			return nil, rpc.InvalidParams(2, errors.New("reward percentiles not in ascending order"))
		}
	}
	// The range ends at a block the node has: one past the head is
	// refused as eth_getLogs refuses it, not answered as "not found".
	if head := api.b.Head().Number(); ref.Hash == nil && ref.Tag == "" && ref.Number > head {
		return nil, rpc.InvalidParams(1, fmt.Errorf("request beyond head block: requested %d, head %d", ref.Number, head))
	}
	newest, err := resolveState(api.b, ref)
	if err != nil {
		return nil, err
	}
	if count == 0 {
		return feeHistory{OldestBlock: 0, GasUsedRatio: []float64{}}, nil
	}
	if count > feeHistoryMaxBlocks {
		count = feeHistoryMaxBlocks
	}
	if uint64(count) > newest.Number()+1 {
		count = Quantity(newest.Number() + 1)
	}
	oldest := newest.Number() + 1 - uint64(count)
	out := feeHistory{OldestBlock: types.HexUint64(oldest)}
	for n := oldest; n <= newest.Number(); n++ {
		blk, err := api.b.BlockByNumber(n)
		if err != nil {
			return nil, err
		}
		// Every array holds one entry per block of the range (plus the
		// next block for the fee arrays), so an index means the same block
		// in each: a block before London or Cancun has zeros, as the
		// specification says, rather than no entry.
		h := blk.HeaderRef()
		out.BaseFee = append(out.BaseFee, hexOrZero(h.BaseFee))
		out.GasUsedRatio = append(out.GasUsedRatio, float64(h.GasUsed)/float64(h.GasLimit))
		ratio := 0.0
		if h.ExcessBlobGas != nil && h.BlobGasUsed != nil {
			if bc := api.b.BlobParams(h.Number, h.Time); bc.Max > 0 {
				ratio = float64(*h.BlobGasUsed) / float64(bc.Max*blobGasPerBlob)
			}
		}
		out.BlobBaseFee = append(out.BlobBaseFee, hexOrZero(api.b.BlobBaseFee(h)))
		out.BlobGasUsedRatio = append(out.BlobGasUsedRatio, ratio)
		if len(percentiles) > 0 {
			rw, err := api.rewards(blk, percentiles)
			if err != nil {
				return nil, err
			}
			out.Reward = append(out.Reward, rw)
		}
	}
	// The fee fields also give the next block's values.
	nh := newest.HeaderRef()
	out.BaseFee = append(out.BaseFee, hexOrZero(api.b.NextBaseFee(nh)))
	out.BlobBaseFee = append(out.BlobBaseFee, hexOrZero(api.b.NextBlobBaseFee(nh)))
	return out, nil
}

const blobGasPerBlob = 1 << 17

func hexOrZero(x *uint256.Int) *types.HexU256 {
	if x == nil {
		return (*types.HexU256)(new(uint256.Int))
	}
	return (*types.HexU256)(new(uint256.Int).Set(x))
}

// rewards returns the tips at the given percentiles of a block's gas, each
// transaction weighted by the gas it used.
func (api *ethAPI) rewards(blk *types.Block, percentiles []float64) ([]*types.HexU256, error) {
	out := make([]*types.HexU256, len(percentiles))
	txs := blk.Transactions()
	if len(txs) == 0 {
		for i := range out {
			out[i] = (*types.HexU256)(new(uint256.Int))
		}
		return out, nil
	}
	rs, err := api.b.Receipts(blk)
	if err != nil {
		return nil, err
	}
	type sample struct {
		tip *uint256.Int
		gas uint64
	}
	samples := make([]sample, len(txs))
	for i, tx := range txs {
		tip, err := tx.EffectiveGasTip(blk.BaseFee())
		if err != nil {
			tip = new(uint256.Int)
		}
		samples[i] = sample{tip, rs[i].GasUsed}
	}
	sort.SliceStable(samples, func(i, j int) bool { return samples[i].tip.Lt(samples[j].tip) })
	var sum uint64
	idx := 0
	sum = samples[0].gas
	for i, q := range percentiles {
		threshold := uint64(float64(blk.GasUsed()) * q / 100)
		for sum < threshold && idx < len(samples)-1 {
			idx++
			sum += samples[idx].gas
		}
		out[i] = (*types.HexU256)(new(uint256.Int).Set(samples[idx].tip))
	}
	return out, nil
}
