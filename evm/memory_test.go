package evm

import (
	"bytes"
	"runtime"
	"testing"
)

// TestMemorySpareZeroed checks that a frame growing into the shared spare
// buffer sees zeros beyond its old contents, whatever the previous owner
// wrote there, and keeps its own bytes. The previous owner's buffer is too
// big for the free list, so it goes to the spare.
func TestMemorySpareZeroed(t *testing.T) {
	big := uint64(freeMemories.budget) + 32
	for _, tc := range []struct {
		name      string
		first     uint64 // size the previous frame grew to
		keep, new uint64 // the next frame's size before and after growing
	}{
		{"small to spare", big, 96, spareMemoryMin},
		{"whole spare", big, 32, big},
		{"spare too small", big, 32, 2 * big},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := &Memory{}
			a.Resize(tc.first)
			for i := range a.store {
				a.store[i] = 0xAA
			}
			returnMemory(a)
			if cap(a.store) != 0 {
				t.Fatal("a buffer over the free list's budget stayed with its Memory")
			}
			b := &Memory{}
			checkGrowth(t, b, tc.keep, tc.new)
			returnMemory(b)
		})
	}
}

// checkGrowth grows m to keep bytes, fills them, grows it to size and
// checks that the first keep bytes stayed and the rest reads zero.
func checkGrowth(t *testing.T, m *Memory, keep, size uint64) {
	t.Helper()
	m.Resize(keep)
	for i := range m.store {
		m.store[i] = 0x55
	}
	m.Resize(size)
	if uint64(len(m.store)) != size {
		t.Fatalf("len %d, want %d", len(m.store), size)
	}
	if !bytes.Equal(m.store[:keep], bytes.Repeat([]byte{0x55}, int(keep))) {
		t.Fatal("old contents lost")
	}
	if !bytes.Equal(m.store[keep:], make([]byte, size-keep)) {
		t.Fatal("grown memory not zero")
	}
}

// A frame's memory and stack are kept for the next frame whatever the
// runtime does meanwhile. In a sync.Pool they were not: a garbage
// collection or two dropped them, and a call served on another P than the
// last one did not find them, so it grew its memory again into fresh
// pages (issue 30: hundreds of page faults per eth_call of evm-bench's
// TenThousandHashes on a node). The reused memory reads zero as it grows.
func TestFramePartsOutliveGC(t *testing.T) {
	const size = 720 << 10 // TenThousandHashes' memory
	// A spare another test left would serve the growth and take the
	// buffer away from this frame's Memory on return.
	spareMemory.Store(nil)
	m := newMemory()
	m.Resize(size)
	for i := range m.store {
		m.store[i] = 0xAA
	}
	s := newStack()
	returnStack(s)
	returnMemory(m)
	runtime.GC()
	runtime.GC()
	if got := newStack(); got != s {
		t.Error("the stack of the last frame was not reused")
	}
	got := newMemory()
	if cap(got.store) < size {
		t.Fatalf("the next frame's memory has a %d-byte buffer, want the last frame's (%d bytes)", cap(got.store), size)
	}
	checkGrowth(t, got, 0, size)
	returnMemory(got)
}

// The free list hands back the latest part first and keeps no more than
// its budget; what does not fit is refused.
func TestFreeListBudget(t *testing.T) {
	l := freeList[int]{budget: 100}
	for _, tc := range []struct {
		v, size int
		kept    bool
	}{
		{1, 60, true}, {2, 30, true}, {3, 20, false}, {4, 10, true}, {5, 1, false},
	} {
		if got := l.put(tc.v, tc.size); got != tc.kept {
			t.Errorf("put(%d, %d) = %v, want %v", tc.v, tc.size, got, tc.kept)
		}
	}
	if l.held != 100 {
		t.Errorf("held %d bytes, want 100", l.held)
	}
	for _, want := range []int{4, 2, 1} {
		if v, ok := l.get(); !ok || v != want {
			t.Fatalf("get() = %d, %v, want %d", v, ok, want)
		}
	}
	if l.held != 0 {
		t.Errorf("held %d bytes after emptying, want 0", l.held)
	}
	l.overflow(7)
	if v, ok := l.get(); ok && v != 7 {
		t.Errorf("get() from the overflow pool = %d, want 7", v)
	}
}
