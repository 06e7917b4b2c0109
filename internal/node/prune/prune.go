// Package prune runs a node's pruning passes in the background: the
// stored state kept to the last blocks' (chain.Prune), the history index
// kept to the last blocks' (chain.PruneHistory). A state pass writes its
// deletes without holding the chain; what it may still make a commit wait
// (chain.StepStats.Pauses) and each slice a history pass holds the chain
// for are reported as pauses.
package prune

import (
	"errors"
	"log/slog"
	"time"

	"github.com/chaind/chaind/internal/chain"
)

// Config is what the passes prune and whom they tell.
type Config struct {
	Chain        *chain.Chain
	StateHistory uint64 // blocks whose state States keeps
	HistoryKeep  uint64 // blocks History keeps in the history index
	// CatchingUp reports whether the node is syncing from its peers; nil:
	// never.
	CatchingUp func() bool
	// Pause, if set, is told of each hold of the chain by a pass, by what
	// was pruned ("state" or "history").
	Pause func(d time.Duration, kind string)
	Log   *slog.Logger
}

func (c Config) catchingUp() bool { return c.CatchingUp != nil && c.CatchingUp() }

func (c Config) observe(d time.Duration, kind string) {
	if c.Pause != nil {
		c.Pause(d, kind)
	}
}

// observeState reports a state pass's holds of the lock commits take
// ("state") and the commits' waits for its deletes ("state-wait").
func (c Config) observeState(holds, waits []time.Duration) {
	for _, p := range holds {
		c.observe(p, "state")
	}
	for _, p := range waits {
		c.observe(p, "state-wait")
	}
}

// States keeps the stored state to the last StateHistory blocks until stop
// is closed. A chain that prunes incrementally (chain.PruneStep) takes a
// step at every new head: it costs what the blocks since the last step
// changed. Otherwise, every StateHistory new blocks (syncPruneEvery while
// syncing) it runs a mark-and-sweep pass over the whole state
// (chain.Prune).
func States(c Config, stop <-chan struct{}) {
	heads, cancel := c.Chain.Subscribe(16)
	defer cancel()
	keep := c.StateHistory
	last := c.Chain.Head().Number()
	// What a crash cut short is caught up by the first step, at the
	// first new head: not at start, which then answers sooner.
	incremental := c.Chain.Incremental()
	for {
		select {
		case <-stop:
			return
		case b, ok := <-heads:
			if !ok {
				return
			}
			if incremental {
				incremental = c.step(keep, stop)
				continue
			}
			// Marking walks the whole live state, so a node catching up
			// (thousands of blocks a minute) prunes less often.
			every := keep
			if c.catchingUp() {
				every = max(keep, syncPruneEvery)
			}
			if b.Number() < last+every {
				continue
			}
			last = b.Number()
			start := time.Now()
			st, err := c.Chain.Prune(keep)
			if err != nil && !errors.Is(err, chain.ErrPruneBusy) {
				c.Log.Error("pruning old state failed", "err", err)
				continue
			}
			c.observeState(st.Pauses, st.Waits)
			c.Log.Debug("pruned old state", "head", b.Number(), "roots", st.Roots, "kept", st.Kept, "deleted", st.Deleted, "took", time.Since(start), "max_pause", st.MaxPause())
		}
	}
}

// step takes one incremental pruning step; it reports whether the chain
// still prunes incrementally.
func (c Config) step(keep uint64, stop <-chan struct{}) bool {
	start := time.Now()
	st, err := c.Chain.PruneStep(keep, stop)
	c.observeState(st.Pauses, st.Waits)
	switch {
	case errors.Is(err, chain.ErrPruneRewound):
		c.Log.Warn("pruning by mark and sweep from now on", "reason", err)
		return false
	case err != nil && !errors.Is(err, chain.ErrPruneBusy):
		c.Log.Error("pruning old state failed", "err", err)
	case st.Counted > 0 || st.Applied > 0:
		c.Log.Debug("pruned old state", "counted", st.Counted, "applied", st.Applied, "made", st.Made, "ended", st.Ended,
			"deleted", st.Deleted, "took", time.Since(start), "max_pause", st.MaxPause())
	}
	return c.Chain.Incremental()
}

// syncPruneEvery is how many blocks a syncing node lets pass between
// pruning passes: its state grows by that much history meanwhile.
const syncPruneEvery = 2048

// History keeps the history index to the last HistoryKeep blocks until
// stop is closed: at start and every historyPruneEvery blocks it drops
// what fell out, in slices of historyPruneSlice blocks.
func History(c Config, stop <-chan struct{}) {
	heads, cancel := c.Chain.Subscribe(16)
	defer cancel()
	keep := c.HistoryKeep
	var last uint64
	first := true
	for {
		if head := c.Chain.Head().Number(); first || head >= last+historyPruneEvery {
			first, last = false, head
			for {
				st, err := c.Chain.PruneHistory(keep, historyPruneSlice)
				if st.Blocks > 0 {
					c.observe(st.Pause, "history")
				}
				if err != nil {
					c.Log.Error("pruning the history index failed", "err", err)
					break
				}
				if st.Blocks == 0 {
					break
				}
				c.Log.Debug("pruned the history index", "blocks", st.Blocks, "from", st.From)
				select {
				case <-stop:
					return
				default:
				}
			}
		}
		select {
		case <-stop:
			return
		case _, ok := <-heads:
			if !ok {
				return
			}
		}
	}
}

// historyPruneEvery is how many new blocks pass between history pruning
// rounds; historyPruneSlice bounds the blocks one locked step drops.
const (
	historyPruneEvery = 64
	historyPruneSlice = 128
)

// Retention is how many recent blocks keep their state: every one on an
// archive node (0), else the last stateHistory.
func Retention(archive bool, stateHistory uint64) uint64 {
	if archive {
		return 0
	}
	return stateHistory
}
