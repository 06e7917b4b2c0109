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
	seen := make(map[types.Address]struct{}, 2*warmBatch)
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
			k.v.chain.WarmAccounts(dedupe(addrs, seen))
		}
	}
}

// appendAccounts appends the accounts tx changes that are known before it
// runs, its sender and its recipient, while the pool still holds it. One
// that left the pool is in a block already (or dropped): a warmer that fell
// behind the pool would otherwise spend its reads, two cold ones a new
// recipient at 10M accounts, on paths no block is going to load.
func appendAccounts(get func(types.Hash) (*types.Transaction, types.Address, bool), addrs []types.Address, tx *types.Transaction) []types.Address {
	_, from, ok := get(tx.Hash())
	if !ok {
		return addrs
	}
	addrs = append(addrs, from)
	if to := tx.To(); to != nil {
		addrs = append(addrs, *to)
	}
	return addrs
}

// dedupe drops the repeats from addrs in place (a few senders send most
// of a load's transactions), with seen as scratch.
func dedupe(addrs []types.Address, seen map[types.Address]struct{}) []types.Address {
	clear(seen)
	out := addrs[:0]
	for _, a := range addrs {
		if _, ok := seen[a]; !ok {
			seen[a] = struct{}{}
			out = append(out, a)
		}
	}
	return out
}
