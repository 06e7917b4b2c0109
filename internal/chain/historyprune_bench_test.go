package chain

import (
	"slices"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/store"
)

// BenchmarkHistoryPruneHold prunes the history index of 300 blocks of 100
// transfers each (on the disk store, fsync and all) down to the last 20,
// in slices of 128 blocks as the node's pass does, and reports how long
// each slice held the chain's writer lock (the time a block's commit could
// wait behind it): the longest and the median. Run with -benchtime=1x;
// each iteration builds its chain first, untimed.
func BenchmarkHistoryPruneHold(b *testing.B) {
	var holds []time.Duration
	for range b.N {
		b.StopTimer()
		db, err := store.Open(b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		sk, _, g := fundedGenesis(300_000_000)
		c, err := Open(g, db, nil)
		if err != nil {
			b.Fatal(err)
		}
		build := transferBlocks(b, c, sk, 100)
		for range 300 {
			if err := c.CommitBuilt(build()); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		for {
			st, err := c.PruneHistory(20, 128)
			if err != nil {
				b.Fatal(err)
			}
			if st.Blocks == 0 {
				break
			}
			holds = append(holds, st.Pause)
		}
		b.StopTimer()
		db.Close()
	}
	slices.Sort(holds)
	b.ReportMetric(float64(holds[len(holds)-1].Microseconds()), "max-hold-µs")
	b.ReportMetric(float64(holds[len(holds)/2].Microseconds()), "median-hold-µs")
}
