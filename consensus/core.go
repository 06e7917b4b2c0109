package consensus

import (
	"errors"
	"fmt"
	"slices"

	"github.com/chaind/chaind/internal/types"
)

// ValidatorSource gives the validator set of each height. The core never
// reads one: its runtime does (internal/pos from the chain, consensus/cycle
// for a fixed set) and hands the core the sets as data (ValidatorsEvent).
type ValidatorSource interface {
	ValidatorSet(height uint64) (*ValidatorSet, error)
}

// Config configures a State.
type Config struct {
	Self     types.Address // this node; it votes only if it is in the set
	Timeouts Timeouts
	// FutureHeights is how many heights ahead of h_p messages are buffered
	// (default 2), so a node that decides a little late loses nothing.
	FutureHeights uint64
	// KeepDecisions is how many decided heights are remembered to help
	// lagging validators catch up (default 64).
	KeepDecisions int
	// ChainID is the chain messages are signed for: Receive rejects a
	// message whose signature does not recover, for this chain, to the
	// validator it names.
	ChainID uint64
	// SigCache, when set, remembers signatures already checked. Cores that
	// share one (the simulator's) check each message once, not once per
	// recipient. Not safe for concurrent use.
	SigCache *SigCache

	off rule // safety rules switched off: tests only (see rules.go)
}

// Limits on what a peer can make the core hold.
const (
	maxRoundsAhead       = 1000 // rounds beyond round_p+this are dropped (memory bound against Byzantine senders)
	maxBufferedPerHt     = 1 << 14
	maxProposalsPerRound = 4 // an honest proposer sends one; more is equivocation
)

type validity uint8

const (
	unknown validity = iota
	valid
	invalid
)

type decision struct {
	proposal   Proposal
	precommits []Vote
}

type evidenceKey struct {
	who   types.Address
	round int32
	typ   VoteType
}

// State is one process p of Algorithm 1. Field names follow the paper.
type State struct {
	cfg Config

	// The variables of Algorithm 1, L1-L9. decision_p lives in the Decide
	// effects: once decided, the state moves to the next height at once.
	h           uint64 // h_p
	round       int32  // round_p
	step        Step   // step_p
	lockedValue Value  // lockedValue_p
	lockedRound int32  // lockedRound_p
	validValue  Value  // validValue_p
	validRound  int32  // validRound_p

	// The validator sets of h_p and the heights after it, as the runtime
	// handed them over (ValidatorsEvent), oldest first.
	sets []ValidatorsEvent

	// The message log of height h_p.
	vals      *ValidatorSet
	book      *VoteBook
	proposals map[int32][]Proposal // only those from proposer(h_p, r)
	validity  map[types.Hash]validity
	asked     map[types.Hash]bool // validation requested
	evidence  map[evidenceKey]bool
	own       []Event // our own proposals and votes of h_p, for retransmission

	// Proposer queue of h_p, extended lazily round by round.
	proposerSeq  []types.Address
	proposerPrio []int64

	// "for the first time" guards of round_p.
	didL34, didL36, didL47 bool
	awaitingValue          bool

	// Persistence: has this height's state changed in a way a restart
	// must not forget since the last Persist effect?
	unsaved   bool // signed something new
	savedH    uint64
	savedR    int32
	maxSeen   uint64 // highest height seen in any message: are we behind?
	started   bool
	restored  bool
	halted    bool
	dirty     []int32 // rounds that got new messages since the last evaluation (a set; usually one or two)
	future    map[uint64][]Event
	decisions map[uint64]decision
	last      *lastCommit // precommits for the previous height's decision (lastcommit.go)
	effects   []Effect
}

// New returns the state of a process that will run consensus from height
// h, with the validator sets it knows so far: at least h's, and h+1's too
// unless the runtime hands that over before h is decided. Nothing happens
// until it is given a Start event.
func New(cfg Config, h uint64, sets ...ValidatorsEvent) (*State, error) {
	if cfg.FutureHeights == 0 {
		cfg.FutureHeights = 2
	}
	if cfg.KeepDecisions == 0 {
		cfg.KeepDecisions = 64
	}
	s := &State{cfg: cfg, future: make(map[uint64][]Event), decisions: make(map[uint64]decision)}
	for _, e := range sets {
		if err := s.addSets(e); err != nil {
			return nil, err
		}
	}
	if err := s.enterHeight(h); err != nil {
		return nil, err
	}
	return s, nil
}

