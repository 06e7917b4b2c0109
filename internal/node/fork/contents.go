package fork

import (
	"context"
	"fmt"
	"sync"

	"github.com/chaind/chaind/internal/types"
)

// contents is the fork block's body and receipts, kept once fetched.
type contents struct {
	mu  sync.Mutex
	blk *types.Block
	rs  types.Receipts
}

// BlockContents returns the fork block whole (the upstream's header and
// body) and its receipts (consensus fields only), read from the upstream
// on first use and kept once read: a fork whose genesis is the fork block stores
// its header only, yet every interface must show the block the upstream
// made. It needs the upstream's header (Block.Header) and its
// debug_getRawBlock and debug_getRawReceipts methods.
func (c *Client) BlockContents(ctx context.Context) (*types.Block, types.Receipts, error) {
	k := &c.contents
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.blk == nil {
		// A failure is not kept: the next read asks again.
		blk, rs, err := c.fetchContents(ctx)
		if err != nil {
			return nil, nil, err
		}
		k.blk, k.rs = blk, rs
	}
	return k.blk, k.rs, nil
}

func (c *Client) fetchContents(ctx context.Context) (*types.Block, types.Receipts, error) {
	if c.Block.Header == nil {
		return nil, nil, fmt.Errorf("fork upstream %s: no header of block %d", c.url, c.Block.Number)
	}
	var raw types.HexBytes
	var rawRs []types.HexBytes
	h := c.Block.Hash
	if err := c.batch(ctx, []call{
		{method: "debug_getRawBlock", params: []any{h}, out: &raw},
		{method: "debug_getRawReceipts", params: []any{h}, out: &rawRs},
	}); err != nil {
		return nil, nil, err
	}
	blk, err := types.DecodeBlock(raw)
	if err != nil {
		return nil, nil, fmt.Errorf("fork upstream %s: block %d: %w", c.url, c.Block.Number, err)
	}
	if blk.Hash() != h {
		return nil, nil, fmt.Errorf("fork upstream %s: block %d answered is %s, want %s", c.url, c.Block.Number, blk.Hash(), h)
	}
	if len(rawRs) != len(blk.Transactions()) {
		return nil, nil, fmt.Errorf("fork upstream %s: block %d has %d transactions and %d receipts", c.url, c.Block.Number, len(blk.Transactions()), len(rawRs))
	}
	rs := make(types.Receipts, len(rawRs))
	for i, enc := range rawRs {
		rs[i] = new(types.Receipt)
		if err := rs[i].UnmarshalBinary(enc); err != nil {
			return nil, nil, fmt.Errorf("fork upstream %s: block %d receipt %d: %w", c.url, c.Block.Number, i, err)
		}
	}
	return blk, rs, nil
}
