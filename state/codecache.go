package state

import (
	"sync"

	"github.com/chaind/chaind/internal/types"
)

// codeCache keeps contract code by code hash for the StateDBs sharing a
// ReadCache. Code under a hash never changes, so an entry can never go
// stale; without it every eth_call read its contract's code from the
// store again and copied it into fresh heap (17 KB a call for a large
// contract). It is bounded in bytes: two generations of at most limit
// bytes each, the older dropped when the newer fills up. Callers share the
// slices it returns and must not modify them (StateDB.GetCode's rule).
type codeCache struct {
	mu       sync.Mutex
	limit    int
	cur, old map[types.Hash][]byte
	curBytes int
}

func (c *codeCache) get(h types.Hash) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if code, ok := c.cur[h]; ok {
		return code, true
	}
	if code, ok := c.old[h]; ok {
		c.insert(h, code)
		return code, true
	}
	return nil, false
}

func (c *codeCache) put(h types.Hash, code []byte) {
	c.mu.Lock()
	c.insert(h, code)
	c.mu.Unlock()
}

func (c *codeCache) insert(h types.Hash, code []byte) {
	if len(code) > c.limit {
		return // larger than a generation: not kept
	}
	if _, ok := c.cur[h]; ok {
		return
	}
	if c.cur == nil || c.curBytes+len(code) > c.limit {
		c.old, c.cur, c.curBytes = c.cur, map[types.Hash][]byte{}, 0
	}
	c.cur[h] = code
	c.curBytes += len(code)
}
