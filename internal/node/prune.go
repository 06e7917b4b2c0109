package node

import (
	"errors"
	"time"

	"github.com/chaind/chaind/internal/chain"
)

// pruneStates keeps the stored state to the last StateHistory blocks: every
// StateHistory new blocks (syncPruneEvery while syncing) it runs an
// incremental mark-and-sweep pass (chain.Prune), which holds the chain
// only for slices of its deletions (each observed in
// chaind_prune_pause_seconds).
func (n *Node) pruneStates() {
	defer n.wg.Done()
	heads, cancel := n.Chain.Subscribe(16)
	defer cancel()
	keep := n.cfg.StateHistory
	last := n.Chain.Head().Number()
	for {
		select {
		case <-n.stop:
			return
		case b, ok := <-heads:
			if !ok {
				return
			}
			// Marking walks the whole live state, so a node catching up
			// (thousands of blocks a minute) prunes less often.
			every := keep
			if n.catchingUp() {
				every = max(keep, syncPruneEvery)
			}
			if b.Number() < last+every {
				continue
			}
			last = b.Number()
			start := time.Now()
			st, err := n.Chain.Prune(keep)
			if err != nil && !errors.Is(err, chain.ErrPruneBusy) {
				n.log.Error("pruning old state failed", "err", err)
				continue
			}
			for _, p := range st.Pauses {
				n.observePrunePause(p, "state")
			}
			n.log.Debug("pruned old state", "head", b.Number(), "roots", st.Roots, "kept", st.Kept, "deleted", st.Deleted, "took", time.Since(start), "max_pause", st.MaxPause())
		}
	}
}

// syncPruneEvery is how many blocks a syncing node lets pass between
// pruning passes: its state grows by that much history meanwhile.
const syncPruneEvery = 2048

// catchingUp reports whether the node is syncing from its peers.
func (n *Node) catchingUp() bool {
	nn := n.net.Load()
	return nn != nil && nn.sync.Syncing()
}

// stateRetention is how many recent blocks keep their state: every one on
// an archive node (0), else the last StateHistory.
func stateRetention(cfg Config) uint64 {
	if cfg.Archive {
		return 0
	}
	return cfg.StateHistory
}

// pruneHistory keeps the history index to the last HistoryKeep blocks: at
// start and every historyPruneEvery blocks it drops what fell out, in
// slices of historyPruneSlice blocks, each holding the chain only for its
// deletions (chain.PruneHistory).
func (n *Node) pruneHistory() {
	defer n.wg.Done()
	heads, cancel := n.Chain.Subscribe(16)
	defer cancel()
	keep := n.cfg.HistoryKeep
	var last uint64
	first := true
	for {
		if head := n.Chain.Head().Number(); first || head >= last+historyPruneEvery {
			first, last = false, head
			for {
				st, err := n.Chain.PruneHistory(keep, historyPruneSlice)
				if st.Blocks > 0 {
					n.observePrunePause(st.Pause, "history")
				}
				if err != nil {
					n.log.Error("pruning the history index failed", "err", err)
					break
				}
				if st.Blocks == 0 {
					break
				}
				n.log.Debug("pruned the history index", "blocks", st.Blocks, "from", st.From)
				select {
				case <-n.stop:
					return
				default:
				}
			}
		}
		select {
		case <-n.stop:
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

// observePrunePause records one hold of the chain by a pruning pass.
func (n *Node) observePrunePause(d time.Duration, kind string) {
	if n.prunePause != nil {
		n.prunePause.Observe(d.Seconds(), kind)
	}
}
