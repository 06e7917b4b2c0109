package querytest

import (
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// LoadStats is what a load run measured.
type LoadStats struct {
	Calls, Errors int
	Elapsed       time.Duration
	P50, P99      time.Duration
	// CPU is the processor time (user and system) the whole process
	// used during the run: the load generator's and, when the server
	// runs in the same process, the server's.
	CPU      time.Duration
	FirstErr error
}

// Rate is calls per second.
func (s LoadStats) Rate() float64 { return float64(s.Calls) / s.Elapsed.Seconds() }

// Load makes calls calls of do from workers goroutines at once and times
// each: the in-repo load generator of the REST and gRPC benchmarks. Its
// loop is bounded by calls, so it always stops.
func Load(workers, calls int, do func() error) LoadStats {
	var next atomic.Int64
	lat := make([][]time.Duration, workers)
	var errs atomic.Int64
	var firstErr error
	var once sync.Once
	var wg sync.WaitGroup
	cpu0 := processCPU()
	start := time.Now()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(calls) {
				t := time.Now()
				if err := do(); err != nil {
					errs.Add(1)
					once.Do(func() { firstErr = err })
					continue
				}
				lat[w] = append(lat[w], time.Since(t))
			}
		}()
	}
	wg.Wait()
	s := LoadStats{Calls: calls, Errors: int(errs.Load()), Elapsed: time.Since(start), CPU: processCPU() - cpu0, FirstErr: firstErr}
	all := slices.Concat(lat...)
	if len(all) > 0 {
		slices.Sort(all)
		s.P50 = all[len(all)/2]
		s.P99 = all[min(len(all)-1, len(all)*99/100)]
	}
	return s
}

// processCPU is the user and system time the process has used so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
