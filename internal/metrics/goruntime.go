package metrics

import (
	"runtime"
	"runtime/debug"
	rtm "runtime/metrics"
	"runtime/pprof"
	"sync"
	"time"
)

// RegisterGo adds the Go runtime's families under the names the
// Prometheus Go client gives them (go_goroutines, go_memstats_*,
// go_gc_duration_seconds...), so dashboards made for any Go service read
// them unchanged. The memory figures come from runtime/metrics, which
// does not stop the world as runtime.ReadMemStats does; one read serves
// a whole scrape (see rtSnapshot).
func RegisterGo(r *Registry) {
	rt := &rtSnapshot{}
	g := func(name, help string, fn func(s *rtSnapshot) float64) {
		r.GaugeFunc(name, help, func() float64 { return fn(rt.read()) })
	}
	c := func(name, help string, fn func(s *rtSnapshot) float64) {
		r.CounterFunc(name, help, func() float64 { return fn(rt.read()) })
	}
	r.GaugeVecFunc("go_info", "Information about the Go environment.", []string{"version"}, func(e Emit) { e(1, runtime.Version()) })
	r.GaugeFunc("go_goroutines", "Number of goroutines that currently exist.", func() float64 { return float64(runtime.NumGoroutine()) })
	threads := pprof.Lookup("threadcreate")
	r.GaugeFunc("go_threads", "Number of OS threads created.", func() float64 { return float64(threads.Count()) })
	g("go_sched_gomaxprocs_threads", "The current runtime.GOMAXPROCS setting.", func(s *rtSnapshot) float64 { return s.v(rtGomaxprocs) })
	g("go_gc_gogc_percent", "Heap size target percentage configured by GOGC (or debug.SetGCPercent); negative when off.", func(s *rtSnapshot) float64 { return s.v(rtGogc) })
	g("go_gc_gomemlimit_bytes", "Go runtime memory limit configured by GOMEMLIMIT (or debug.SetMemoryLimit).", func(s *rtSnapshot) float64 { return s.v(rtMemLimit) })
	g("go_memstats_alloc_bytes", "Number of bytes allocated in heap and currently in use.", func(s *rtSnapshot) float64 { return s.v(rtHeapObjects) })
	c("go_memstats_alloc_bytes_total", "Total number of bytes allocated in heap until now, even if released already.", func(s *rtSnapshot) float64 { return s.v(rtAllocBytes) })
	g("go_memstats_sys_bytes", "Number of bytes obtained from system.", func(s *rtSnapshot) float64 { return s.v(rtTotal) })
	c("go_memstats_mallocs_total", "Total number of heap objects allocated, both live and gc-ed.", func(s *rtSnapshot) float64 { return s.v(rtAllocObjects) })
	c("go_memstats_frees_total", "Total number of heap objects frees.", func(s *rtSnapshot) float64 { return s.v(rtFreeObjects) })
	g("go_memstats_heap_alloc_bytes", "Number of heap bytes allocated and currently in use.", func(s *rtSnapshot) float64 { return s.v(rtHeapObjects) })
	g("go_memstats_heap_inuse_bytes", "Number of heap bytes that are in use (in spans with at least one object).", func(s *rtSnapshot) float64 { return s.v(rtHeapObjects) + s.v(rtHeapUnused) })
	g("go_memstats_heap_idle_bytes", "Number of heap bytes waiting to be used (free and released spans).", func(s *rtSnapshot) float64 { return s.v(rtHeapFree) + s.v(rtHeapReleased) })
	g("go_memstats_heap_released_bytes", "Number of heap bytes released to OS.", func(s *rtSnapshot) float64 { return s.v(rtHeapReleased) })
	g("go_memstats_heap_sys_bytes", "Number of heap bytes obtained from system.", func(s *rtSnapshot) float64 {
		return s.v(rtHeapObjects) + s.v(rtHeapUnused) + s.v(rtHeapFree) + s.v(rtHeapReleased)
	})
	g("go_memstats_heap_objects", "Number of currently allocated objects.", func(s *rtSnapshot) float64 { return s.v(rtLiveObjects) })
	g("go_memstats_stack_inuse_bytes", "Number of bytes obtained from system for stack allocator in non-CGO environments.", func(s *rtSnapshot) float64 { return s.v(rtStacks) })
	g("go_memstats_next_gc_bytes", "Number of heap bytes when next garbage collection will take place.", func(s *rtSnapshot) float64 { return s.v(rtHeapGoal) })
	gc := &gcSnapshot{}
	r.GaugeFunc("go_memstats_last_gc_time_seconds", "Number of seconds since 1970 of last garbage collection (0 before the first).", func() float64 {
		st := gc.read()
		if st.NumGC == 0 {
			return 0
		}
		return float64(st.LastGC.UnixNano()) / 1e9
	})
	r.SummaryFunc("go_gc_duration_seconds", "A summary of the wall-time pause (stop-the-world) duration in garbage collection cycles.", func() Quantiles {
		st := gc.read()
		q := Quantiles{Q: []float64{0, 0.25, 0.5, 0.75, 1}, V: make([]float64, 5), Sum: st.PauseTotal.Seconds(), Count: uint64(st.NumGC)}
		if len(st.PauseQuantiles) == 5 {
			for i, d := range st.PauseQuantiles {
				q.V[i] = d.Seconds()
			}
		}
		return q
	})
}

