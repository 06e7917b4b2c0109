package query

import (
	"sync"

	"github.com/chaind/chaind/internal/types"
)

// Every query reads the state of the head block, so an answer stays right
// until the head moves: the rendered answers (REST JSON, gRPC bytes) of
// the current head are kept and served again, which is what lets a node
// answer a crowd of dashboards polling the same lists. The cache empties
// whenever the head changes; errors are not kept.

const (
	cacheEntries  = 4096     // answers kept per head
	cacheMaxEntry = 4 << 20  // larger answers are not kept
	cacheMaxBytes = 64 << 20 // keys and answers kept per head, in bytes
)

type answerCache struct {
	mu    sync.Mutex
	head  types.Hash
	m     map[string][]byte
	bytes int // keys and answers in m: abci_query keys carry the client's data
}

// Cached returns the answer stored under key for the current head, or
// renders, stores and returns it. Methods whose answer does not follow
// from the head alone (the sync status) are never cached: m.Volatile.
func (q *Querier) Cached(m *Method, key string, render func() ([]byte, *Error)) ([]byte, *Error) {
	if m.volatile || q.b.Blocks == nil {
		return render()
	}
	head := q.b.Blocks.Head().Hash()
	c := &q.cache
	c.mu.Lock()
	if c.head != head || c.m == nil {
		c.head, c.m, c.bytes = head, make(map[string][]byte), 0
	}
	out, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return out, nil
	}
	out, err := render()
	if err != nil || len(key)+len(out) > cacheMaxEntry {
		return out, err
	}
	c.mu.Lock()
	if c.head == head {
		size := len(key) + len(out)
		if len(c.m) >= cacheEntries || c.bytes+size > cacheMaxBytes {
			clear(c.m)
			c.bytes = 0
		}
		if old, dup := c.m[key]; dup {
			c.bytes -= len(key) + len(old)
		}
		c.bytes += size
		c.m[key] = out
	}
	c.mu.Unlock()
	return out, nil
}
