package ethapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rpc"
)

// maxReorgDepth bounds one anvil_reorg: each replaced block is made anew.
const maxReorgDepth = 10_000

// reorg is anvil_reorg: [depth, [[tx, block], ...]]. The chain's last
// depth blocks are replaced by as many new ones; each pair puts a
// transaction, raw (signed bytes) or a request the node signs, into new
// block `block` (0 the first, at most depth-1). A request's nonce counts
// from its sender's nonce at the block the new ones build on, as anvil's
// does. It answers null; bad input gets anvil's errors (-32602).
func (h *devAPI) reorg(ctx context.Context, p rpc.Params) (any, error) {
	var depth devQuantity
	if err := p.Decode(0, &depth); err != nil {
		return nil, err
	}
	var pairs []json.RawMessage
	if _, err := p.Optional(1, &pairs); err != nil {
		return nil, err
	}
	head := h.b.Head()
	if uint64(depth) > head.Number() {
		return nil, rpc.Errorf(rpc.CodeInvalidParams, "Reorg depth must not exceed current chain height: current height %d, depth %d", head.Number(), depth)
	}
	if depth > maxReorgDepth {
		return nil, rpc.InvalidParams(0, fmt.Errorf("at most %d blocks per reorg", maxReorgDepth))
	}
	common, err := h.b.BlockByNumber(head.Number() - uint64(depth))
	if err != nil {
		return nil, err
	}
	st, err := h.b.StateAt(common.HeaderRef())
	if err != nil {
		return nil, err
	}
	txs := map[uint64][]*types.Transaction{}
	nonces := map[types.Address]uint64{}
	for i, raw := range pairs {
		var pair []json.RawMessage
		var at devQuantity
		if json.Unmarshal(raw, &pair) != nil || len(pair) != 2 || json.Unmarshal(pair[1], &at) != nil {
			return nil, rpc.InvalidParams(1, fmt.Errorf("pair %d: want [transaction, block]", i))
		}
		if at >= depth {
			return nil, rpc.Errorf(rpc.CodeInvalidParams, "Block number for reorg tx will exceed the reorged chain height. Block number %d must not exceed (depth-1) %d", at, int64(depth)-1)
		}
		tx, err := h.reorgTx(ctx, pair[0], st, nonces)
		var rerr *rpc.Error
		if errors.As(err, &rerr) {
			return nil, err
		}
		if err != nil {
			return nil, rpc.InvalidParams(1, fmt.Errorf("pair %d: %w", i, err))
		}
		txs[uint64(at)] = append(txs[uint64(at)], tx)
	}
	return nil, h.dev.Reorg(ctx, uint64(depth), txs)
}

// reorgTx is one transaction of a reorg: signed bytes as they are, or a
// request filled and signed by the node with the next nonce of its sender
// counted from st.
func (h *devAPI) reorgTx(ctx context.Context, data json.RawMessage, st backend.State, nonces map[types.Address]uint64) (*types.Transaction, error) {
	var raw types.HexBytes
	if json.Unmarshal(data, &raw) == nil {
		tx := new(types.Transaction)
		if err := tx.UnmarshalBinary(raw); err != nil {
			return nil, rpc.Errorf(rpc.CodeInvalidParams, "Failed to decode transaction: %v", err) // anvil's words
		}
		return tx, nil
	}
	var args CallArgs
	if err := json.Unmarshal(data, &args); err != nil {
		return nil, err
	}
	if args.From == nil {
		accounts := h.keys.Accounts()
		if len(accounts) == 0 {
			return nil, backend.ErrUnknownAccount
		}
		args.From = &accounts[0]
	}
	from := *args.From
	n, ok := nonces[from]
	if !ok {
		n = st.Nonce(from)
	}
	nonces[from] = n + 1
	nonce := types.HexUint64(n)
	args.Nonce = &nonce
	signer := &accountsAPI{b: h.b, keys: h.keys, eth: &ethAPI{b: h.b, opts: h.opts.withDefaults()}}
	tx, err := signer.fill(ctx, &args)
	if err != nil {
		return nil, err
	}
	return signer.signFilled(tx, from, true)
}
