package sim

import (
	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/types"
)

// adversary drives the Byzantine validators that run no core, as one
// coordinated attacker who knows all their keys. Everything it sends is
// wire bytes; what it signs in its own members' names is signed with their
// keys, and what it claims in others' names is forged (Forge) or recorded
// from another chain (Replay), so only the honest cores' checks stop it.
//
// Equivocate and Sybil: when one of them is the proposer of (h, r), it
// splits the honest validators into two halves of about equal power,
// proposes value A to one and B to the other, and has every member prevote
// and precommit A to the first half and B to the second, each vote three
// times over. With Byzantine power above 1/3 each half plus the attackers
// is a quorum and the halves decide differently; below 1/3 the quorum rule
// (counting each sender once, members only) must stop it. Sybil adds the
// same votes from as many keys outside the validator set. For honest
// proposals the members simply vote for the proposed value, whatever
// their locks.
//
// Forge and Replay: at each height and round they pick an honest victim
// and send it a proposal from the round's proposer and prevotes and
// precommits for a value of theirs from everyone else; Forge signs them
// with a member's own key, Replay with the named validators' keys but for
// chain ChainID+1, and Replay also re-sends honest votes it sees with
// their round or height moved on. Only the signature check stops the victim from
// deciding that value.
//
// Selective: for each honest proposal its members prevote the value to
// one honest validator other than the proposer and nil to the rest, and
// never precommit. When the network loses a prevote, the one validator may
// see a polka nobody else sees and lock alone; only re-proposing the
// valid value (L15-L16), with the polka relayed, lets the others follow.
//
// Hijack: ahead of every round it does not own, a member sends the honest
// validators other than the round's proposer a proposal of its own, signed
// with its own key; only the proposer check makes them wait for the real
// one.
type adversary struct {
	s         *Sim
	splitters []int // Equivocate and Sybil
	sybil     bool
	forgers   []int // Forge
	replayers []int // Replay
	hijackers []int
	selective []int
	lured     map[hr]bool
	byz       map[int]bool
	proposed  map[hr]bool
	voted     map[hrv]bool
	forged    map[hr]bool
	hijacked  map[hr]bool
	relabel   map[types.Hash]bool
}

type hr struct {
	h uint64
	r int32
}

type hrv struct {
	hr
	id types.Hash
}

// repeats is how often Equivocate and Sybil members send each vote.
const repeats = 3

func newAdversary(s *Sim) *adversary {
	a := &adversary{s: s, byz: make(map[int]bool), proposed: make(map[hr]bool), voted: make(map[hrv]bool),
		forged: make(map[hr]bool), lured: make(map[hr]bool), hijacked: make(map[hr]bool), relabel: make(map[types.Hash]bool)}
	for _, nd := range s.nodes {
		if !nd.byz {
			continue
		}
		a.byz[nd.idx] = true
		switch nd.behaviour {
		case Equivocate:
			a.splitters = append(a.splitters, nd.idx)
		case Sybil:
			a.splitters = append(a.splitters, nd.idx)
			a.sybil = true
		case Forge:
			a.forgers = append(a.forgers, nd.idx)
		case Replay:
			a.replayers = append(a.replayers, nd.idx)
		case Hijack:
			a.hijackers = append(a.hijackers, nd.idx)
		case Selective:
			a.selective = append(a.selective, nd.idx)
		}
	}
	return a
}

