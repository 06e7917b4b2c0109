package fork

import (
	"context"
	"errors"
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
// debug_getRawReceipts methods, or else eth_getBlockByNumber with
// transactions and eth_getBlockReceipts.
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
	err := c.batch(ctx, []call{
		{method: "debug_getRawBlock", params: []any{h}, out: &raw},
		{method: "debug_getRawReceipts", params: []any{h}, out: &rawRs},
		{method: "eth_chainId", out: &id},
	})
	var rpcErr *RPCError
	if errors.As(err, &rpcErr) {
		// Public endpoints often serve no debug methods.
		return c.fetchContentsJSON(ctx)
	}
	if err != nil {
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

// jsonBlock is a block as eth_getBlockByNumber shows it with its
// transactions.
type jsonBlock struct {
	rpcHeader
	Transactions []*types.Transaction `json:"transactions"`
	Uncles       []types.Hash         `json:"uncles"`
	Withdrawals  []struct {
		Index     types.HexUint64 `json:"index"`
		Validator types.HexUint64 `json:"validatorIndex"`
		Address   types.Address   `json:"address"`
		Amount    types.HexUint64 `json:"amount"`
	} `json:"withdrawals"`
}

// jsonReceipt holds the consensus fields of a receipt as
// eth_getBlockReceipts shows it.
type jsonReceipt struct {
	TxHash            types.Hash      `json:"transactionHash"`
	Type              types.HexUint64 `json:"type"`
	Root              types.HexBytes  `json:"root"`
	Status            types.HexUint64 `json:"status"`
	CumulativeGasUsed types.HexUint64 `json:"cumulativeGasUsed"`
	Logs              []struct {
		Address types.Address  `json:"address"`
		Topics  []types.Hash   `json:"topics"`
		Data    types.HexBytes `json:"data"`
	} `json:"logs"`
}

// fetchContentsJSON reads the fork block and its receipts through the
// standard methods and rebuilds their consensus forms, checked against
// the block hash and the transactions' hashes.
func (c *Client) fetchContentsJSON(ctx context.Context) (*types.Block, types.Receipts, uint64, error) {
	n := c.Block.Number
	var jb *jsonBlock
	var jrs []jsonReceipt
	var id types.HexUint64
	if err := c.batch(ctx, []call{
		{method: "eth_getBlockByNumber", params: []any{hexNum(n), true}, out: &jb},
		{method: "eth_getBlockReceipts", params: []any{hexNum(n)}, out: &jrs},
		{method: "eth_chainId", out: &id},
	}); err != nil {
		return nil, nil, 0, err
	}
	if jb == nil || jb.Hash != c.Block.Hash {
		return nil, nil, 0, fmt.Errorf("fork upstream %s: block %d is no longer %s", c.url, n, c.Block.Hash)
	}
	hdr := jb.header()
	if hdr.Hash() != c.Block.Hash {
		return nil, nil, 0, fmt.Errorf("fork upstream %s: the fields of block %d do not hash to %s", c.url, n, c.Block.Hash)
	}
	if len(jb.Uncles) > 0 {
		return nil, nil, 0, fmt.Errorf("fork upstream %s: block %d has uncles, which eth_getBlockByNumber does not show whole", c.url, n)
	}
	body := &types.Body{Transactions: jb.Transactions}
	if hdr.WithdrawalsHash != nil {
		body.Withdrawals = types.Withdrawals{}
		for _, w := range jb.Withdrawals {
			body.Withdrawals = append(body.Withdrawals, &types.Withdrawal{Index: uint64(w.Index), Validator: uint64(w.Validator), Address: w.Address, Amount: uint64(w.Amount)})
		}
	}
	if len(jrs) != len(jb.Transactions) {
		return nil, nil, 0, fmt.Errorf("fork upstream %s: block %d has %d transactions and %d receipts", c.url, n, len(jb.Transactions), len(jrs))
	}
	rs := make(types.Receipts, len(jrs))
	for i, jr := range jrs {
		if tx := jb.Transactions[i]; tx == nil || tx.Hash() != jr.TxHash {
			return nil, nil, 0, fmt.Errorf("fork upstream %s: block %d transaction %d does not decode to %s", c.url, n, i, jr.TxHash)
		}
		r := &types.Receipt{Type: uint8(jr.Type), PostState: jr.Root, Status: uint64(jr.Status), CumulativeGasUsed: uint64(jr.CumulativeGasUsed)}
		for _, l := range jr.Logs {
			r.Logs = append(r.Logs, &types.Log{Address: l.Address, Topics: l.Topics, Data: l.Data})
		}
		r.Bloom = types.LogsBloom(r.Logs)
		rs[i] = r
	}
	return types.NewBlock(hdr, body), rs, uint64(id), nil
}
