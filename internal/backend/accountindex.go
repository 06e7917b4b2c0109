package backend

import "github.com/chaind/chaind/internal/types"

// AccountIndex lists addresses in address order, for the queries that
// page through every account (the Cosmos auth Accounts and bank
// DenomOwners). It lists every address that has held an account in some
// state the node stored since genesis, so it serves any height: a reader
// keeps the addresses that hold an account in the state it reads.
type AccountIndex interface {
	// IndexedAccounts returns up to n addresses: with reverse false,
	// ascending from bound (inclusive; nil: the first); with reverse,
	// descending from below bound (exclusive; nil: the last). It fails
	// with ErrUnavailable, wrapped with the reason, when the node keeps
	// no complete index (a data directory made before it, a fork).
	IndexedAccounts(bound []byte, reverse bool, n int) ([]types.Address, error)
}
