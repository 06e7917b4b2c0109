package backend

import (
	"errors"

	"github.com/chaind/chaind/internal/types"
)

// History answers which transactions the chain holds, in chain order,
// and which of them touch an address (sent by it, sent to it, or creating
// it). The node keeps it while importing blocks, so every answer is a few
// lookups, never a scan of the chain.
type History interface {
	// TxCountThrough is the number of transactions in canonical blocks
	// 0..n; ErrNotIndexed for a block stored before the index began.
	TxCountThrough(n uint64) (uint64, error)
	// TxAt returns the transaction of the given ordinal (0 is the chain's
	// first); ErrNotFound past the last.
	TxAt(ordinal uint64) (TxRef, error)
	// AddressTxCount is how many transactions touch addr.
	AddressTxCount(addr types.Address) (uint64, error)
	// AddressTxAt returns the i-th transaction touching addr in chain
	// order; ErrNotFound past the last.
	AddressTxAt(addr types.Address, i uint64) (TxRef, error)
	// AddressTxCountBefore is how many of addr's transactions are in
	// blocks before block n.
	AddressTxCountBefore(addr types.Address, n uint64) (uint64, error)
	// HistoryFrom is the first block the index covers: older blocks'
	// transactions were pruned from it (--history.keep) or predate it,
	// and are answered as unknown ones.
	HistoryFrom() (uint64, error)
}

// TxRef locates an included transaction.
type TxRef struct {
	Block uint64
	Index int
	Hash  types.Hash
}

// ErrNotIndexed is returned for blocks the history index does not cover
// (stored before the node kept it).
var ErrNotIndexed = errors.New("not in the history index")