// Height is h_p.
func (s *State) Height() uint64 { return s.h }

// Round is round_p.
func (s *State) Round() int32 { return s.round }

// CurrentStep is step_p.
func (s *State) CurrentStep() Step { return s.step }

// Locked returns lockedValue_p and lockedRound_p.
func (s *State) Locked() (Value, int32) { return s.lockedValue, s.lockedRound }

// ValidValue returns validValue_p and validRound_p.
func (s *State) ValidValue() (Value, int32) { return s.validValue, s.validRound }

// ValidatorSet is the validator set of h_p.
func (s *State) ValidatorSet() *ValidatorSet { return s.vals }

// maxSetRuns bounds the runs of validator sets the core holds: the
// runtime hands over a height's set a height or two ahead.
const maxSetRuns = 16

// addSets records a run of heights' validator set. A run for heights the
// core has passed is dropped; a later run overrides an earlier one for
// the heights both cover.
func (s *State) addSets(e ValidatorsEvent) error {
	if e.Set == nil || e.To < e.From {
		return errors.New("consensus: a validator set event without a set or heights")
	}
	if e.To < s.h {
		return nil
	}
	s.sets = append(s.sets, e)
	if len(s.sets) > maxSetRuns {
		s.sets = slices.Delete(s.sets, 0, len(s.sets)-maxSetRuns)
	}
	return nil
}

// setOf is the validator set of height h, from the latest run that covers
// it; the run is moved up to start at h, so the next height's set is one
// step of priorities away.
func (s *State) setOf(h uint64) (*ValidatorSet, error) {
	for i := len(s.sets) - 1; i >= 0; i-- {
		e := &s.sets[i]
		if e.From > h || e.To < h {
			continue
		}
		set := e.Set
		for range h - e.From {
			set = set.Next()
		}
		e.From, e.Set = h, set
		s.sets = slices.DeleteFunc(s.sets, func(o ValidatorsEvent) bool { return o.To < h })
		return set, nil
	}
	return nil, fmt.Errorf("consensus: the validator set of height %d was not handed over", h)
}

// enterHeight resets the per-height variables (L53) for height h.
func (s *State) enterHeight(h uint64) error {
	vals, err := s.setOf(h)
	if err != nil {
		return err
	}
	s.h, s.round, s.step = h, 0, StepPropose
	s.lockedValue, s.lockedRound = Value{}, -1
	s.validValue, s.validRound = Value{}, -1
	s.vals = vals
	s.book = NewVoteBook(h, vals)
	s.book.noDedup, s.book.noMembership = !s.on(ruleDedup), !s.on(ruleMembership)
	s.proposals = make(map[int32][]Proposal)
	s.validity = make(map[types.Hash]validity)
	s.asked = make(map[types.Hash]bool)
	s.evidence = make(map[evidenceKey]bool)
	s.own = nil
	s.proposerSeq, s.proposerPrio = nil, slices.Clone(vals.prio)
	s.dirty = s.dirty[:0]
	s.didL34, s.didL36, s.didL47, s.awaitingValue = false, false, false, false
	return nil
}

// proposer is proposer(h_p, r).
func (s *State) proposer(r int32) types.Address {
	for int32(len(s.proposerSeq)) <= r {
		s.proposerSeq = append(s.proposerSeq, s.vals.vals[s.vals.selectOnce(s.proposerPrio)].Address)
	}
	return s.proposerSeq[r]
}

func (s *State) isValidator() bool { _, ok := s.vals.Index(s.cfg.Self); return ok }

// quorum is "2f+1": strictly more than two thirds of the power.
func (s *State) quorum(power int64) bool {
	if !s.on(ruleQuorum) {
		return 2*power > s.vals.total // a simple majority: two can disagree
	}
	return s.vals.HasQuorum(power)
}