// The runtime/metrics names RegisterGo reads, in rtNames order.
const (
	rtGomaxprocs = iota
	rtGogc
	rtMemLimit
	rtHeapObjects
	rtHeapUnused
	rtHeapFree
	rtHeapReleased
	rtStacks
	rtTotal
	rtAllocBytes
	rtAllocObjects
	rtFreeObjects
	rtTinyAllocs
	rtLiveObjects
	rtHeapGoal
)

var rtNames = []string{
	"/sched/gomaxprocs:threads",
	"/gc/gogc:percent",
	"/gc/gomemlimit:bytes",
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/unused:bytes",
	"/memory/classes/heap/free:bytes",
	"/memory/classes/heap/released:bytes",
	"/memory/classes/heap/stacks:bytes",
	"/memory/classes/total:bytes",
	"/gc/heap/allocs:bytes",
	"/gc/heap/allocs:objects",
	"/gc/heap/frees:objects",
	"/gc/heap/tiny/allocs:objects",
	"/gc/heap/objects:objects",
	"/gc/heap/goal:bytes",
}

// snapshotAge is how long one read of the runtime serves: the families
// of one scrape are written within it, so they agree with each other
// (heap_inuse is never below alloc) and the runtime is read once.
const snapshotAge = 100 * time.Millisecond

// rtSnapshot is a recent read of the runtime/metrics RegisterGo uses.
type rtSnapshot struct {
	mu      sync.Mutex
	at      time.Time
	samples []rtm.Sample
}

func (s *rtSnapshot) read() *rtSnapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.samples == nil {
		s.samples = make([]rtm.Sample, len(rtNames))
		for i, n := range rtNames {
			s.samples[i].Name = n
		}
	}
	if time.Since(s.at) > snapshotAge {
		rtm.Read(s.samples)
		s.at = time.Now()
	}
	return s
}

// v is sample i as a float; a name this Go does not know reads 0.
// Mallocs and frees count the tiny allocations too, as MemStats does.
func (s *rtSnapshot) v(i int) float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	val := func(i int) float64 {
		switch x := s.samples[i].Value; x.Kind() {
		case rtm.KindUint64:
			return float64(x.Uint64())
		case rtm.KindFloat64:
			return x.Float64()
		}
		return 0
	}
	switch i {
	case rtAllocObjects, rtFreeObjects:
		return val(i) + val(rtTinyAllocs)
	}
	return val(i)
}

// gcSnapshot is a recent debug.ReadGCStats, for the pause summary and the
// last GC time.
type gcSnapshot struct {
	mu sync.Mutex
	at time.Time
	st debug.GCStats
}

func (g *gcSnapshot) read() debug.GCStats {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.st.PauseQuantiles == nil {
		g.st.PauseQuantiles = make([]time.Duration, 5)
	}
	if time.Since(g.at) > snapshotAge {
		debug.ReadGCStats(&g.st)
		g.at = time.Now()
	}
	return g.st
}
