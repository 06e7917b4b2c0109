package precompile

import (
	"encoding/binary"
	"testing"
)

// BenchmarkBlake2fRound reports the cost of one round (ns/op is per
// round): stTimeConsuming calls F with 2^32-1 rounds.
func BenchmarkBlake2fRound(b *testing.B) {
	var h [8]uint64
	var m [16]uint64
	for i := range m {
		m[i] = uint64(i) * 0x9e3779b97f4a7c15
	}
	const chunk = 1 << 20
	b.ResetTimer()
	for n := b.N; n > 0; n -= chunk {
		blake2bF(&h, &m, 1, 0, true, uint32(min(n, chunk)))
	}
}

func BenchmarkBlake2f12(b *testing.B) {
	in := make([]byte, blake2FInputLen)
	binary.BigEndian.PutUint32(in, 12)
	in[212] = 1
	for i := 0; i < b.N; i++ {
		blake2F{}.Run(in)
	}
}

// TestBlake2fAllocs checks that a call allocates only its output.
func TestBlake2fAllocs(t *testing.T) {
	in := make([]byte, blake2FInputLen)
	binary.BigEndian.PutUint32(in, 12)
	if a := testing.AllocsPerRun(100, func() { blake2F{}.Run(in) }); a > 1 {
		t.Errorf("%v allocations per call, want 1", a)
	}
}