// Step applies one event and returns the effects, in the order the runtime
// must carry them out.
func (s *State) Step(ev Event) []Effect {
	if s.halted {
		return nil
	}
	s.effects = nil
	switch e := ev.(type) {
	case Start:
		if !s.started {
			s.started = true
			if s.restored {
				s.resume()
			} else {
				s.startRound(0) // L10
			}
			s.scheduleRetransmit()
		}
	case ProposalEvent:
		s.onProposal(e.Proposal)
	case VoteEvent:
		s.onVote(e.Vote)
	case TimeoutEvent:
		s.onTimeout(e.Timeout)
	case ValueEvent:
		s.onValue(e)
	case ValidatedEvent:
		s.onValidated(e)
	case StatusEvent:
		s.onStatus(e)
	case ValidatorsEvent:
		// Data for heights to come: nothing of the current one changes,
		// so nothing is evaluated (a runtime may hand sets over while it
		// carries out another step's effects).
		if err := s.addSets(e); err != nil {
			s.halted = true
			s.emit(Halt{Err: err})
		}
		return s.effects
	}
	if s.started && !s.halted {
		s.evaluate()
		s.seal()
	}
	return s.effects
}

func (s *State) emit(e Effect) { s.effects = append(s.effects, e) }

// StartRound, L11-L21.
func (s *State) startRound(r int32) {
	s.round = r          // L12
	s.step = StepPropose // L13
	s.didL34, s.didL36, s.didL47 = false, false, false
	s.awaitingValue = false
	s.markDirty(r)                                      // messages of r may have arrived before we got here
	if s.proposer(r) == s.cfg.Self && s.isValidator() { // L14
		if !s.validValue.IsNil() && s.on(ruleValidRound) { // L15
			s.broadcastProposal(s.validValue, s.validRound) // L16, L19
		} else {
			s.awaitingValue = true // L18: getValue(), answered by a ValueEvent
			s.emit(RequestValue{Height: s.h, Round: r})
		}
		return
	}
	s.scheduleTimeout(TimeoutPropose, r) // L21
}

func (s *State) scheduleTimeout(k TimeoutKind, r int32) {
	s.emit(ScheduleTimeout{Timeout: Timeout{Kind: k, Height: s.h, Round: r}, Duration: s.cfg.Timeouts.Duration(k, r)})
}

func (s *State) scheduleRetransmit() { s.scheduleTimeout(TimeoutRetransmit, s.round) }

// onValue completes L18-L19 once the application produced a value.
func (s *State) onValue(e ValueEvent) {
	if e.Height != s.h || e.Round != s.round || s.step != StepPropose || !s.awaitingValue {
		return
	}
	s.awaitingValue = false
	if e.Value.IsNil() {
		// Nothing to propose: let the round time out like everyone else's.
		s.scheduleTimeout(TimeoutPropose, s.round)
		return
	}
	s.validity[e.Value.ID] = valid // we built it
	s.broadcastProposal(e.Value, -1)
}

// broadcastProposal is L19: broadcast ⟨PROPOSAL, h_p, round_p, proposal, validRound_p⟩.
// Our own message is delivered to ourselves at once.
func (s *State) broadcastProposal(v Value, vr int32) {
	p := Proposal{Height: s.h, Round: s.round, Value: v, ValidRound: vr, Proposer: s.cfg.Self}
	s.own = append(s.own, ProposalEvent{p})
	s.unsaved = true
	s.emit(BroadcastProposal{p})
	s.addProposal(p)
}

func (s *State) broadcastVote(t VoteType, id types.Hash) {
	if !s.isValidator() {
		return
	}
	v := Vote{Type: t, Height: s.h, Round: s.round, ID: id, Validator: s.cfg.Self}
	s.own = append(s.own, VoteEvent{v})
	s.unsaved = true
	s.emit(BroadcastVote{v})
	s.book.Add(v)
	s.markDirty(v.Round)
}

