package cometrpc

import (
	"sync"

	"github.com/chaind/chaind/internal/types"
)

// hashIndex maps the CometBFT hashes of recent transactions (sha256 of
// their TxRaw bytes) to their Ethereum hashes, which the chain's
// transaction index finds. The chain indexes transactions by their
// Ethereum hash only, and a sha256 cannot be turned back into the
// transaction, so this RPC remembers the CometBFT hashes of the blocks it
// sees: every block decided while it runs (Run follows the heads), the
// last backfillBlocks blocks before it started (Server.backfill), and
// every block a client reads. It holds at most maxHashes entries (about 64 bytes each plus the
// map's overhead), forgetting the oldest first; the Ethereum hash of a
// transaction always finds it.
type hashIndex struct {
	mu   sync.Mutex
	m    map[types.Hash]types.Hash
	ring []types.Hash // insertion order, for eviction
	next int
}

// maxHashes bounds the index: 262,144 entries, about 32 MiB with the
// map's overhead.
const maxHashes = 1 << 18

func (x *hashIndex) add(comet, eth types.Hash) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.m == nil {
		x.m = make(map[types.Hash]types.Hash)
	}
	if _, ok := x.m[comet]; ok {
		return
	}
	if len(x.ring) < maxHashes {
		x.ring = append(x.ring, comet)
	} else {
		delete(x.m, x.ring[x.next])
		x.ring[x.next] = comet
		x.next = (x.next + 1) % maxHashes
	}
	x.m[comet] = eth
}

func (x *hashIndex) get(comet types.Hash) (types.Hash, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	h, ok := x.m[comet]
	return h, ok
}
