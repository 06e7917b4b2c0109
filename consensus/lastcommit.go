package consensus

import (
	"slices"

	"github.com/chaind/chaind/internal/types"
)

// The last commit: every precommit for the previous height's decision,
// not only the quorum that decided it.
//
// A core decides as soon as precommits of more than two thirds of the
// power agree, so the decision's precommits (Decide.Precommits, and the
// certificate built from them) leave out every validator whose precommit
// arrived a moment later. Counting those as having missed the block would
// punish honest but slower validators (liveness penalties count blocks a
// validator did not sign). So after deciding height h the core keeps
// collecting precommits for h, at the decided round and for the decided
// value, from members of h's validator set, while it works on h+1, and
// reports each addition as a LastCommit effect. The proposer of h+1 puts
// all of them in the parent certificate its block commits to (CometBFT's
// LastCommit, gathered during its timeout_commit, is the model); the
// window is therefore "until the next block is proposed".
//
// Precommits of h arrive here signed and checked like any other message
// (Receive, Deliver). Only the decided round and value count: a
// certificate proves one block at one round, so a precommit for nil or
// for the same block at another round cannot join it. A validator that
// precommitted only those is counted absent, as in CometBFT's commits.
// Nothing obliges a proposer to include votes it saw: a proposer can
// leave out honest precommits (beyond the quorum) and so make their
// validators look absent, a limitation CometBFT shares; it can never add
// a signature nobody made, since every one is verified against the
// height's validator set by every validator (VerifyCertificate).

// A validator can decide without having precommitted: when it finishes
// validating the proposal after the others have precommitted it, the
// decision rule (L49) fires before the rules that would make it prevote
// and precommit, and it moves on. Under load the slowest validator does
// this at nearly every height, and nothing of it would reach the next
// proposer. So a validator that decides at round r without a precommit
// at r signs one then, for the decided value, before it moves on. It
// cannot contradict anything: it has no precommit at r to conflict with,
// and it never votes at that height again. It says what is true, that
// the validator validated the decided block in time to commit it.

// precommitDecided casts our precommit for the decided value at round r
// if we are a validator with no precommit at r.
func (s *State) precommitDecided(r int32, id types.Hash) {
	if !s.isValidator() || s.round > r || (s.round == r && s.step >= StepPrecommit) {
		return // precommitted at r already (or, past r, perhaps)
	}
	v := Vote{Type: Precommit, Height: s.h, Round: r, ID: id, Validator: s.cfg.Self}
	s.own = append(s.own, VoteEvent{v})
	s.unsaved = true
	s.emit(BroadcastVote{v})
	s.book.Add(v)
}

// LastCommit reports the precommits gathered so far for the decision of
// Height, the height before the core's current one: the decision's own
// quorum and every precommit for the same round and value that arrived
// since, one per validator, in arrival order. Each LastCommit effect
// carries the whole list, so the runtime keeps only the latest.
type LastCommit struct {
	Height     uint64
	Round      int32
	ID         types.Hash
	Precommits []Vote
}

func (LastCommit) isEffect() {}

// lastCommit is the core's record behind the LastCommit effect.
type lastCommit struct {
	height uint64
	round  int32
	id     types.Hash
	vals   *ValidatorSet
	votes  []Vote
	have   map[types.Address]bool
}

// startLastCommit records the decision of the current height (before the
// core moves past it) with the precommits that made it.
func (s *State) startLastCommit(r int32, id types.Hash, pcs []Vote) {
	lc := &lastCommit{height: s.h, round: r, id: id, vals: s.vals, have: make(map[types.Address]bool, len(pcs))}
	for _, v := range pcs {
		if !lc.have[v.Validator] {
			lc.have[v.Validator] = true
			lc.votes = append(lc.votes, v)
		}
	}
	s.last = lc
}

// addLate takes a vote of a height below the current one: a precommit
// for the last decision joins the last commit, anything else is dropped.
func (s *State) addLate(v Vote) {
	lc := s.last
	if lc == nil || v.Type != Precommit || v.Height != lc.height || v.Round != lc.round || v.ID != lc.id || lc.have[v.Validator] {
		return
	}
	if _, ok := lc.vals.Index(v.Validator); !ok {
		return
	}
	lc.have[v.Validator] = true
	lc.votes = append(lc.votes, v)
	s.emit(LastCommit{Height: lc.height, Round: lc.round, ID: lc.id, Precommits: slices.Clone(lc.votes)})
}
