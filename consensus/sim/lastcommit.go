package sim

import (
	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/types"
)

// Liveness accounting (Config.BlockTime). A node's proposer waits for its
// block time before it builds, and the block it builds carries, as its
// parent's certificate, every precommit for the parent its core gathered
// by then (consensus.LastCommit); the chain counts the validators missing
// from it as having missed the parent. The simulator models that: a value
// is built BlockTime after the core asked for it and remembers the last
// commit it carries, and the decided value of each height says who missed
// the height before (Result.Absent).
//
// It also checks the accounting against what really happened: when an
// honest proposer builds, every precommit for the parent's decided round
// and value that its core accepted from the network (or that it signed
// itself) must be in the last commit it carries, and nothing else. So a
// validator is counted absent only when no precommit of its for that
// decision reached the proposer in the window, which is what keeps a
// validator whose votes arrive in time from being jailed.

// heardKey is a precommit a node's core accepted.
type heardKey struct {
	h  uint64
	r  int32
	id types.Hash
	v  types.Address
}

// carriedCommit is who signed the last commit a built value carries.
type carriedCommit struct {
	height  uint64 // the parent's height
	signers []bool // by validator index
}

// hear records a precommit an honest core accepted. The core was at
// height below when it arrived; precommits beyond the heights it buffers
// are dropped by it and not counted.
func (s *Sim) hear(nd *node, below uint64, msg []byte) {
	if s.cfg.BlockTime == 0 || nd.byz {
		return
	}
	ev, err := consensus.DecodeMessage(msg)
	if err != nil {
		return
	}
	ve, ok := ev.(consensus.VoteEvent)
	if !ok || ve.Vote.Type != consensus.Precommit || ve.Vote.Height > below+2 || s.index(ve.Vote.Validator) < 0 {
		return
	}
	v := ve.Vote
	if nd.heard == nil {
		nd.heard = make(map[heardKey]bool)
	}
	nd.heard[heardKey{v.Height, v.Round, v.ID, v.Validator}] = true
}

// buildValue answers a core's request for a value once the block time
// has passed: the value, and the last commit it carries for the parent.
func (s *Sim) buildValue(nd *node, ev consensus.ValueEvent) consensus.Event {
	h := ev.Height
	ev.Value = s.makeValue(nd, h, ev.Round)
	if h < 2 || uint64(len(nd.certs)) != h-1 {
		return ev
	}
	lc := nd.lastCommit
	if lc.Height != h-1 {
		// Restarted since the parent was decided: the certificate kept
		// with the chain, the decision's own precommits.
		d := nd.certs[h-2]
		lc = consensus.LastCommit{Height: d.Height, Round: d.Round, ID: d.Value.ID, Precommits: d.Precommits}
	}
	signers := make([]bool, len(s.nodes))
	for _, v := range lc.Precommits {
		if i := s.index(v.Validator); i >= 0 {
			signers[i] = true
		}
	}
	if s.carried == nil {
		s.carried = make(map[types.Hash]carriedCommit)
	}
	s.carried[ev.Value.ID] = carriedCommit{height: h - 1, signers: signers}
	// Checked when this incarnation of the core saw all of the parent's
	// height: what a restored snapshot held, nd.heard does not know.
	if !nd.byz && (nd.bootHeight < h-1 || nd.bootHeight == h-1 && !nd.restored) {
		s.checkLastCommit(nd, lc, signers)
	}
	for k := range nd.heard {
		if k.h+2 < h {
			delete(nd.heard, k)
		}
	}
	return ev
}

// checkLastCommit compares what an honest proposer carries with the
// precommits for the parent's decision its core accepted or signed.
func (s *Sim) checkLastCommit(nd *node, lc consensus.LastCommit, signers []bool) {
	for i, other := range s.nodes {
		arrived := nd.heard[heardKey{lc.Height, lc.Round, lc.ID, other.addr}]
		if i == nd.idx {
			arrived = nd.signed[lc.Height][voteKey{lc.Round, consensus.Precommit}] == lc.ID
		}
		switch {
		case arrived && !signers[i]:
			s.violation("liveness accounting: validator %d's precommit for height %d reached proposer %d in time but its last commit leaves it out", i, lc.Height, nd.idx)
		case !arrived && signers[i]:
			s.violation("liveness accounting: proposer %d carries a precommit of validator %d for height %d it never received", nd.idx, i, lc.Height)
		}
	}
}

// recordAbsent reports, for the first honest decision of a height, who
// the decided value counts as having missed its parent.
func (s *Sim) recordAbsent(d consensus.Decide) {
	c, ok := s.carried[d.Value.ID]
	if !ok {
		return
	}
	delete(s.carried, d.Value.ID)
	if s.res.Absent == nil {
		s.res.Absent = make(map[uint64][]int)
	}
	absent := []int{}
	for i, signed := range c.signers {
		if !signed {
			absent = append(absent, i)
		}
	}
	s.res.Absent[c.height] = absent
}
