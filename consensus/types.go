package consensus

import (
	"fmt"
	"time"

	"github.com/chaind/chaind/internal/types"
)

// NilID is id(nil): a vote for no value. Real values never hash to zero.
var NilID types.Hash

// Value is a proposed block as the core sees it: its hash, id(v) in the
// paper, and bytes the core never looks into. Validity is asked of the
// application through RequestValidation.
type Value struct {
	ID   types.Hash
	Data []byte
}

// IsNil reports whether v is the nil value.
func (v Value) IsNil() bool { return v.ID == NilID }

// Step is step_p of the paper.
type Step uint8

// The three steps of a round.
const (
	StepPropose Step = iota
	StepPrevote
	StepPrecommit
)

func (s Step) String() string {
	switch s {
	case StepPropose:
		return "propose"
	case StepPrevote:
		return "prevote"
	case StepPrecommit:
		return "precommit"
	}
	return fmt.Sprintf("step(%d)", uint8(s))
}

// VoteType tells prevotes from precommits.
type VoteType uint8

// Vote types, numbered as they are signed.
const (
	Prevote   VoteType = 1
	Precommit VoteType = 2
)

func (t VoteType) String() string {
	switch t {
	case Prevote:
		return "prevote"
	case Precommit:
		return "precommit"
	}
	return fmt.Sprintf("votetype(%d)", uint8(t))
}

// Proposal is ⟨PROPOSAL, h, r, v, validRound⟩. Signature is opaque to the
// core; the driver signs and checks it (see SignProposal).
type Proposal struct {
	Height     uint64
	Round      int32
	Value      Value
	ValidRound int32 // -1 for a fresh value
	Proposer   types.Address
	Signature  []byte
}

// Vote is ⟨PREVOTE, h, r, id(v)⟩ or ⟨PRECOMMIT, h, r, id(v)⟩ from one
// validator. ID is NilID for a nil vote.
type Vote struct {
	Type      VoteType
	Height    uint64
	Round     int32
	ID        types.Hash
	Validator types.Address
	Signature []byte
}

// TimeoutKind names the paper's three timeouts plus the retransmission
// tick that stands in for the paper's gossip assumption.
type TimeoutKind uint8

// Timeout kinds.
const (
	TimeoutPropose TimeoutKind = iota
	TimeoutPrevote
	TimeoutPrecommit
	// TimeoutRetransmit re-sends the node's own messages of the current
	// height. The paper assumes correct processes eventually receive what
	// other correct processes sent; on a lossy network that only holds if
	// someone re-sends.
	TimeoutRetransmit
)

func (k TimeoutKind) String() string {
	if names := [...]string{"propose", "prevote", "precommit", "retransmit"}; int(k) < len(names) {
		return names[k]
	}
	return fmt.Sprintf("timeout(%d)", uint8(k))
}

// Timeout identifies one scheduled timeout.
type Timeout struct {
	Kind   TimeoutKind
	Height uint64
	Round  int32
}

// Event is an input to State.Step.
type Event interface{ isEvent() }

// Start begins consensus at the state's height (L10: upon start do StartRound(0)).
type Start struct{}

// ProposalEvent delivers a proposal whose signature the caller has checked
// (Receive does both for a message off the wire).
type ProposalEvent struct{ Proposal Proposal }

// VoteEvent delivers a vote whose signature the caller has checked
// (Receive does both for a message off the wire).
type VoteEvent struct{ Vote Vote }

// TimeoutEvent reports that a scheduled timeout fired.
type TimeoutEvent struct{ Timeout Timeout }

// ValueEvent answers RequestValue: the value this node proposes (getValue()
// of L18). An empty Value means the application had nothing; the round then
// runs without our proposal.
type ValueEvent struct {
	Height uint64
	Round  int32
	Value  Value
}

// ValidatedEvent answers RequestValidation: valid(v).
type ValidatedEvent struct {
	Height uint64
	ID     types.Hash
	Valid  bool
}

// StatusEvent reports that validator From is at Height (see
// BroadcastStatus). It is a hint, not signed: the answer to it, a
// SendDecision, carries its own proof.
type StatusEvent struct {
	From   types.Address
	Height uint64
	Round  int32
}

// ValidatorsEvent hands the core the validator set of heights From..To:
// Set is the set of height From, and each later height of the run has the
// same validators with proposer priorities advanced once per height
// (ValidatorSet.Next). The core never reads a set: the runtime hands over
// every height's before the core gets there, at New the set of the height
// it starts at and of the next, and after storing each decided height d
// the set of d+2 (a proof-of-stake chain decides a set at least two
// blocks before it runs, so it is known by then). A set that never
// changes is one event with To = math.MaxUint64.
type ValidatorsEvent struct {
	From, To uint64
	Set      *ValidatorSet
}

