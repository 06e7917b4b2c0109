package cycle

import (
	"sync"
)

// Nodes counts validators by state: active (in the set), standby (staked
// enough, not in the set) and syncing (joined, catching up).
type Nodes struct {
	Active  int `json:"active"`
	Standby int `json:"standby"`
	Syncing int `json:"syncing"`
}

// Record is one cycle as chain_getCycleInfo reports it. Times are Unix
// milliseconds; Duration and MaxSyncTime are seconds.
type Record struct {
	CycleCounter uint64 `json:"cycleCounter"`
	StartTime    uint64 `json:"startTime"`
	EndTime      uint64 `json:"endTime"`
	Nodes        Nodes  `json:"nodes"`
	Desired      int    `json:"desired"`
	Duration     uint64 `json:"duration"`
	MaxSyncTime  uint64 `json:"maxSyncTime"`
	Timestamp    uint64 `json:"timestamp"`
}

// BookConfig holds the figures a cycle record reports that are not
// measured: the desired validator count, the expected block interval
// (used for the end time of a cycle still in progress) and the longest a
// node may take to sync.
type BookConfig struct {
	Desired       int
	BlockInterval uint64 // ms
	MaxSyncTime   uint64 // s
}

// Book keeps the record of every cycle seen. It is safe for concurrent use.
type Book struct {
	mu      sync.RWMutex
	cfg     BookConfig
	records []Record // records[i] is cycle first+i
	first   uint64
	started bool
}

// NewBook returns an empty book.
func NewBook(cfg BookConfig) *Book { return &Book{cfg: cfg} }

// Observe records a committed block: its height, its timestamp (ms) and
// the node counts after it. The first block of a cycle opens its record;
// every block moves the record's end time and timestamp forward.
func (b *Book) Observe(height, timeMs uint64, nodes Nodes) {
	b.mu.Lock()
	defer b.mu.Unlock()
	c := Of(height)
	if !b.started {
		b.started, b.first = true, c
	}
	if c < b.first {
		return
	}
	for uint64(len(b.records)) <= c-b.first {
		n := b.first + uint64(len(b.records))
		b.records = append(b.records, Record{CycleCounter: n, StartTime: timeMs})
	}
	r := &b.records[c-b.first]
	if height == Start(c) || r.StartTime > timeMs {
		r.StartTime = timeMs
	}
	pos := height - Start(c) // blocks of this cycle before this one
	r.EndTime = timeMs + (Length-1-pos)*b.cfg.BlockInterval
	r.Duration = (r.EndTime - r.StartTime + 999) / 1000
	r.Nodes = nodes
	r.Desired = b.cfg.Desired
	r.MaxSyncTime = b.cfg.MaxSyncTime
	r.Timestamp = timeMs
}

// Cycle returns the record of cycle c.
func (b *Book) Cycle(c uint64) (Record, bool) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if !b.started || c < b.first || c-b.first >= uint64(len(b.records)) {
		return Record{}, false
	}
	return b.records[c-b.first], true
}

// Latest returns the record of the newest cycle.
func (b *Book) Latest() (Record, bool) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if len(b.records) == 0 {
		return Record{}, false
	}
	return b.records[len(b.records)-1], true
}
