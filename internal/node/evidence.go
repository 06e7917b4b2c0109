package node

import (
	"errors"

	"github.com/chaind/chaind/consensus"
)

// ErrNotValidating is returned for evidence handed to a node that runs no
// validator: only a validator proposes blocks that could carry it.
var ErrNotValidating = errors.New("node: not a validator")

// AddEvidence hands double-sign evidence (received from a peer) to this
// node's validator, which verifies it and puts it in the next block it
// proposes; the staking rules then slash and jail the offender when that
// block executes. Evidence this validator's own consensus core finds goes
// the same way without this call.
func (n *Node) AddEvidence(ev consensus.DuplicateVoteEvidence) error {
	n.mu.Lock()
	app := n.app
	n.mu.Unlock()
	if app == nil {
		return ErrNotValidating
	}
	return app.AddEvidence(ev)
}
