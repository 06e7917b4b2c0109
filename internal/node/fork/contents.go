package fork

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/chaind/chaind/internal/types"
)

// contents is the fork block's body and receipts, kept once fetched.
type contents struct {
	mu      sync.Mutex
	blk     *types.Block
	rs      types.Receipts
	chainID uint64
	err     error     // the last failure
	failed  time.Time // when it happened
}

// contentsRetry is how long a failure to read the fork block is the
// answer before the upstream is asked again: the head is read on every
// request, and an unreachable upstream must not make each one wait.
const contentsRetry = 5 * time.Second

// BlockContents returns the fork block whole (the upstream's header and
// body), its receipts (consensus fields only) and the upstream's chain ID
// (which signed its transactions; a fork may have another), read from the
// upstream on first use and kept once read: a fork whose genesis is the
// fork block stores its header only, yet every interface must show the
// block the upstream made. It needs the upstream's debug_getRawBlock and
// debug_getRawReceipts methods.
func (c *Client) BlockContents(ctx context.Context) (*types.Block, types.Receipts, uint64, error) {
	k := &c.contents
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.blk == nil {
		if k.err != nil && time.Since(k.failed) < contentsRetry {
			return nil, nil, 0, k.err
		}
		blk, rs, id, err := c.fetchContents(ctx)
		if err != nil {
			k.err, k.failed = err, time.Now()
			return nil, nil, 0, err
		}
		k.blk, k.rs, k.chainID = blk, rs, id
	}
	return k.blk, k.rs, k.chainID, nil
}

func (c *Client) fetchContents(ctx context.Context) (*types.Block, types.Receipts, uint64, error) {
	var raw types.HexBytes
	var rawRs []types.HexBytes
	var id types.HexUint64
	h := c.Block.Hash
	if err := c.batch(ctx, []call{
		{method: "debug_getRawBlock", params: []any{h}, out: &raw},
		{method: "debug_getRawReceipts", params: []any{h}, out: &rawRs},
		{method: "eth_chainId", out: &id},
	}); err != nil {
		return nil, nil, 0, err
	}
	blk, err := types.DecodeBlock(raw)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("fork upstream %s: block %d: %w", c.url, c.Block.Number, err)
	}
	if blk.Hash() != h {
		return nil, nil, 0, fmt.Errorf("fork upstream %s: block %d answered is %s, want %s", c.url, c.Block.Number, blk.Hash(), h)
	}
	if len(rawRs) != len(blk.Transactions()) {
		return nil, nil, 0, fmt.Errorf("fork upstream %s: block %d has %d transactions and %d receipts", c.url, c.Block.Number, len(blk.Transactions()), len(rawRs))
	}
	rs := make(types.Receipts, len(rawRs))
	for i, enc := range rawRs {
		rs[i] = new(types.Receipt)
		if err := rs[i].UnmarshalBinary(enc); err != nil {
			return nil, nil, 0, fmt.Errorf("fork upstream %s: block %d receipt %d: %w", c.url, c.Block.Number, i, err)
		}
	}
	return blk, rs, uint64(id), nil
}
