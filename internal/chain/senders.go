package chain

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/chaind/chaind/internal/types"
)

// senderRecovery recovers the senders of a block's transactions on
// background goroutines, in block order, while the block executes:
// signature recovery costs more than executing a simple transfer, and it
// parallelises while execution does not. Each transaction is claimed once,
// by a worker or by the executing goroutine when it gets there first, so no
// recovery is done twice. Senders are cached in the transactions.
type senderRecovery struct {
	signer  types.Signer
	txs     types.Transactions
	claimed []atomic.Bool
	done    []atomic.Bool
	stopped atomic.Bool
	wg      sync.WaitGroup
}

func recoverSenders(signer types.Signer, txs types.Transactions) *senderRecovery {
	r := &senderRecovery{signer: signer, txs: txs}
	// One core is left to the executing goroutine.
	workers := runtime.GOMAXPROCS(0) - 1
	if len(txs) < 8 || workers < 1 {
		return r
	}
	r.claimed = make([]atomic.Bool, len(txs))
	r.done = make([]atomic.Bool, len(txs))
	var next atomic.Int64
	for w := 0; w < workers; w++ {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			for !r.stopped.Load() {
				i := int(next.Add(1) - 1)
				if i >= len(txs) {
					return
				}
				if r.claimed[i].CompareAndSwap(false, true) {
					signer.Sender(txs[i]) // errors resurface, with context, when the block executes
					r.done[i].Store(true)
				}
			}
		}()
	}
	return r
}

// wait makes sure transaction i's sender is recovered (or being recovered
// by nobody else) before the executing goroutine asks for it.
func (r *senderRecovery) wait(i int) {
	if r.claimed == nil {
		return
	}
	if r.claimed[i].CompareAndSwap(false, true) {
		return // ours: Sender recovers it when execution asks
	}
	for !r.done[i].Load() {
		runtime.Gosched()
	}
}

// stop ends the workers and waits for them.
func (r *senderRecovery) stop() {
	r.stopped.Store(true)
	r.wg.Wait()
}