func (Start) isEvent()           {}
func (ValidatorsEvent) isEvent() {}
func (StatusEvent) isEvent()     {}
func (ProposalEvent) isEvent()   {}
func (VoteEvent) isEvent()       {}
func (TimeoutEvent) isEvent()    {}
func (ValueEvent) isEvent()      {}
func (ValidatedEvent) isEvent()  {}

// Effect is an output of State.Step for the runtime to carry out, in order.
type Effect interface{ isEffect() }

// BroadcastProposal asks the runtime to sign and send a proposal to all.
type BroadcastProposal struct{ Proposal Proposal }

// BroadcastVote asks the runtime to sign and send a vote to all.
type BroadcastVote struct{ Vote Vote }

// ScheduleTimeout asks for a TimeoutEvent after Duration.
type ScheduleTimeout struct {
	Timeout  Timeout
	Duration time.Duration
}

// RequestValue asks the application for a value to propose (L18 getValue).
type RequestValue struct {
	Height uint64
	Round  int32
}

// RequestValidation asks the application whether a proposed value is valid.
type RequestValidation struct {
	Height uint64
	Value  Value
}

// Decide reports decision_p[h] = v (L51), with the +2/3 precommits for it
// that the core saw at Round: the material of a commit certificate.
type Decide struct {
	Height     uint64
	Round      int32
	Value      Value
	Proposal   Proposal
	Precommits []Vote
}

// EvidenceFound reports two conflicting votes of one validator for the same
// height, round and type.
type EvidenceFound struct{ A, B Vote }

// SendDecision asks the runtime to send a lagging validator the proposal
// and precommits that decided Height, so it can decide too (L49).
type SendDecision struct {
	To         types.Address
	Height     uint64
	Proposal   Proposal
	Precommits []Vote
}

// RelayVotes asks the runtime to forward votes of other validators, as
// received (already signed). The core relays the prevotes that justify its
// validValue_p (the polka of validRound_p): the paper's gossip assumption
// says correct processes eventually receive what a correct process
// received, and without relaying, a polka that includes Byzantine votes
// may never reach a validator that missed it, so L28 could never fire.
type RelayVotes struct{ Votes []Vote }

// SendVotes asks the runtime to forward votes (already signed, any
// signer's) to one validator that is behind in rounds: see StatusEvent.
type SendVotes struct {
	To    types.Address
	Votes []Vote
}

// BroadcastStatus tells peers which height and round this node is at, so
// that peers ahead of it can send it the decision it missed.
type BroadcastStatus struct {
	Height uint64
	Round  int32
}

// Halt reports that the core cannot continue (for example the validator
// set of the next height is unknown). The core ignores events afterwards.
type Halt struct{ Err error }

func (BroadcastProposal) isEffect() {}
func (BroadcastVote) isEffect()     {}
func (ScheduleTimeout) isEffect()   {}
func (RequestValue) isEffect()      {}
func (RequestValidation) isEffect() {}
func (Decide) isEffect()            {}
func (EvidenceFound) isEffect()     {}
func (SendDecision) isEffect()      {}
func (Halt) isEffect()              {}
func (BroadcastStatus) isEffect()   {}
func (RelayVotes) isEffect()        {}
func (SendVotes) isEffect()         {}

// Timeouts configures timeoutX(r) = base + r·delta for the three steps, and
// the retransmission interval.
type Timeouts struct {
	Propose, ProposeDelta     time.Duration
	Prevote, PrevoteDelta     time.Duration
	Precommit, PrecommitDelta time.Duration
	Retransmit                time.Duration
}

// DefaultTimeouts are CometBFT's defaults.
var DefaultTimeouts = Timeouts{
	Propose: 3 * time.Second, ProposeDelta: 500 * time.Millisecond,
	Prevote: time.Second, PrevoteDelta: 500 * time.Millisecond,
	Precommit: time.Second, PrecommitDelta: 500 * time.Millisecond,
	Retransmit: 2 * time.Second,
}

// Duration returns timeoutX(r) for kind k.
func (t Timeouts) Duration(k TimeoutKind, r int32) time.Duration {
	switch k {
	case TimeoutPropose:
		return t.Propose + time.Duration(r)*t.ProposeDelta
	case TimeoutPrevote:
		return t.Prevote + time.Duration(r)*t.PrevoteDelta
	case TimeoutPrecommit:
		return t.Precommit + time.Duration(r)*t.PrecommitDelta
	}
	return t.Retransmit
}

// Persist asks the runtime to store Snapshot durably (fsync'd) before it
// carries out the effects after it. The core puts it ahead of everything
// the step wants signed and sent, after the step's decisions: a restart
// then never finds a snapshot ahead of the chain, and never lacks a
// message it already sent (so it cannot sign a contradicting one).
type Persist struct{ Snapshot Snapshot }

func (Persist) isEffect() {}
