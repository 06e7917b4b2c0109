package chain

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/chaind/chaind/internal/types"
)

// senderRecovery recovers the senders of a run of transactions (one
// block's, or a whole chain segment's) on background goroutines, in order,
// while the blocks execute: signature recovery costs more than executing a
// simple transfer, and it parallelises while execution does not. Each
// transaction is claimed once, by a worker or by the executing goroutine,
// so no recovery is done twice; an executing goroutine that has to wait
// for a worker's transaction recovers later ones meanwhile instead of
// idling. Senders are cached in the transactions.
type senderRecovery struct {
	txs     []*types.Transaction
	signers []types.Signer // per block
	blockOf []int32        // index into signers, per transaction
	claimed []atomic.Bool
	done    []atomic.Bool
	next    atomic.Int64
	stopped atomic.Bool
	wg      sync.WaitGroup
}

// senders is one block's share of a senderRecovery: its transactions start
// at off in the recovery's list. A nil r means no background recovery:
// execution recovers each sender when it gets there.
type senders struct {
	r   *senderRecovery
	off int
}

// recoveryWorkers is how many goroutines recover in the background: one
// core is left to the executing goroutine, and no more goroutines run than
// there are cores (GOMAXPROCS may be set above the core count).
func recoveryWorkers() int {
	n := runtime.GOMAXPROCS(0)
	if c := runtime.NumCPU(); c < n {
		n = c
	}
	return n - 1
}

// recoverBlocks starts recovering the senders of every transaction of
// blocks, block by block, with signerOf giving each block's signer. The
// caller must stop it.
func recoverBlocks(blocks []*types.Block, signerOf func(*types.Block) types.Signer) *senderRecovery {
	r := &senderRecovery{}
	workers := recoveryWorkers()
	total := 0
	for _, b := range blocks {
		total += len(b.Transactions())
	}
	if total < 8 || workers < 1 {
		return r
	}
	r.txs = make([]*types.Transaction, 0, total)
	r.blockOf = make([]int32, 0, total)
	for k, b := range blocks {
		r.signers = append(r.signers, signerOf(b))
		for _, tx := range b.Transactions() {
			r.txs = append(r.txs, tx)
			r.blockOf = append(r.blockOf, int32(k))
		}
	}
	r.claimed = make([]atomic.Bool, total)
	r.done = make([]atomic.Bool, total)
	for w := 0; w < workers; w++ {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			for !r.stopped.Load() && r.step() {
			}
		}()
	}
	return r
}

// step recovers the next unclaimed transaction; it reports false when
// none is left.
func (r *senderRecovery) step() bool {
	i := int(r.next.Add(1) - 1)
	if i >= len(r.txs) {
		return false
	}
	if r.claimed[i].CompareAndSwap(false, true) {
		r.signers[r.blockOf[i]].Sender(r.txs[i]) // errors resurface, with context, when the block executes
		r.done[i].Store(true)
	}
	return true
}

// wait makes sure the block's transaction i has its sender recovered, or
// is claimed by nobody else, before the executing goroutine asks for it.
func (s senders) wait(i int) {
	r := s.r
	if r == nil || r.claimed == nil {
		return
	}
	i += s.off
	if r.claimed[i].CompareAndSwap(false, true) {
		return // ours: Sender recovers it when execution asks
	}
	for !r.done[i].Load() {
		if !r.step() {
			runtime.Gosched()
		}
	}
}

// stop ends the workers and waits for them.
func (r *senderRecovery) stop() {
	r.stopped.Store(true)
	r.wg.Wait()
}
