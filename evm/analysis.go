package evm

import (
	"sync"

	"github.com/chaind/chaind/internal/types"
)

// bitvec marks which code positions are JUMPDEST instructions (as opposed
// to bytes inside PUSH data). One bit per code byte.
type bitvec []byte

func (b bitvec) isSet(pos uint64) bool { return b[pos/8]&(1<<(pos%8)) != 0 }

// analyse returns the JUMPDEST bitmap of code.
func analyse(code []byte) bitvec {
	bits := make(bitvec, len(code)/8+1)
	for pc := 0; pc < len(code); pc++ {
		op := OpCode(code[pc])
		if op == JUMPDEST {
			bits[pc/8] |= 1 << (pc % 8)
		} else if op.IsPush() {
			pc += int(op - PUSH0)
		}
	}
	return bits
}

// codeCache shares analyses of code between frames and transactions,
// keyed by code hash (and, for programs, fork), since the same contracts
// are called over and over. It is bounded by dropping everything once its
// analyses hold too many bytes.
type codeCache[K comparable, V any] struct {
	mu    sync.RWMutex
	m     map[K]V
	bytes int
}

const codeCacheLimit = 64 << 20 // bytes of analyses, per cache

var sharedJumpdests = &codeCache[types.Hash, bitvec]{}

func (c *codeCache[K, V]) lookup(k K) (V, bool) {
	c.mu.RLock()
	v, ok := c.m[k]
	c.mu.RUnlock()
	return v, ok
}

// put keeps v under k, counting size bytes.
func (c *codeCache[K, V]) put(k K, v V, size int) {
	c.mu.Lock()
	if c.m == nil || c.bytes+size > codeCacheLimit {
		c.m = make(map[K]V)
		c.bytes = 0
	}
	c.m[k] = v
	c.bytes += size
	c.mu.Unlock()
}
