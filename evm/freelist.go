package evm

import "sync"

// freeList keeps the parts of finished frames (their stacks and memories)
// for the next frames, process-wide and last in, first out.
//
// A sync.Pool alone, which is what frames used, keeps what a frame puts back
// in the pool of the P (Go's scheduler slot) the frame ran on, where only
// that P finds it first; and every second garbage collection drops it. An
// eth_call is served by whichever P picked up its connection — a node on a
// small machine runs eight (cmd/chaind's procs.go) — so a call often found
// no memory to reuse and grew one from nothing: evm-bench's
// TenThousandHashes grows memory to 720 KB through seven doublings, and
// on a node whose heap has not been collected yet every doubling lands on
// pages the process never touched, each a page fault — hundreds per call
// (the call after a SnailTracer call still had ~50 from regrowing up to the
// shared spare), and on this project's 2-CPU virtual machine one fault
// took 10-20 µs of CPU and more of wall time. Frames take from here first; the most recent part comes back first,
// still in cache. The list holds at most budget bytes (each part counted
// at its size); what does not fit goes to a sync.Pool (overflow), as
// before, so that a burst of deep recursion is still served without
// pinning its peak.
type freeList[T any] struct {
	mu     sync.Mutex
	items  []freeItem[T]
	held   int // bytes of the items
	budget int
	pool   sync.Pool // what did not fit
}

type freeItem[T any] struct {
	v    T
	size int
}

// get returns a part put back earlier, the latest first.
func (l *freeList[T]) get() (v T, ok bool) {
	l.mu.Lock()
	if n := len(l.items); n > 0 {
		it := l.items[n-1]
		l.items[n-1] = freeItem[T]{}
		l.items = l.items[:n-1]
		l.held -= it.size
		l.mu.Unlock()
		return it.v, true
	}
	l.mu.Unlock()
	if x := l.pool.Get(); x != nil {
		return x.(T), true
	}
	return v, false
}

// put keeps v, which takes size bytes, for a later get if the list has
// room for it, and reports whether it had.
func (l *freeList[T]) put(v T, size int) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.held+size > l.budget {
		return false
	}
	l.items = append(l.items, freeItem[T]{v, size})
	l.held += size
	return true
}

// overflow keeps v in the list's sync.Pool, for what put had no room for.
func (l *freeList[T]) overflow(v T) { l.pool.Put(v) }
