package bft

import (
	"context"
	"log/slog"
	"time"

	"github.com/chaind/chaind/internal/types"
)

// The per-block debug log: where a block's time went on this validator
// (waiting for the parent's late precommits, ordering the pool, building or
// validating, the wait for the decision, the commit, moving the pool), one
// line a block, so that a loaded network's long intervals can be split
// into their parts from the logs (netbench keeps them with -work).

// blockTiming is what one pending block cost this validator so far.
type blockTiming struct {
	start  time.Time     // our build began, or another's proposal arrived
	waited time.Duration // ours: waiting for the parent's late precommits
	order  time.Duration // ours: ordering the pool
	exec   time.Duration // building it, or validating another's
}

// timed records t for the pending block id: the commit reads it for the
// log and for the validation cost. Guarded by the application's mutex;
// dropped with the pending block.
func (a *ChainApp) timed(id types.Hash, t blockTiming) { a.timings[id] = t }

// logCommit writes the block's line once it is stored and the Committed
// hook ran: decided is from its start to the decision, commit the chain's
// write, after the hook (the pool moving to the new head).
func (a *ChainApp) logCommit(b *types.Block, t blockTiming, known bool, decided time.Time, commit, after time.Duration) {
	if a.cfg.Log == nil || !a.cfg.Log.Enabled(context.Background(), slog.LevelDebug) {
		return
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	var since float64 = -1 // a block decided before this validator saw it
	if known {
		since = ms(decided.Sub(t.start))
	}
	a.cfg.Log.Debug("block timings", "height", b.Number(), "txs", len(b.Transactions()), "own", b.Coinbase() == a.cfg.Coinbase,
		"waited_ms", ms(t.waited), "order_ms", ms(t.order), "exec_ms", ms(t.exec), "decided_ms", since,
		"commit_ms", ms(commit), "after_ms", ms(after))
}
