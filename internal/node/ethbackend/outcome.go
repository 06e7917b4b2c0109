package ethbackend

import (
	"context"
	"errors"
	"fmt"
	"math/big"

	"github.com/chaind/chaind/evm"
	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

var (
	_ backend.CallOutcomes    = (*Backend)(nil)
	_ backend.TotalDifficulty = (*Backend)(nil)
)

// CallOutcome runs a call like Call but reports a failure inside the EVM
// as an outcome with status 0 and the gas it used.
func (b *Backend) CallOutcome(ctx context.Context, req *backend.CallRequest) (*backend.CallOutcome, error) {
	args, env := &req.Args, newCallEnv(req)
	msg, err := message(args, b.callGas(args, env))
	if err != nil {
		return nil, err
	}
	res, err := b.execute(env, msg, nil)
	if err != nil {
		return nil, err
	}
	out := &backend.CallOutcome{GasUsed: res.UsedGas, Status: 1}
	switch {
	case errors.Is(res.Err, evm.ErrExecutionReverted):
		out.Status, out.Data = 0, res.ReturnData
	case res.Err != nil:
		out.Status = 0
	default:
		out.Data = res.ReturnData
	}
	return out, nil
}

// TotalDifficulty sums the difficulties from genesis to the block. After
// the merge every block adds 0, so the walk back stops at the last
// proof-of-work block, whose total is remembered; on chains that were
// proof of stake from the start that is the genesis block itself.
func (b *Backend) TotalDifficulty(h types.Hash) (*uint256.Int, error) {
	if c := b.chain.Config; c.IsMerged(0) && (c.TerminalTotalDifficulty == nil || (*big.Int)(c.TerminalTotalDifficulty).Sign() == 0) {
		// Proof of stake from genesis: header validation keeps every
		// later block at difficulty 0.
		if _, err := b.chain.DB().Block(h); err != nil {
			return nil, fmt.Errorf("total difficulty of %s: %w", h, err)
		}
		return new(uint256.Int).Set(&b.chain.Genesis().HeaderRef().Difficulty), nil
	}
	b.tdMu.Lock()
	defer b.tdMu.Unlock()
	if b.tdMemo == nil {
		b.tdMemo = map[types.Hash]*uint256.Int{}
	}
	var path []*types.Header // blocks whose total is not known yet, newest first
	total := new(uint256.Int)
	for {
		if td, ok := b.tdMemo[h]; ok {
			total.Set(td)
			break
		}
		blk, err := b.chain.DB().Block(h)
		if err != nil {
			return nil, fmt.Errorf("total difficulty of %s: %w", h, err)
		}
		hdr := blk.HeaderRef()
		if hdr.Number == 0 {
			total.Set(&hdr.Difficulty)
			b.tdMemo[h] = new(uint256.Int).Set(total)
			break
		}
		path = append(path, hdr)
		h = hdr.ParentHash
	}
	for i := len(path) - 1; i >= 0; i-- {
		hdr := path[i]
		total.Add(total, &hdr.Difficulty)
		// Only proof-of-work blocks are remembered one by one; a run of
		// proof-of-stake blocks shares its total, so memoising every
		// tenth one bounds both the walk and the memory.
		if !hdr.Difficulty.IsZero() || hdr.Number%tdMemoStride == 0 || i == 0 {
			b.tdMemo[hdr.Hash()] = new(uint256.Int).Set(total)
		}
	}
	return total, nil
}

// tdMemoStride is how far apart TotalDifficulty remembers zero-difficulty
// blocks.
const tdMemoStride = 64