func (s *State) onProposal(p Proposal) {
	switch {
	case p.Height > s.h:
		s.buffer(p.Height, ProposalEvent{p})
		return
	case p.Height < s.h:
		return
	}
	if p.Round < 0 || p.Round > s.round+maxRoundsAhead || p.ValidRound < -1 || p.ValidRound >= p.Round ||
		p.Value.IsNil() || (s.on(ruleProposer) && p.Proposer != s.proposer(p.Round)) {
		return // not ⟨PROPOSAL⟩ "from proposer(h_p, r)"
	}
	s.addProposal(p)
}

func (s *State) addProposal(p Proposal) {
	for _, q := range s.proposals[p.Round] {
		if q.Value.ID == p.Value.ID && q.ValidRound == p.ValidRound {
			return
		}
	}
	if len(s.proposals[p.Round]) >= maxProposalsPerRound {
		return
	}
	s.proposals[p.Round] = append(s.proposals[p.Round], p)
	s.book.MarkSender(p.Round, p.Proposer)
	s.markDirty(p.Round)
	if s.validity[p.Value.ID] == unknown && !s.asked[p.Value.ID] {
		s.asked[p.Value.ID] = true
		s.emit(RequestValidation{Height: s.h, Value: p.Value})
	}
}

func (s *State) onVote(v Vote) {
	switch {
	case v.Height > s.h:
		s.buffer(v.Height, VoteEvent{v})
		return
	case v.Height < s.h:
		s.addLate(v)
		return
	}
	if v.Round > s.round+maxRoundsAhead {
		return
	}
	res, old, err := s.book.Add(v)
	if err != nil {
		return
	}
	switch res {
	case Added:
		s.markDirty(v.Round)
	case Conflict:
		s.markDirty(v.Round) // the vote still counts for its value
		k := evidenceKey{v.Validator, v.Round, v.Type}
		if !s.evidence[k] {
			s.evidence[k] = true
			s.emit(EvidenceFound{A: old, B: v})
		}
	}
}

func (s *State) buffer(h uint64, ev Event) {
	s.maxSeen = max(s.maxSeen, h)
	if h > s.h+s.cfg.FutureHeights || len(s.future[h]) >= maxBufferedPerHt {
		return
	}
	s.future[h] = append(s.future[h], ev)
}

func (s *State) onValidated(e ValidatedEvent) {
	if e.Height != s.h || s.validity[e.ID] != unknown {
		return
	}
	if e.Valid {
		s.validity[e.ID] = valid
	} else {
		s.validity[e.ID] = invalid
	}
	for r, ps := range s.proposals {
		for _, p := range ps {
			if p.Value.ID == e.ID {
				s.markDirty(r)
			}
		}
	}
}

func (s *State) onTimeout(t Timeout) {
	if t.Height != s.h {
		return
	}
	switch t.Kind {
	case TimeoutPropose: // L57-L60
		if t.Round == s.round && s.step == StepPropose {
			s.broadcastVote(Prevote, NilID) // L59
			s.step = StepPrevote            // L60
		}
	case TimeoutPrevote: // L61-L64
		if t.Round == s.round && s.step == StepPrevote {
			s.broadcastVote(Precommit, NilID) // L63
			s.step = StepPrecommit            // L64
		}
	case TimeoutPrecommit: // L65-L67
		if t.Round == s.round {
			s.startRound(s.round + 1) // L67
		}
	case TimeoutRetransmit:
		for _, ev := range s.own {
			switch e := ev.(type) {
			case ProposalEvent:
				s.emit(BroadcastProposal{e.Proposal})
			case VoteEvent:
				s.emit(BroadcastVote{e.Vote})
			}
		}
		if s.validRound >= 0 {
			if pol := s.book.Votes(s.validRound, Prevote, s.validValue.ID); len(pol) > 0 {
				s.emit(RelayVotes{Votes: pol})
			}
		}
		s.emit(BroadcastStatus{Height: s.h, Round: s.round})
		s.scheduleRetransmit()
	}
}

// RememberDecision gives the core a decision it made before a restart (the
// runtime keeps them with the chain), so it can still help validators that
// lag behind: see SendDecision.
func (s *State) RememberDecision(d Decide) {
	if d.Height < s.h {
		s.decisions[d.Height] = decision{proposal: d.Proposal, precommits: d.Precommits}
	}
}

