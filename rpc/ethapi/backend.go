package ethapi

import (
	"context"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
)

// Backend is everything the Ethereum namespaces read or change: the
// canonical chain, world state, the transaction pool and node-held keys.
// The node implements it; tests implement it over a bare chain.
type Backend interface {
	Config() *chain.Config
	Head() *types.Block
	BlockByNumber(n uint64) (*types.Block, error) // chain.ErrNotFound when absent
	BlockByHash(h types.Hash) (*types.Block, error)
	// Receipts returns a block's receipts with every derived field set.
	Receipts(b *types.Block) (types.Receipts, error)
	TxLookup(h types.Hash) (blockHash types.Hash, index int, ok bool)
	StateAt(root types.Hash) (*state.StateDB, error)
	GetHash(n uint64) types.Hash

	// SendTransaction validates tx against the head state and adds it to
	// the pool; the error carries go-ethereum's wording.
	SendTransaction(ctx context.Context, tx *types.Transaction) error
	PoolTransaction(h types.Hash) (*types.Transaction, types.Address, bool)
	PendingNonce(addr types.Address) uint64
	Syncing() (any, bool) // false when in sync
	PeerCount() int
}
