package evm

import (
	"sync"
	"sync/atomic"

	"github.com/holiman/uint256"
)

// Memory is a frame's byte-addressed, word-expanded memory. The expansion
// gas is charged before Resize is called, so Resize never fails.
type Memory struct {
	store       []byte
	lastGasCost uint64
}

var memoryPool = sync.Pool{New: func() any { return &Memory{} }}

func newMemory() *Memory { return memoryPool.Get().(*Memory) }

// Pooled frames keep buffers up to pooledMemoryCap. A larger buffer goes
// to one process-wide spare instead (if it is at most spareMemoryCap), so
// a contract that grows memory to megabytes, as SnailTracer does to 10 MB,
// does not pay for fresh pages and doubling copies on every call (a fifth
// of its run time), while the pool still cannot pin many big buffers.
const (
	pooledMemoryCap = 4 << 20
	spareMemoryCap  = 64 << 20
	// spareMemoryMin is the size from which growing takes the spare
	// rather than doubling a small buffer.
	spareMemoryMin = 64 << 10
)

var spareMemory atomic.Pointer[[]byte]

func returnMemory(m *Memory) {
	if c := cap(m.store); c > pooledMemoryCap {
		if c <= spareMemoryCap {
			if old := spareMemory.Load(); old == nil || cap(*old) < c {
				buf := m.store[:0]
				spareMemory.Store(&buf)
			}
		}
		m.store = nil
	}
	m.store = m.store[:0]
	m.lastGasCost = 0
	memoryPool.Put(m)
}

// Len returns the current size in bytes.
func (m *Memory) Len() int { return len(m.store) }

// Data returns the backing bytes.
func (m *Memory) Data() []byte { return m.store }

// Resize grows memory to size bytes, zero-filled.
func (m *Memory) Resize(size uint64) {
	if uint64(len(m.store)) >= size {
		return
	}
	if uint64(cap(m.store)) >= size {
		old := len(m.store)
		m.store = m.store[:size]
		clear(m.store[old:])
		return
	}
	if size >= spareMemoryMin {
		if sp := spareMemory.Swap(nil); sp != nil {
			if uint64(cap(*sp)) >= size {
				old := len(m.store)
				n := (*sp)[:size]
				copy(n, m.store)
				clear(n[old:])
				m.store = n
				return
			}
			// Too small for this frame: put it back for another.
			spareMemory.CompareAndSwap(nil, sp)
		}
	}
	n := make([]byte, size, max(size, 2*uint64(cap(m.store))))
	copy(n, m.store)
	m.store = n
}

// Set copies value into memory at offset.
func (m *Memory) Set(offset, size uint64, value []byte) {
	if size > 0 {
		copy(m.store[offset:offset+size], value)
	}
}

// Set32 writes a 32-byte big-endian word at offset.
func (m *Memory) Set32(offset uint64, val *uint256.Int) {
	b := (*[32]byte)(m.store[offset : offset+32])
	val.PutUint256(b[:])
}

// GetCopy returns a fresh copy of memory[offset:offset+size].
func (m *Memory) GetCopy(offset, size uint64) []byte {
	if size == 0 {
		return nil
	}
	out := make([]byte, size)
	copy(out, m.store[offset:offset+size])
	return out
}

// GetPtr returns memory[offset:offset+size] without copying.
func (m *Memory) GetPtr(offset, size uint64) []byte {
	if size == 0 {
		return nil
	}
	return m.store[offset : offset+size]
}

// Copy moves size bytes from src to dst within memory (MCOPY); overlapping
// ranges behave like memmove.
func (m *Memory) Copy(dst, src, size uint64) {
	if size == 0 {
		return
	}
	copy(m.store[dst:dst+size], m.store[src:src+size])
}
