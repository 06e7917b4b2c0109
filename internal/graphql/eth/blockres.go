package eth

import (
	"context"
	"fmt"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/graphql"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

func (s *Service) blockResolvers() map[string]graphql.Resolver {
	return map[string]graphql.Resolver{
		"number": get(func(b *blockObj) any { return b.hdr.Number }),
		"hash":   get(func(b *blockObj) any { return b.hdr.Hash() }),
		"parent": on(func(ctx context.Context, b *blockObj, _ map[string]any) (any, error) {
			if b.hdr.Number == 0 {
				return nil, nil
			}
			return s.blockByHash(ctx, b.hdr.ParentHash)
		}),
		"nonce":            get(func(b *blockObj) any { return b.hdr.Nonce[:] }),
		"transactionsRoot": get(func(b *blockObj) any { return b.hdr.TxHash }),
		"transactionCount": get(func(b *blockObj) any {
			if b.blk == nil {
				return nil
			}
			return uint64(len(b.blk.Transactions()))
		}),
		"stateRoot":    get(func(b *blockObj) any { return b.hdr.Root }),
		"receiptsRoot": get(func(b *blockObj) any { return b.hdr.ReceiptHash }),
		"miner": on(func(_ context.Context, b *blockObj, args map[string]any) (any, error) {
			return s.account(b.hdr.Coinbase, args["block"], b.hdr)
		}),
		"extraData": get(func(b *blockObj) any { return b.hdr.Extra }),
		"gasLimit":  get(func(b *blockObj) any { return b.hdr.GasLimit }),
		"gasUsed":   get(func(b *blockObj) any { return b.hdr.GasUsed }),
		"baseFeePerGas": get(func(b *blockObj) any {
			if b.hdr.BaseFee == nil {
				return nil
			}
			return b.hdr.BaseFee
		}),
		"nextBaseFeePerGas": get(func(b *blockObj) any { return s.b.NextBaseFee(b.hdr) }),
		"timestamp":         get(func(b *blockObj) any { return b.hdr.Time }),
		"logsBloom":         get(func(b *blockObj) any { return b.hdr.Bloom[:] }),
		"mixHash":           get(func(b *blockObj) any { return b.hdr.MixDigest }),
		"difficulty":        get(func(b *blockObj) any { return new(uint256.Int).Set(&b.hdr.Difficulty) }),
		"totalDifficulty": on(func(_ context.Context, b *blockObj, _ map[string]any) (any, error) {
			td, ok := s.b.TotalDifficulty(b.hdr.Hash())
			if !ok {
				return nil, fmt.Errorf("total difficulty of %s: %w", b.hdr.Hash(), backend.ErrNotFound)
			}
			return td, nil
		}),
		"ommerCount": get(func(b *blockObj) any {
			if b.blk == nil {
				return nil
			}
			return uint64(len(b.blk.Uncles()))
		}),
		"ommers": get(func(b *blockObj) any {
			if b.blk == nil {
				return nil
			}
			out := []*blockObj{}
			for _, u := range b.blk.Uncles() {
				out = append(out, &blockObj{s: s, hdr: u})
			}
			return out
		}),
		"ommerAt": on(func(_ context.Context, b *blockObj, args map[string]any) (any, error) {
			i := args["index"].(uint64)
			if b.blk == nil || i >= uint64(len(b.blk.Uncles())) {
				return nil, nil
			}
			return &blockObj{s: s, hdr: b.blk.Uncles()[i]}, nil
		}),
		"ommerHash": get(func(b *blockObj) any { return b.hdr.UncleHash }),
		"transactions": get(func(b *blockObj) any {
			if b.blk == nil {
				return nil
			}
			out := make([]*txObj, len(b.blk.Transactions()))
			for i := range out {
				out[i] = b.tx(i)
			}
			return out
		}),
		"transactionAt": on(func(_ context.Context, b *blockObj, args map[string]any) (any, error) {
			i := args["index"].(uint64)
			if b.blk == nil || i >= uint64(len(b.blk.Transactions())) {
				return nil, nil
			}
			return b.tx(int(i)), nil
		}),
		"logs": on(func(ctx context.Context, b *blockObj, args map[string]any) (any, error) {
			if b.blk == nil {
				return []*logObj{}, nil
			}
			m := backend.NewLogMatcher(filterOf(args["filter"].(map[string]any)))
			logs, err := backend.BlockLogs(s.b, b.blk, m, nil)
			if err != nil {
				return nil, err
			}
			out := make([]*logObj, len(logs))
			for i, l := range logs {
				out[i] = &logObj{s: s, log: l, tx: b.tx(int(l.TxIndex))}
			}
			return out, nil
		}),
		"account": on(func(_ context.Context, b *blockObj, args map[string]any) (any, error) {
			return &accountObj{s: s, addr: args["address"].(types.Address), hdr: b.hdr}, nil
		}),
		"call": on(func(ctx context.Context, b *blockObj, args map[string]any) (any, error) {
			if b.blk == nil {
				return nil, fmt.Errorf("cannot call on an ommer")
			}
			return s.call(ctx, b.blk, args["data"])
		}),
		"estimateGas": on(func(ctx context.Context, b *blockObj, args map[string]any) (any, error) {
			if b.blk == nil {
				return nil, fmt.Errorf("cannot estimate gas on an ommer")
			}
			return s.estimateGas(ctx, b.blk, args["data"])
		}),
		"rawHeader": get(func(b *blockObj) any { return b.hdr.EncodeRLP() }),
		"raw": on(func(_ context.Context, b *blockObj, _ map[string]any) (any, error) {
			if b.blk == nil {
				return nil, fmt.Errorf("the body of an ommer is not known")
			}
			return b.blk.EncodeRLP(), nil
		}),
		"withdrawalsRoot": get(func(b *blockObj) any { return optHash(b.hdr.WithdrawalsHash) }),
		"withdrawals": get(func(b *blockObj) any {
			if b.hdr.WithdrawalsHash == nil || b.blk == nil {
				return nil
			}
			out := []types.Withdrawal{}
			for _, w := range b.blk.Withdrawals() {
				out = append(out, *w)
			}
			return out
		}),
		"blobGasUsed":   get(func(b *blockObj) any { return optU64(b.hdr.BlobGasUsed) }),
		"excessBlobGas": get(func(b *blockObj) any { return optU64(b.hdr.ExcessBlobGas) }),
	}
}

func (s *Service) txResolvers() map[string]graphql.Resolver {
	withReceipt := func(f func(t *txObj, r *types.Receipt) any) graphql.Resolver {
		return on(func(_ context.Context, t *txObj, _ map[string]any) (any, error) {
			r, err := t.receipt()
			if err != nil || r == nil {
				return nil, err
			}
			return f(t, r), nil
		})
	}
	baseFee := func(t *txObj) *uint256.Int {
		if t.block == nil {
			return nil
		}
		return t.block.hdr.BaseFee
	}
	return map[string]graphql.Resolver{
		"hash":  get(func(t *txObj) any { return t.tx.Hash() }),
		"nonce": get(func(t *txObj) any { return t.tx.Nonce() }),
		"index": get(func(t *txObj) any {
			if t.block == nil {
				return nil
			}
			return uint64(t.index)
		}),
		"from": on(func(_ context.Context, t *txObj, args map[string]any) (any, error) {
			from, err := t.sender()
			if err != nil {
				return nil, err
			}
			return s.account(from, args["block"], t.stateHeader())
		}),
		"to": on(func(_ context.Context, t *txObj, args map[string]any) (any, error) {
			to := t.tx.To()
			if to == nil {
				return nil, nil
			}
			return s.account(*to, args["block"], t.stateHeader())
		}),
		"value": get(func(t *txObj) any { return t.tx.Value() }),
		"gasPrice": get(func(t *txObj) any {
			if bf := baseFee(t); bf != nil && t.tx.Type() >= types.DynamicFeeTxType {
				return t.tx.EffectiveGasPrice(bf)
			}
			return t.tx.GasPrice()
		}),
		"maxFeePerGas": get(func(t *txObj) any {
			if t.tx.Type() < types.DynamicFeeTxType {
				return nil
			}
			return t.tx.GasFeeCap()
		}),
		"maxPriorityFeePerGas": get(func(t *txObj) any {
			if t.tx.Type() < types.DynamicFeeTxType {
				return nil
			}
			return t.tx.GasTipCap()
		}),
		"maxFeePerBlobGas": get(func(t *txObj) any {
			if t.tx.Type() != types.BlobTxType {
				return nil
			}
			return t.tx.BlobGasFeeCap()
		}),
		"effectiveTip": on(func(_ context.Context, t *txObj, _ map[string]any) (any, error) {
			if t.block == nil {
				return nil, nil
			}
			bf := baseFee(t)
			if bf == nil {
				return t.tx.GasPrice(), nil
			}
			tip, err := t.tx.EffectiveGasTip(bf)
			if err != nil {
				return nil, err
			}
			return tip, nil
		}),
		"gas":       get(func(t *txObj) any { return t.tx.Gas() }),
		"inputData": get(func(t *txObj) any { return t.tx.Data() }),
		"block": get(func(t *txObj) any {
			if t.block == nil {
				return nil
			}
			return t.block
		}),
		"status": withReceipt(func(_ *txObj, r *types.Receipt) any {
			if len(r.PostState) > 0 {
				return nil // before Byzantium the receipt holds a state root instead
			}
			return r.Status
		}),
		"gasUsed":           withReceipt(func(_ *txObj, r *types.Receipt) any { return r.GasUsed }),
		"cumulativeGasUsed": withReceipt(func(_ *txObj, r *types.Receipt) any { return r.CumulativeGasUsed }),
		"effectiveGasPrice": withReceipt(func(_ *txObj, r *types.Receipt) any { return r.EffectiveGasPrice }),
		"blobGasUsed": withReceipt(func(t *txObj, r *types.Receipt) any {
			if t.tx.Type() != types.BlobTxType {
				return nil
			}
			return r.BlobGasUsed
		}),
		"blobGasPrice": withReceipt(func(t *txObj, r *types.Receipt) any {
			if t.tx.Type() != types.BlobTxType {
				return nil
			}
			return r.BlobGasPrice
		}),
		"createdContract": on(func(_ context.Context, t *txObj, args map[string]any) (any, error) {
			r, err := t.receipt()
			if err != nil || r == nil || r.ContractAddress == nil {
				return nil, err
			}
			return s.account(*r.ContractAddress, args["block"], t.block.hdr)
		}),
		"logs": withReceipt(func(t *txObj, r *types.Receipt) any {
			out := make([]*logObj, len(r.Logs))
			for i, l := range r.Logs {
				out[i] = &logObj{s: s, log: l, tx: t}
			}
			return out
		}),
		"r": get(func(t *txObj) any { _, r, _ := t.tx.RawSignatureValues(); return r }),
		"s": get(func(t *txObj) any { _, _, s := t.tx.RawSignatureValues(); return s }),
		"v": get(func(t *txObj) any { v, _, _ := t.tx.RawSignatureValues(); return v }),
		"yParity": get(func(t *txObj) any {
			if t.tx.Type() == types.LegacyTxType {
				return nil
			}
			v, _, _ := t.tx.RawSignatureValues()
			return v
		}),
		"type": get(func(t *txObj) any { return uint64(t.tx.Type()) }),
		"accessList": get(func(t *txObj) any {
			if t.tx.Type() == types.LegacyTxType {
				return nil
			}
			return []types.AccessTuple(t.tx.AccessList())
		}),
		"raw": on(func(_ context.Context, t *txObj, _ map[string]any) (any, error) { return t.tx.MarshalBinary() }),
		"rawReceipt": on(func(_ context.Context, t *txObj, _ map[string]any) (any, error) {
			r, err := t.receipt()
			if err != nil {
				return nil, err
			}
			if r == nil {
				return []byte{}, nil
			}
			return r.MarshalBinary()
		}),
		"blobVersionedHashes": get(func(t *txObj) any {
			if t.tx.Type() != types.BlobTxType {
				return nil
			}
			return t.tx.BlobHashes()
		}),
	}
}

// stateHeader is the block whose state the transaction's accounts are
// read on: its own block, or the head while pending.
func (t *txObj) stateHeader() *types.Header {
	if t.block != nil {
		return t.block.hdr
	}
	return t.s.b.Head().HeaderRef()
}
