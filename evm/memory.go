package evm

import (
	"sync/atomic"

	"github.com/holiman/uint256"
)

// Memory is a frame's byte-addressed, word-expanded memory. The expansion
// gas is charged before Resize is called, so Resize never fails.
type Memory struct {
	store       []byte
	lastGasCost uint64
}

// freeMemories keeps finished frames' memories with their buffers (see
// freeList), up to 16 MiB of them: the next call of a contract that grows
// memory to megabytes, as SnailTracer does to 10 MB, finds its buffer
// there, paying neither for fresh pages nor for doubling copies (a fifth
// of its run time when it did).
var freeMemories = freeList[*Memory]{budget: 16 << 20}

func newMemory() *Memory {
	if m, ok := freeMemories.get(); ok {
		return m
	}
	return &Memory{}
}

// A buffer the free list has no room for goes to one process-wide spare
// instead (if it is at most spareMemoryCap), and its Memory to the list's
// pool without it, so that the pool cannot pin many big buffers.
const (
	spareMemoryCap = 64 << 20
	// spareMemoryMin is the size from which growing takes the spare
	// rather than doubling a small buffer; smaller buffers stay with
	// their Memory.
	spareMemoryMin = 64 << 10
	// memoryOverhead is what a kept Memory counts besides its buffer.
	memoryOverhead = 64
)

var spareMemory atomic.Pointer[[]byte]

func returnMemory(m *Memory) {
	m.store = m.store[:0]
	m.lastGasCost = 0
	if freeMemories.put(m, memoryOverhead+cap(m.store)) {
		return
	}
	if c := cap(m.store); c >= spareMemoryMin {
		if c <= spareMemoryCap {
			if old := spareMemory.Load(); old == nil || cap(*old) < c {
				buf := m.store
				spareMemory.Store(&buf)
			}
		}
		m.store = nil
	}
	freeMemories.overflow(m)
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
