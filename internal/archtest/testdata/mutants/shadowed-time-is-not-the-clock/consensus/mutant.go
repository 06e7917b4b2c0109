package consensus

import "time"

type fakeClock struct{ Now func() int64 }

// read takes a parameter named time: its Now is not the package's.
func read(time fakeClock) int64 { return time.Now() }

var _ time.Duration
