package backend

import (
	"context"

	"github.com/chaind/chaind/internal/types"
)

// TxPool is the node's pool of transactions waiting for a block.
type TxPool interface {
	// SendTransaction validates tx against the head state and adds it;
	// the error says why not in go-ethereum's wording.
	SendTransaction(ctx context.Context, tx *types.Transaction) error
	// PoolTransaction returns a pooled transaction and its sender.
	PoolTransaction(h types.Hash) (*types.Transaction, types.Address, bool)
	// PendingNonce is the next nonce of addr counting pooled transactions;
	// an error if the head state cannot be read.
	PendingNonce(addr types.Address) (uint64, error)
	// PoolContent returns each sender's pending (executable) and queued
	// (waiting for a nonce gap) transactions in nonce order.
	PoolContent() (pending, queued map[types.Address][]*types.Transaction)
}

// PendingFeed delivers transactions as they enter the pool.
type PendingFeed interface {
	// SubscribePending returns a channel of new pool transactions holding
	// up to buffer undelivered ones, and the function that ends the
	// subscription.
	SubscribePending(buffer int) (<-chan *types.Transaction, func())
}
