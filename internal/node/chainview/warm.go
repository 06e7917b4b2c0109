package chainview

import (
	"github.com/chaind/chaind/internal/types"
)

// warmBuffer bounds the pooled transactions waiting for their accounts'
// trie paths to be warmed (a pointer each, and at most the pool's
// Config.SubscriberBytes of transactions); arrivals beyond it are not
// warmed, and their block loads those paths itself, as it always could.
const warmBuffer = 4096

// warmBatch is how many arrivals one pass warms at most: one trie opened
// on the head for several, the head read once.
const warmBatch = 256

// warm loads, until stop is closed, the account trie paths of the
// transactions the pool admits (their senders and recipients) into the
// chain's node cache, a block or more before a block runs them
// (chain.Chain.WarmAccounts says why).
func (k *PoolKeeper) warm(stop <-chan struct{}) {
	arrivals, cancel := k.pool.Subscribe(warmBuffer)
	defer cancel()
	addrs := make([]types.Address, 0, 2*warmBatch)
	for {
		select {
		case <-stop:
			return
		case tx, ok := <-arrivals:
			if !ok {
				return
			}
			addrs = appendAccounts(k.pool.Get, addrs[:0], tx)
			for more := true; more && len(addrs) < 2*warmBatch; {
				select {
				case tx, ok := <-arrivals:
					if !ok {
						return
					}
					addrs = appendAccounts(k.pool.Get, addrs, tx)
				default:
					more = false
				}
			}
			k.v.chain.WarmAccounts(addrs)
		}
	}
}

// appendAccounts appends the accounts tx changes that are known before it
// runs: its sender, while the pool still holds it, and its recipient.
func appendAccounts(get func(types.Hash) (*types.Transaction, types.Address, bool), addrs []types.Address, tx *types.Transaction) []types.Address {
	if _, from, ok := get(tx.Hash()); ok {
		addrs = append(addrs, from)
	}
	if to := tx.To(); to != nil {
		addrs = append(addrs, *to)
	}
	return addrs
}
