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

// jumpdestCache shares analyses between frames and transactions, keyed by
// code hash, since the same contracts are called over and over. The cache
// is bounded by dropping everything once it holds too much code.
type jumpdestCache struct {
	mu    sync.RWMutex
	m     map[types.Hash]bitvec
	bytes int
}

const jumpdestCacheLimit = 64 << 20 // bytes of bitmaps

var sharedJumpdests = &jumpdestCache{m: make(map[types.Hash]bitvec)}

func (c *jumpdestCache) get(h types.Hash, code []byte) bitvec {
	c.mu.RLock()
	b, ok := c.m[h]
	c.mu.RUnlock()
	if ok {
		return b
	}
	b = analyse(code)
	c.mu.Lock()
	if c.bytes+len(b) > jumpdestCacheLimit {
		c.m = make(map[types.Hash]bitvec)
		c.bytes = 0
	}
	c.m[h] = b
	c.bytes += len(b)
	c.mu.Unlock()
	return b
}
