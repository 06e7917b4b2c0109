package node

import (
	"github.com/chaind/chaind/internal/pos"
)

// upgradeNeeded says whether this binary may go on past the head: nil, or
// the error naming the version to run, when a scheduled upgrade's height
// is the next block or the network's minVersion is above this binary's
// version (pos.Engine.UpgradeNeeded). A node that needs an upgrade
// refuses to start (no p2p handshakes, no signatures) and a running one
// halts at the plan's height, as a Cosmos SDK node does.
func (n *Node) upgradeNeeded() error {
	e := pos.Of(n.Chain)
	if e == nil {
		return nil
	}
	head := n.Chain.Head()
	st, err := n.Chain.StateAt(head.Root())
	if err != nil {
		return nil // the head's state is checked again by the block that needs it
	}
	defer st.Release()
	return e.UpgradeNeeded(st, head.Number()+1)
}