func (a *adversary) observe(_ *node, ev consensus.Event) {
	var h uint64
	var r int32
	switch e := ev.(type) {
	case consensus.ProposalEvent:
		h, r = e.Proposal.Height, e.Proposal.Round
		if i := a.s.index(e.Proposal.Proposer); i >= 0 && !a.byz[i] {
			a.voteAll(h, r, e.Proposal.Value.ID)
			a.lure(i, h, r, e.Proposal.Value.ID)
		}
	case consensus.VoteEvent:
		h, r = e.Vote.Height, e.Vote.Round
		if len(a.replayers) > 0 {
			a.replayRelabelled(e.Vote)
		}
	default:
		return
	}
	for _, k := range []hr{{h, r}, {h, r + 1}, {h + 1, 0}} {
		a.maybePropose(k.h, k.r)
		a.forge(k.h, k.r)
		a.hijack(k.h, k.r)
	}
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

// proposer is proposer(h, r), or -1 if the height's set is unknown.
func (a *adversary) proposer(h uint64, r int32) int {
	set, err := a.s.src.ValidatorSet(h)
	if err != nil {
		return -1
	}
	return a.s.index(set.Proposer(r))
}

func (a *adversary) isSplitter(i int) bool {
	for _, z := range a.splitters {
		if z == i {
			return true
		}
	}
	return false
}

func (a *adversary) maybePropose(h uint64, r int32) {
	k := hr{h, r}
	if len(a.splitters) == 0 || a.proposed[k] {
		return
	}
	p := a.proposer(h, r)
	if p < 0 || !a.isSplitter(p) {
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
	signer := a.s.nodes[p].sign
	for side, group := range sides {
		prop := encodeProposal(signer.proposal(consensus.Proposal{Height: h, Round: r, Value: vals[side], ValidRound: vr}))
		for _, to := range group {
			a.s.send(p, to, prop, 0)
			a.sendVotes(to, h, r, vals[side].ID)
		}
	}
	// Let one honest validator see both sides, so equivocation is detected.
	if len(sides[0]) > 0 {
		a.sendVotes(sides[0][0], h, r, vals[1].ID)
	}
}

func (a *adversary) voteAll(h uint64, r int32, id types.Hash) {
	k := hrv{hr{h, r}, id}
	if len(a.splitters) == 0 || a.voted[k] {
		return
	}
	a.voted[k] = true
	for _, to := range a.honest() {
		a.sendVotes(to, h, r, id)
	}
}

// sendVotes has every splitter (and, for Sybil, every outside key)
// prevote and precommit id to one validator, each vote repeats times.
func (a *adversary) sendVotes(to int, h uint64, r int32, id types.Hash) {
	voters := make([]*signer, 0, len(a.splitters)+len(a.s.outsiders))
	for _, z := range a.splitters {
		voters = append(voters, a.s.nodes[z].sign)
	}
	if a.sybil {
		voters = append(voters, a.s.outsiders...)
	}
	from := a.splitters[0]
	for _, g := range voters {
		for _, t := range []consensus.VoteType{consensus.Prevote, consensus.Precommit} {
			msg := encodeVote(g.vote(consensus.Vote{Type: t, Height: h, Round: r, ID: id}))
			for range repeats {
				a.s.send(from, to, msg, 0)
			}
		}
	}
}

// forge sends one honest victim a proposal in the name of proposer(h, r)
// and a quorum of votes in others' names for a value of the attacker's.
func (a *adversary) forge(h uint64, r int32) {
	k := hr{h, r}
	if (len(a.forgers) == 0 && len(a.replayers) == 0) || a.forged[k] {
		return
	}
	a.forged[k] = true
	p := a.proposer(h, r)
	if p < 0 {
		return
	}
	honest := a.honest()
	victim := honest[a.s.rng.IntN(len(honest))]
	replay := len(a.forgers) == 0
	from := 0
	if replay {
		from = a.replayers[0]
	} else {
		from = a.forgers[0]
	}
	v := value(h, r, from, 4)
	// claimVote signs a vote as validator i: Replay with i's key for
	// another chain, Forge with the attacker's own key, then names i.
	claimVote := func(vote consensus.Vote, i int) []byte {
		if replay {
			return encodeVote(a.s.otherNet[i].vote(vote))
		}
		vote = a.s.nodes[from].sign.vote(vote)
		vote.Validator = a.s.nodeAddr(i)
		return encodeVote(vote)
	}
	prop := consensus.Proposal{Height: h, Round: r, Value: v, ValidRound: -1}
	if replay {
		prop = a.s.otherNet[p].proposal(prop)
	} else {
		prop = a.s.nodes[from].sign.proposal(prop)
		prop.Proposer = a.s.nodeAddr(p)
	}
	a.s.send(from, victim, encodeProposal(prop), 0)
	for i := range a.s.nodes {
		if i == victim {
			continue
		}
		for _, t := range []consensus.VoteType{consensus.Prevote, consensus.Precommit} {
			a.s.send(from, victim, claimVote(consensus.Vote{Type: t, Height: h, Round: r, ID: v.ID}, i), 0)
		}
	}
}

// replayRelabelled re-sends an honest vote with its round moved on, and
// again with its height moved on, keeping the signature, to every honest
// validator.
func (a *adversary) replayRelabelled(v consensus.Vote) {
	i := a.s.index(v.Validator)
	if i < 0 || a.byz[i] {
		return
	}
	d := consensus.VoteDigest(ChainID, v)
	if a.relabel[d] {
		return
	}
	a.relabel[d] = true
	later, next := v, v
	later.Round++
	next.Height++
	for _, w := range []consensus.Vote{later, next} {
		msg := encodeVote(w)
		for _, to := range a.honest() {
			a.s.send(a.replayers[0], to, msg, 0)
		}
	}
}

// hijack sends, ahead of round (h, r), a proposal of a hijacker's own to
// the honest validators other than the round's proposer.
func (a *adversary) hijack(h uint64, r int32) {
	k := hr{h, r}
	if len(a.hijackers) == 0 || a.hijacked[k] {
		return
	}
	a.hijacked[k] = true
	p := a.proposer(h, r)
	if p < 0 || a.byz[p] {
		return
	}
	z := a.hijackers[0]
	msg := encodeProposal(a.s.nodes[z].sign.proposal(consensus.Proposal{Height: h, Round: r, Value: value(h, r, z, 4), ValidRound: -1}))
	for _, to := range a.honest() {
		if to != p {
			a.s.send(z, to, msg, 0)
		}
	}
}

// lure has the Selective members prevote id at (h, r) to one honest
// validator other than the proposer, and nil to the others.
func (a *adversary) lure(proposer int, h uint64, r int32, id types.Hash) {
	k := hr{h, r}
	if len(a.selective) == 0 || a.lured[k] {
		return
	}
	a.lured[k] = true
	var others []int
	for _, i := range a.honest() {
		if i != proposer {
			others = append(others, i)
		}
	}
	if len(others) == 0 {
		return
	}
	victim := others[a.s.rng.IntN(len(others))]
	for _, z := range a.selective {
		g := a.s.nodes[z].sign
		for _, to := range a.honest() {
			v := consensus.Vote{Type: consensus.Prevote, Height: h, Round: r}
			if to == victim {
				v.ID = id
			}
			a.s.send(z, to, encodeVote(g.vote(v)), 0)
		}
	}
}
