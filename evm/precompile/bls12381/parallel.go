package bls12381

import (
	"runtime"
	"sync"
)

// forEach runs fn(i) for i in [0, n), spread over the available CPUs when
// there is enough work. Decoding with subgroup checks costs ~0.1-0.5 ms per
// point, far more than a goroutine start, so pairs of points already pay.
// go-ethereum's MSM (gnark-crypto) is parallel in the same way.
func forEach(n int, fn func(i int)) {
	workers := runtime.GOMAXPROCS(0)
	if workers > n {
		workers = n
	}
	if workers <= 1 {
		for i := 0; i < n; i++ {
			fn(i)
		}
		return
	}
	var wg sync.WaitGroup
	wg.Add(workers)
	for w := 0; w < workers; w++ {
		go func(w int) {
			defer wg.Done()
			for i := w; i < n; i += workers {
				fn(i)
			}
		}(w)
	}
	wg.Wait()
}

// firstError returns the error of the lowest index, so that the reported
// error does not depend on scheduling.
func firstError(errs []error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
