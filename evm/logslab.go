package evm

// logSlab hands out the logs LOG builds, and copies of their data, from
// slabs: a token contract's call emits thousands of logs, and two heap
// allocations per log (the log with its topics, then its data) were a
// third of an ERC-20 run's time. A slab is never reused, so a log stays
// valid however long it is kept; it only keeps its slab's neighbours
// alive with it, as the block's other logs are anyway. One per EVM.
type logSlab struct {
	allocs []logAlloc // not yet handed out
	data   []byte     // not yet handed out
	// Slabs start small and double up to the limits below, so an EVM
	// that emits a log or two does not keep kilobytes alive with them.
	nextLogs, nextData int
}

const (
	logSlabLogs = 64
	logSlabData = 8 << 10
	// Data longer than this gets an allocation of its own rather than
	// wasting the rest of a slab.
	logSlabMaxData = 1 << 10
)

func (s *logSlab) newLog() *logAlloc {
	if len(s.allocs) == 0 {
		s.nextLogs = min(max(2*s.nextLogs, 4), logSlabLogs)
		s.allocs = make([]logAlloc, s.nextLogs)
	}
	la := &s.allocs[0]
	s.allocs = s.allocs[1:]
	return la
}

// copyData returns a copy of src (nil when it is empty), capped at its
// length so an append to it cannot reach a neighbour's bytes.
func (s *logSlab) copyData(src []byte) []byte {
	n := len(src)
	switch {
	case n == 0:
		return nil
	case n > logSlabMaxData:
		return append([]byte(nil), src...)
	case len(s.data) < n:
		s.nextData = min(max(2*s.nextData, 256), logSlabData)
		s.data = make([]byte, max(s.nextData, n))
	}
	d := s.data[:n:n]
	s.data = s.data[n:]
	copy(d, src)
	return d
}