// onStatus helps a validator that says it is behind. At an older height it
// gets the proposal and precommits that decided it. At our height but an
// older round it gets what moved us on: the precommits of its round (2f+1
// of them start its timeoutPrecommit, L47) and the votes of our round (f+1
// senders let it skip ahead, L55). This is the gossip the paper assumes.
func (s *State) onStatus(e StatusEvent) {
	if e.Height > s.h || e.From == s.cfg.Self {
		s.maxSeen = max(s.maxSeen, e.Height)
		return
	}
	if e.Height == s.h {
		if e.Round < 0 || e.Round >= s.round {
			return
		}
		var votes []Vote
		for _, id := range s.book.IDs(e.Round, Precommit) {
			votes = append(votes, s.book.Votes(e.Round, Precommit, id)...)
		}
		for _, t := range []VoteType{Prevote, Precommit} {
			for _, id := range s.book.IDs(s.round, t) {
				votes = append(votes, s.book.Votes(s.round, t, id)...)
			}
		}
		if len(votes) > 0 {
			s.emit(SendVotes{To: e.From, Votes: votes})
		}
		return
	}
	if d, ok := s.decisions[e.Height]; ok {
		s.emit(SendDecision{To: e.From, Height: e.Height, Proposal: d.proposal, Precommits: d.precommits})
	}
}

// evaluate applies upon-rules until none fires. The paper's rules are
// guarded conditions over the message log; evaluating them to a fixed
// point after every event is exactly "upon ... do".
func (s *State) evaluate() {
	for !s.halted {
		if s.decideRule() || s.roundSkipRule() || s.currentRoundRules() {
			continue
		}
		break
	}
	s.dirty = s.dirty[:0]
}

func (s *State) markDirty(r int32) {
	if !slices.Contains(s.dirty, r) {
		s.dirty = append(s.dirty, r)
	}
}

// decideRule is L49-L54:
//
//	upon ⟨PROPOSAL, h_p, r, v, ∗⟩ from proposer(h_p, r) AND
//	     2f+1 ⟨PRECOMMIT, h_p, r, id(v)⟩ while decision_p[h_p] = nil
func (s *State) decideRule() bool {
	slices.Sort(s.dirty) // lowest round first, whatever the arrival order
	for _, r := range s.dirty {
		for _, p := range s.proposals[r] {
			if !s.quorum(s.book.Power(r, Precommit, p.Value.ID)) {
				continue
			}
			if s.validity[p.Value.ID] != valid { // L50
				continue // unknown: waiting for the application; invalid: never
			}
			s.decide(p, r)
			return true
		}
	}
	return false
}

func (s *State) decide(p Proposal, r int32) {
	s.precommitDecided(r, p.Value.ID)
	pcs := s.book.Votes(r, Precommit, p.Value.ID)
	s.emit(Decide{Height: s.h, Round: r, Value: p.Value, Proposal: p, Precommits: pcs}) // L51
	s.decisions[s.h] = decision{proposal: p, precommits: pcs}
	s.startLastCommit(r, p.Value.ID, pcs)
	s.emit(LastCommit{Height: s.h, Round: r, ID: p.Value.ID, Precommits: slices.Clone(s.last.votes)})
	delete(s.decisions, s.h-uint64(min(uint64(s.cfg.KeepDecisions), s.h)))
	next := s.h + 1 // L52
	for h := range s.future {
		if h <= next-1 {
			delete(s.future, h)
		}
	}
	if err := s.enterHeight(next); err != nil { // L53
		s.halted = true
		s.emit(Halt{Err: err})
		return
	}
	s.startRound(0) // L54
	s.scheduleRetransmit()
	if s.maxSeen > next {
		// Others are ahead: ask for the next decision now rather than at
		// the next retransmission tick, so catching up takes one round
		// trip per height.
		s.emit(BroadcastStatus{Height: next, Round: 0})
	}
	buffered := s.future[next]
	delete(s.future, next)
	for _, ev := range buffered {
		switch e := ev.(type) {
		case ProposalEvent:
			s.onProposal(e.Proposal)
		case VoteEvent:
			s.onVote(e.Vote)
		}
	}
}

