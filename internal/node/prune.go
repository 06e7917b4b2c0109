package node

import (
	"time"

	"github.com/chaind/chaind/internal/node/prune"
)

// startPruning runs the pruning passes (package prune) the config asks
// for: state beyond StateHistory blocks unless Archive, the history index
// beyond HistoryKeep blocks if set.
func (n *Node) startPruning() {
	pc := prune.Config{Chain: n.Chain, StateHistory: n.cfg.StateHistory, HistoryKeep: n.cfg.HistoryKeep, Log: n.log,
		CatchingUp: func() bool { nn := n.net.Load(); return nn != nil && nn.Syncing() },
		Pause: func(d time.Duration, kind string) {
			if n.prunePause != nil {
				n.prunePause.Observe(d.Seconds(), kind)
			}
		}}
	var passes []func(prune.Config, <-chan struct{})
	if !n.cfg.Archive {
		passes = append(passes, prune.States)
	}
	if n.cfg.HistoryKeep > 0 {
		passes = append(passes, prune.History)
	}
	for _, run := range passes {
		n.wg.Add(1)
		go func() {
			defer n.wg.Done()
			run(pc, n.stop)
		}()
	}
}
