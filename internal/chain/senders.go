package chain

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/chaind/chaind/internal/types"
)

// recoverSenders recovers the senders of txs on background goroutines, in
// block order, so that execution (which needs them one by one and caches
// them in each transaction) mostly finds them ready: signature recovery
// costs more than executing a simple transfer, and it parallelises while
// execution does not. Execution that overtakes the workers recovers the
// sender itself. The returned function stops the workers and waits for them.
func recoverSenders(signer types.Signer, txs types.Transactions) (stop func()) {
	// One core is left to the executing goroutine.
	workers := runtime.GOMAXPROCS(0) - 1
	if len(txs) < 8 || workers < 1 {
		return func() {}
	}
	var (
		next atomic.Int64
		wg   sync.WaitGroup
	)
	n := int64(len(txs))
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1) - 1
				if i >= n {
					return
				}
				signer.Sender(txs[i]) // errors resurface, with context, when the block executes
			}
		}()
	}
	return func() {
		next.Store(n)
		wg.Wait()
	}
}
