package consensus

import (
	"errors"
	"fmt"
	"slices"

	"github.com/chaind/chaind/rlp"
)

// Snapshot is what a validator must keep on disk so that after a crash it
// neither signs a vote that contradicts one it already sent nor forgets a
// lock: h_p, round_p, step_p, the locked and valid values, and its own
// messages of h_p. It also carries the messages received at h_p (the part
// of a write-ahead log that matters): a validator that moved on because of
// a message only it received, perhaps a Byzantine one that is never sent
// again, must still be able to pass it on after a restart, or the
// validators behind it could wait forever. The runtime saves the snapshot
// (fsync'd) after every Step that broadcast something or changed the
// height or round, before sending.
type Snapshot struct {
	Height            uint64
	Round             int32
	Step              Step
	LockedValue       Value
	LockedRound       int32
	ValidValue        Value
	ValidRound        int32
	Proposals         []Proposal // our own
	Votes             []Vote     // our own
	Received          []Vote     // everyone else's votes of Height
	ReceivedProposals []Proposal
}

// Snapshot returns the state to persist.
func (s *State) Snapshot() Snapshot {
	snap := Snapshot{Height: s.h, Round: s.round, Step: s.step,
		LockedValue: s.lockedValue, LockedRound: s.lockedRound,
		ValidValue: s.validValue, ValidRound: s.validRound}
	for _, ev := range s.own {
		switch e := ev.(type) {
		case ProposalEvent:
			snap.Proposals = append(snap.Proposals, e.Proposal)
		case VoteEvent:
			snap.Votes = append(snap.Votes, e.Vote)
		}
	}
	for _, v := range s.book.All() {
		if v.Validator != s.cfg.Self {
			snap.Received = append(snap.Received, v)
		}
	}
	rounds := make([]int32, 0, len(s.proposals))
	for r := range s.proposals {
		rounds = append(rounds, r)
	}
	slices.Sort(rounds)
	for _, r := range rounds {
		for _, p := range s.proposals[r] {
			if p.Proposer != s.cfg.Self {
				snap.ReceivedProposals = append(snap.ReceivedProposals, p)
			}
		}
	}
	return snap
}

// ErrSnapshotHeight is returned by Restore for a snapshot of another height.
var ErrSnapshotHeight = errors.New("consensus: snapshot is for another height")

// Restore loads a snapshot into a state that has not started yet. A
// snapshot of an older height is useless (that height is decided) and is
// rejected with ErrSnapshotHeight; the caller then just starts afresh.
func (s *State) Restore(snap Snapshot) error {
	if s.started {
		return errors.New("consensus: Restore after Start")
	}
	if snap.Height != s.h {
		return fmt.Errorf("%w: %d, state is at %d", ErrSnapshotHeight, snap.Height, s.h)
	}
	s.round, s.step = snap.Round, snap.Step
	s.lockedValue, s.lockedRound = snap.LockedValue, snap.LockedRound
	s.validValue, s.validRound = snap.ValidValue, snap.ValidRound
	for _, p := range snap.Proposals {
		s.own = append(s.own, ProposalEvent{p})
		s.validity[p.Value.ID] = valid
		s.addProposal(p)
	}
	for _, v := range snap.Votes {
		s.own = append(s.own, VoteEvent{v})
		s.book.Add(v)
		s.markDirty(v.Round)
	}
	for _, p := range snap.ReceivedProposals {
		s.onProposal(p)
	}
	for _, v := range snap.Received {
		if v.Height == s.h {
			s.book.Add(v)
			s.markDirty(v.Round)
		}
	}
	s.effects = nil
	clear(s.asked) // validation is asked again by resume
	if !s.lockedValue.IsNil() {
		s.validity[s.lockedValue.ID] = valid
	}
	if !s.validValue.IsNil() {
		s.validity[s.validValue.ID] = valid
	}
	s.restored = true
	s.savedH, s.savedR = s.h, s.round // it is what is on disk
	return nil
}

// seal adds the Persist effect a step needs. A validator that sent a vote
// and then crashed before it was on disk could, after the restart, sign a
// different vote in the same round: a double sign that the network sees
// as Byzantine and that can break agreement. So the snapshot goes first;
// only the step's decisions go before it, so that the block a new height
// follows is stored before the snapshot of that height.
func (s *State) seal() {
	if !s.unsaved && s.h == s.savedH && s.round == s.savedR {
		return
	}
	s.unsaved, s.savedH, s.savedR = false, s.h, s.round
	p := Persist{Snapshot: s.Snapshot()}
	if !s.on(rulePersistFirst) {
		s.emit(p) // after the broadcasts: a crash between them loses the record
		return
	}
	out := make([]Effect, 0, len(s.effects)+1)
	for _, e := range s.effects {
		if _, ok := e.(Decide); ok {
			out = append(out, e)
		}
	}
	out = append(out, p)
	for _, e := range s.effects {
		if _, ok := e.(Decide); !ok {
			out = append(out, e)
		}
	}
	s.effects = out
}