// roundSkipRule is L55-L56:
//
//	upon f+1 ⟨∗, h_p, round, ∗, ∗⟩ with round > round_p do StartRound(round)
func (s *State) roundSkipRule() bool {
	best := int32(-1)
	for _, r := range s.dirty {
		if r > s.round && r > best && s.vals.HasOneThird(s.book.SenderPower(r)) {
			best = r
		}
	}
	if best < 0 {
		return false
	}
	s.startRound(best)
	return true
}

// currentRoundRules are the rules about round_p, L22-L48.
func (s *State) currentRoundRules() bool {
	r := s.round
	props := s.proposals[r]

	if s.step == StepPropose {
		for _, p := range props {
			// L22: upon ⟨PROPOSAL, h_p, round_p, v, −1⟩ from proposer(h_p, round_p)
			//      while step_p = propose
			if p.ValidRound == -1 {
				val := s.validity[p.Value.ID]
				if val == unknown {
					continue
				}
				if val == valid && (!s.on(ruleLocking) || s.lockedRound == -1 || s.lockedValue.ID == p.Value.ID) { // L23
					s.broadcastVote(Prevote, p.Value.ID) // L24
				} else {
					s.broadcastVote(Prevote, NilID) // L26
				}
				s.step = StepPrevote // L27
				return true
			}
			// L28: upon ⟨PROPOSAL, h_p, round_p, v, vr⟩ from proposer(h_p, round_p)
			//      AND 2f+1 ⟨PREVOTE, h_p, vr, id(v)⟩ while step_p = propose ∧ (vr ≥ 0 ∧ vr < round_p)
			vr := p.ValidRound
			if vr >= 0 && vr < r && (!s.on(rulePolka) || s.quorum(s.book.Power(vr, Prevote, p.Value.ID))) {
				val := s.validity[p.Value.ID]
				if val == unknown {
					continue
				}
				if val == valid && (!s.on(ruleLocking) || s.lockedRound <= vr || s.lockedValue.ID == p.Value.ID) { // L29
					s.broadcastVote(Prevote, p.Value.ID) // L30
				} else {
					s.broadcastVote(Prevote, NilID) // L32
				}
				s.step = StepPrevote // L33
				return true
			}
		}
	}

	// L34: upon 2f+1 ⟨PREVOTE, h_p, round_p, ∗⟩ while step_p = prevote for the first time
	if s.step == StepPrevote && !s.didL34 && s.quorum(s.book.Sum(r, Prevote)) {
		s.didL34 = true
		s.scheduleTimeout(TimeoutPrevote, r) // L35
		return true
	}

	// L36: upon ⟨PROPOSAL, h_p, round_p, v, ∗⟩ from proposer(h_p, round_p) AND
	//      2f+1 ⟨PREVOTE, h_p, round_p, id(v)⟩ while valid(v) ∧ step_p ≥ prevote for the first time
	if s.step >= StepPrevote && !s.didL36 {
		for _, p := range props {
			if s.validity[p.Value.ID] != valid || !s.quorum(s.book.Power(r, Prevote, p.Value.ID)) {
				continue
			}
			s.didL36 = true
			if s.step == StepPrevote { // L37
				s.lockedValue, s.lockedRound = p.Value, r // L38, L39
				s.broadcastVote(Precommit, p.Value.ID)    // L40
				s.step = StepPrecommit                    // L41
			}
			s.validValue, s.validRound = p.Value, r // L42, L43
			return true
		}
	}

	// L44: upon 2f+1 ⟨PREVOTE, h_p, round_p, nil⟩ while step_p = prevote
	if s.step == StepPrevote && s.quorum(s.book.Power(r, Prevote, NilID)) {
		s.broadcastVote(Precommit, NilID) // L45
		s.step = StepPrecommit            // L46
		return true
	}

	// L47: upon 2f+1 ⟨PRECOMMIT, h_p, round_p, ∗⟩ for the first time
	if !s.didL47 && s.quorum(s.book.Sum(r, Precommit)) {
		s.didL47 = true
		s.scheduleTimeout(TimeoutPrecommit, r) // L48
		return true
	}
	return false
}
