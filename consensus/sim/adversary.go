package sim

import (
	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/types"
)

// adversary drives the Equivocate validators as one coordinated attacker.
// When one of them is the proposer of (h, r) it splits the honest
// validators into two halves of about equal power, proposes value A to one
// and B to the other, and has every equivocator prevote and precommit A to
// the first half and B to the second. With Byzantine power above 1/3 each
// half plus the attackers is a quorum and the halves decide differently;
// below 1/3 the quorum rule must stop it. For honest proposals the
// attackers simply vote for the proposed value, whatever their locks.
type adversary struct {
	s        *Sim
	members  []int
	member   map[int]bool
	proposed map[hr]bool
	voted    map[hrv]bool
}

type hr struct {
	h uint64
	r int32
}

type hrv struct {
	hr
	id types.Hash
}

func newAdversary(s *Sim) *adversary {
	a := &adversary{s: s, member: make(map[int]bool), proposed: make(map[hr]bool), voted: make(map[hrv]bool)}
	for _, nd := range s.nodes {
		if nd.byz && nd.behaviour == Equivocate {
			a.members = append(a.members, nd.idx)
			a.member[nd.idx] = true
		}
	}
	return a
}

func (a *adversary) observe(_ *node, ev consensus.Event) {
	if len(a.members) == 0 {
		return
	}
	var h uint64
	var r int32
	switch e := ev.(type) {
	case consensus.ProposalEvent:
		h, r = e.Proposal.Height, e.Proposal.Round
		if !a.member[a.s.index(e.Proposal.Proposer)] {
			a.voteAll(h, r, e.Proposal.Value.ID)
		}
	case consensus.VoteEvent:
		h, r = e.Vote.Height, e.Vote.Round
	default:
		return
	}
	a.maybePropose(h, r)
	a.maybePropose(h, r+1)
	a.maybePropose(h+1, 0)
}

func (a *adversary) honest() []int {
	var out []int
	for _, nd := range a.s.nodes {
		if !nd.byz {
			out = append(out, nd.idx)
		}
	}
	return out
}

func (a *adversary) maybePropose(h uint64, r int32) {
	k := hr{h, r}
	if a.proposed[k] {
		return
	}
	set, err := a.s.src.ValidatorSet(h)
	if err != nil {
		return
	}
	p := a.s.index(set.Proposer(r))
	if !a.member[p] {
		return
	}
	a.proposed[k] = true
	// Split the honest validators into two sides of about equal power.
	honest := a.honest()
	a.s.rng.Shuffle(len(honest), func(i, j int) { honest[i], honest[j] = honest[j], honest[i] })
	var sides [2][]int
	var power [2]int64
	for _, i := range honest {
		side := 0
		if power[1] < power[0] {
			side = 1
		}
		sides[side] = append(sides[side], i)
		power[side] += a.s.cfg.Stakes[i]
	}
	vals := [2]consensus.Value{value(h, r, p, 2), value(h, r, p, 3)}
	// In later rounds, sometimes claim a valid round that has no polka,
	// to lure locked validators through L28.
	vr := int32(-1)
	if r > 0 && a.s.rng.IntN(2) == 0 {
		vr = r - 1
		vals[1] = vals[0] // one value for everyone: unlock them all
	}
	for side, group := range sides {
		prop := consensus.ProposalEvent{Proposal: consensus.Proposal{Height: h, Round: r, Value: vals[side], ValidRound: vr, Proposer: nodeAddr(p)}}
		for _, to := range group {
			a.s.send(p, to, prop, 0)
			for _, z := range a.members {
				a.sendVotes(z, to, h, r, vals[side].ID)
			}
		}
	}
	// Let one honest validator see both sides, so equivocation is detected.
	if len(sides[0]) > 0 {
		for _, z := range a.members {
			a.sendVotes(z, sides[0][0], h, r, vals[1].ID)
		}
	}
}

func (a *adversary) voteAll(h uint64, r int32, id types.Hash) {
	k := hrv{hr{h, r}, id}
	if a.voted[k] {
		return
	}
	a.voted[k] = true
	for _, to := range a.honest() {
		for _, z := range a.members {
			a.sendVotes(z, to, h, r, id)
		}
	}
}

func (a *adversary) sendVotes(from, to int, h uint64, r int32, id types.Hash) {
	for _, t := range []consensus.VoteType{consensus.Prevote, consensus.Precommit} {
		a.s.send(from, to, consensus.VoteEvent{Vote: consensus.Vote{Type: t, Height: h, Round: r, ID: id, Validator: nodeAddr(from)}}, 0)
	}
}
