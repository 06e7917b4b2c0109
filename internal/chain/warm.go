package chain

import (
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
)

// Warming the trie paths of accounts a coming block will change.
//
// A block's root is computed by writing every account it changed into the
// account trie, and each write first loads the nodes on its key's path.
// In a state of millions of accounts the lower nodes of those paths are
// mostly not cached, so a block of transfers to new accounts waited, after
// its transactions ran, for a couple of store reads per transaction (the
// prefetcher and warmAccounts in package state run them beside execution
// and in parallel, but all within the block's time): at 10M accounts that
// wait was most of a block's 3.4 s. The accounts a pooled transaction
// touches are known when it is admitted, a block or more before it runs;
// WarmAccounts loads their paths then, in the gaps of the block pipeline
// (while the previous block is written, while the pool fills), so that
// the block finds them in the node cache. It only reads; a path that moved
// on (the head changed meanwhile) is loaded again by the block as before.

// WarmAccounts loads the account trie paths of addrs in the head's state
// into the node cache. Nothing without a node cache (the nodes would not
// stay anywhere). Errors are left to the block that reads the same nodes.
func (c *Chain) WarmAccounts(addrs []types.Address) {
	if c.db.clean == nil || len(addrs) == 0 {
		return
	}
	state.WarmAccountPaths(c.db, c.stateRootOf(c.Head().Root()), addrs)
}
