package chain

import (
	"time"

	"github.com/chaind/chaind/internal/types"
)

// Observer is told how long the chain's work on each block took, for a
// node's metrics. Its functions run on the goroutine inserting the block,
// some with the chain locked: they must be quick and must not call the
// chain.
type Observer struct {
	// Executed follows a block's execution: by BuildBlock (built) or
	// while validating a block from elsewhere. d covers the transactions
	// and the end-of-block rules, not the header checks.
	Executed func(b *types.Block, built bool, d time.Duration)
	// Committed follows a block's becoming the head: d is the time to
	// commit its state and write it.
	Committed func(b *types.Block, d time.Duration)
}

// SetObserver sets the chain's observer; a zero Observer removes it.
func (c *Chain) SetObserver(o Observer) { c.obs.Store(&o) }

func (c *Chain) observeExec(b *types.Block, built bool, start time.Time) {
	if o := c.obs.Load(); o != nil && o.Executed != nil {
		o.Executed(b, built, time.Since(start))
	}
}

func (c *Chain) observeCommit(b *types.Block, start time.Time) {
	if o := c.obs.Load(); o != nil && o.Committed != nil {
		o.Committed(b, time.Since(start))
	}
}
