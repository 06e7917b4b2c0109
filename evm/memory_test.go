package evm

import (
	"bytes"
	"testing"
)

// TestMemorySpareZeroed checks that a frame growing into the shared spare
// buffer sees zeros beyond its old contents, whatever the previous owner
// wrote there, and keeps its own bytes.
func TestMemorySpareZeroed(t *testing.T) {
	for _, tc := range []struct {
		name      string
		first     uint64 // size the previous frame grew to
		keep, new uint64 // the next frame's size before and after growing
	}{
		{"small to spare", pooledMemoryCap + 32, 96, spareMemoryMin},
		{"whole spare", pooledMemoryCap + 32, 32, pooledMemoryCap + 32},
		{"spare too small", pooledMemoryCap + 32, 32, 2 * pooledMemoryCap},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newMemory()
			a.Resize(tc.first)
			for i := range a.store {
				a.store[i] = 0xAA
			}
			returnMemory(a)
			b := newMemory()
			b.Resize(tc.keep)
			for i := range b.store {
				b.store[i] = 0x55
			}
			b.Resize(tc.new)
			if uint64(len(b.store)) != tc.new {
				t.Fatalf("len %d, want %d", len(b.store), tc.new)
			}
			if !bytes.Equal(b.store[:tc.keep], bytes.Repeat([]byte{0x55}, int(tc.keep))) {
				t.Fatal("old contents lost")
			}
			if !bytes.Equal(b.store[tc.keep:], make([]byte, tc.new-tc.keep)) {
				t.Fatal("grown memory not zero")
			}
			returnMemory(b)
		})
	}
}
