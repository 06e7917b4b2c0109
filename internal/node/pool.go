package node

import (
	"github.com/chaind/chaind/internal/txpool"
	"github.com/chaind/chaind/internal/types"
)

// restorePool puts the pool's saved transactions back, validated against
// the head's state.
func (n *Node) restorePool(saved txpool.Saved) {
	n.resetMu.Lock()
	defer n.resetMu.Unlock()
	head := n.Chain.Head().Hash()
	ph, err := n.view.PoolHead()
	if err != nil {
		n.log.Error("pool restore", "err", err)
		return
	}
	n.Pool.Restore(saved, ph)
	n.poolAt = head
}

// refreshPool re-validates the pool against the head's state even when
// the head block is the same (its state changed, or the chain was
// rewound to it).
func (n *Node) refreshPool() {
	n.resetMu.Lock()
	n.poolAt = types.Hash{}
	n.resetMu.Unlock()
	n.resetPool()
}
