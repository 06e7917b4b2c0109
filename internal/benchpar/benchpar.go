// Package benchpar runs the read-side benchmarks of the node's caches and
// store the way a loaded node uses them: several readers at once beside a
// writer that keeps adding, as block execution's warmers read while misses
// and commits write. Run such benchmarks with -cpu 2 for the node's two
// cores. It is imported by _test.go files only.
package benchpar

import (
	"sync"
	"testing"
)

// ReadersBesideWriter times readers goroutines sharing b.N reads — reader
// r does reads r, r+readers, r+2·readers, … by calling read(r, i) — while
// one goroutine calls write(i) for i = 0, 1, 2, … until the readers are
// done. Only the reads are timed; write paces itself (a sleep, a yield)
// as the workload needs.
func ReadersBesideWriter(b *testing.B, readers int, write func(i int), read func(r, i int)) {
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			write(i)
		}
	}()
	b.ResetTimer()
	var rg sync.WaitGroup
	for r := range readers {
		rg.Add(1)
		go func() {
			defer rg.Done()
			for i := r; i < b.N; i += readers {
				read(r, i)
			}
		}()
	}
	rg.Wait()
	b.StopTimer()
	close(stop)
	wg.Wait()
}
