package state

import (
	"github.com/chaind/chaind/internal/twogen"
	"github.com/chaind/chaind/internal/types"
)

// The ReadCache keeps contract code by code hash for the StateDBs sharing
// it. Code under a hash never changes, so an entry can never go stale;
// without it every eth_call read its contract's code from the store again
// and copied it into fresh heap (17 KB a call for a large contract). It is
// bounded in bytes, in one shard (code reads are few and large): two
// generations of at most half of it each. Callers share the slices it
// returns and must not modify them (StateDB.GetCode's rule).
func newCodeCache(bytes int64) *twogen.Cache[types.Hash, []byte] {
	return twogen.New[types.Hash, []byte](bytes, 1, func(types.Hash) uint64 { return 0 }, twogen.Bytes)
}