// resume restarts a restored state at (round_p, step_p) instead of L10's
// StartRound(0): re-sending what we already said, and re-arming the timeout
// of the step we were in. Rules with "for the first time" guards may fire
// again; that only re-schedules timeouts.
func (s *State) resume() {
	s.markDirty(s.round)
	rounds := make([]int32, 0, len(s.proposals))
	for r := range s.proposals {
		rounds = append(rounds, r)
	}
	slices.Sort(rounds)
	for _, r := range rounds {
		for _, p := range s.proposals[r] {
			if s.validity[p.Value.ID] == unknown && !s.asked[p.Value.ID] {
				s.asked[p.Value.ID] = true
				s.emit(RequestValidation{Height: s.h, Value: p.Value})
			}
		}
	}
	for _, ev := range s.own {
		switch e := ev.(type) {
		case ProposalEvent:
			s.emit(BroadcastProposal{e.Proposal})
		case VoteEvent:
			s.emit(BroadcastVote{e.Vote})
		}
	}
	if s.step != StepPropose {
		return // L34/L47 re-arm the prevote and precommit timeouts from the log
	}
	if s.proposer(s.round) == s.cfg.Self && s.isValidator() {
		for _, p := range s.proposals[s.round] {
			if p.Proposer == s.cfg.Self {
				s.scheduleTimeout(TimeoutPropose, s.round)
				return // already proposed in this round; never propose twice
			}
		}
		s.round-- // StartRound(round_p) again
		s.startRound(s.round + 1)
		return
	}
	s.scheduleTimeout(TimeoutPropose, s.round)
}

// Encode returns the RLP encoding of the snapshot:
// [height, round+1, step, lockedValue, lockedRound+1, validValue, validRound+1,
// [proposals], [votes], [received votes], [received proposals]]
// with values as [id, data]. Rounds are offset by one so -1 encodes as 0.
func (snap *Snapshot) Encode() []byte {
	var b rlp.Buffer
	l := b.List()
	b.WriteUint64(snap.Height)
	b.WriteUint64(uint64(snap.Round + 1))
	b.WriteUint64(uint64(snap.Step))
	writeValue(&b, snap.LockedValue)
	b.WriteUint64(uint64(snap.LockedRound + 1))
	writeValue(&b, snap.ValidValue)
	b.WriteUint64(uint64(snap.ValidRound + 1))
	pl := b.List()
	for _, p := range snap.Proposals {
		b.WriteRaw(EncodeProposal(p))
	}
	b.ListEnd(pl)
	vl := b.List()
	for _, v := range snap.Votes {
		b.WriteRaw(EncodeVote(v))
	}
	b.ListEnd(vl)
	rl := b.List()
	for _, v := range snap.Received {
		b.WriteRaw(EncodeVote(v))
	}
	b.ListEnd(rl)
	rpl := b.List()
	for _, p := range snap.ReceivedProposals {
		b.WriteRaw(EncodeProposal(p))
	}
	b.ListEnd(rpl)
	b.ListEnd(l)
	return b.Bytes()
}

func writeValue(b *rlp.Buffer, v Value) {
	l := b.List()
	b.WriteBytes(v.ID[:])
	b.WriteBytes(v.Data)
	b.ListEnd(l)
}

// DecodeSnapshot parses Snapshot.Encode output.
func DecodeSnapshot(enc []byte) (Snapshot, error) {
	var snap Snapshot
	d := newDecoder(enc)
	snap.Height = d.uint64()
	snap.Round = d.round()
	snap.Step = Step(d.uint64())
	snap.LockedValue = d.value()
	snap.LockedRound = d.round()
	snap.ValidValue = d.value()
	snap.ValidRound = d.round()
	for _, raw := range d.items() {
		p, err := DecodeProposal(raw)
		if err != nil {
			return Snapshot{}, err
		}
		snap.Proposals = append(snap.Proposals, p)
	}
	for _, raw := range d.items() {
		v, err := DecodeVote(raw)
		if err != nil {
			return Snapshot{}, err
		}
		snap.Votes = append(snap.Votes, v)
	}
	for _, raw := range d.items() {
		v, err := DecodeVote(raw)
		if err != nil {
			return Snapshot{}, err
		}
		snap.Received = append(snap.Received, v)
	}
	for _, raw := range d.items() {
		p, err := DecodeProposal(raw)
		if err != nil {
			return Snapshot{}, err
		}
		snap.ReceivedProposals = append(snap.ReceivedProposals, p)
	}
	if err := d.finish(); err != nil {
		return Snapshot{}, fmt.Errorf("consensus: snapshot: %w", err)
	}
	if snap.Step > StepPrecommit {
		return Snapshot{}, fmt.Errorf("consensus: snapshot: bad step %d", snap.Step)
	}
	return snap, nil
}
