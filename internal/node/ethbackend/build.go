package ethbackend

import (
	"context"
	"errors"
	"fmt"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// builderGasLimit is the gas limit testing_buildBlockV1 steers toward, as
// far as the 1/1024 rule allows per block (go-ethereum's miner default).
const builderGasLimit = 60_000_000

// BuildBlock is testing_buildBlockV1: it builds (but does not import) a
// block on the given parent from exactly the given transactions, failing
// when one of them does not apply, or with req.FromPool from the pool's
// pending transactions in price order, skipping those that do not apply.
func (b *Backend) BuildBlock(_ context.Context, req *backend.BuildRequest) (*backend.BuiltBlock, error) {
	parentHash, raws, extra := req.Parent, req.Transactions, req.Extra
	parentBlk, err := b.BlockByHash(parentHash)
	if errors.Is(err, backend.ErrNotFound) {
		return nil, fmt.Errorf("parent block %s not found", parentHash)
	}
	if err != nil {
		return nil, err
	}
	parent := parentBlk.HeaderRef()
	if req.Timestamp <= parent.Time {
		return nil, &backend.ParamError{Arg: 1, Msg: fmt.Sprintf("timestamp %d not after parent's %d", req.Timestamp, parent.Time)}
	}
	cfg := b.chain.Config
	h, err := cfg.NextHeader(parent, chain.Attributes{
		Coinbase: req.FeeRecipient, Time: req.Timestamp, GasLimit: builderGasLimit,
		Extra: extra, Random: req.PrevRandao, ParentBeaconRoot: req.ParentBeaconRoot,
	})
	if err != nil {
		return nil, err
	}
	st, err := b.view.State(parent)
	if err != nil {
		return nil, err
	}
	x, err := b.chain.Rules().Open(h, st, b.chain.GetHash, nil)
	if err != nil {
		return nil, err
	}
	if req.FromPool {
		if b.pool != nil {
			x.Fill(b.pool.Ordered(h.BaseFee, 0))
		}
	} else if err := applyAll(x, raws); err != nil {
		return nil, err
	}
	// The block pays its fee recipient each transaction's tip for the gas
	// it used.
	value, prev := new(uint256.Int), uint64(0)
	for i, tx := range x.Txs {
		used := x.Receipts[i].CumulativeGasUsed - prev
		prev = x.Receipts[i].CumulativeGasUsed
		if tip, err := tx.EffectiveGasTip(h.BaseFee); err == nil {
			value.Add(value, new(uint256.Int).Mul(tip, uint256.NewInt(used)))
		}
	}
	res, err := x.Finish(toWithdrawals(req.Withdrawals), nil)
	if err != nil {
		return nil, err
	}
	requests := [][]byte{}
	for _, r := range res.Requests {
		if len(r) > 1 {
			requests = append(requests, r)
		}
	}
	return &backend.BuiltBlock{Block: x.Seal(res), Value: value, Requests: requests}, nil
}

// applyAll applies the binary transactions raws in order, failing at the
// first that does not decode or apply.
func applyAll(x *chain.Exec, raws [][]byte) error {
	for i, raw := range raws {
		tx := new(types.Transaction)
		if err := tx.UnmarshalBinary(raw); err != nil {
			return &backend.ParamError{Arg: 2, Msg: fmt.Sprintf("transaction %d: %v", i, err)}
		}
		from, err := x.Signer.Sender(tx)
		if err != nil {
			return fmt.Errorf("transaction %d: %w", i, err)
		}
		if _, _, err := x.Apply(tx, evm.TransactionToMessage(tx, from)); err != nil {
			return fmt.Errorf("%w: address %s", err, from)
		}
	}
	return nil
}

// toWithdrawals turns the withdrawals of a request into block body entries.
func toWithdrawals(ws []types.Withdrawal) []*types.Withdrawal {
	out := make([]*types.Withdrawal, len(ws))
	for i := range ws {
		w := ws[i]
		out[i] = &w
	}
	return out
}
