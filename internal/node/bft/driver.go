// Package bft runs the consensus core (package consensus, a pure state
// machine) for real inside a node: the Driver feeds it from a Transport and
// a Clock, signs what it wants broadcast, takes what arrives checked by
// the transport (consensus.Verified), asks an App to build, validate and commit blocks, hands
// double-sign evidence to the staking layer, and persists the core's
// snapshot (fsync'd) before anything it signed leaves the process, so a
// restarted validator never double-signs.
//
// ChainApp is the App of a chaind validator: it proposes blocks built from
// the transaction pool, validates others' blocks with the chain's own
// validation plus the check of the parent's commit certificate that every
// block carries and commits to, and stores each decided block with its
// certificate.
//
// The package is the I/O half of consensus: goroutines, timers, files and
// the in-process transport live here so that consensus itself stays pure.
package bft

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/types"
)

// Transport carries encoded consensus messages between validators. It may
// drop, delay or reorder them; the core copes.
type Transport interface {
	Broadcast(msg []byte)
	Send(to types.Address, msg []byte)
	// Receive delivers incoming messages, decoded and checked where they
	// arrived (consensus.VerifyMessage): the driver does not check them
	// again, and the core takes nothing else.
	Receive() <-chan consensus.Verified
}

// Clock is the time source: the system clock in production, a fake one in
// tests.
type Clock interface {
	Now() time.Time
	AfterFunc(d time.Duration, f func()) (stop func() bool)
}

// SystemClock is the wall clock.
type SystemClock struct{}

// Now implements Clock.
func (SystemClock) Now() time.Time { return time.Now() }

// AfterFunc implements Clock.
func (SystemClock) AfterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

// App is the application the validator decides blocks for.
//
// Propose and Validate run off the driver's goroutine (building or
// executing a block takes a while, and the driver must keep voting and
// answering peers meanwhile); ctx is cancelled once the core has moved past
// the height (Validate) or round (Propose) that asked, and a result that
// arrives late anyway is ignored by the core. Commit runs on the driver's
// goroutine: the core starts the next height only after it returns.
type App interface {
	// Propose builds the value to propose at height (getValue() of L18).
	// It may wait, e.g. for the minimum block time or for transactions.
	Propose(ctx context.Context, height uint64) (consensus.Value, error)
	// Validate checks a value proposed at height: valid(v).
	Validate(ctx context.Context, height uint64, v consensus.Value) error
	// Commit applies a decided value with its commit certificate.
	Commit(v consensus.Value, cert *consensus.Certificate) error
}

// LastCommitter is an App that puts every precommit for its head that
// arrived by the time it proposes the next block into that block's parent
// certificate (consensus.LastCommit), so that validators whose precommits
// came after the quorum are not counted absent. The driver calls it on
// its goroutine, after Commit, with a certificate for the committed head
// each time the core reports another precommit for it.
type LastCommitter interface {
	LastCommit(cert *consensus.Certificate)
}

// Config configures a Driver.
type Config struct {
	Signer     *consensus.Signer
	Validators consensus.ValidatorSource
	Timeouts   consensus.Timeouts
	Transport  Transport
	Clock      Clock // default SystemClock
	App        App
	// Height is the first height to decide: the last committed height + 1.
	Height uint64
	// StateFile is where the core's snapshot is persisted. Empty means no
	// persistence, which is only safe for throwaway networks.
	StateFile string
	// State, when set, keeps the snapshot instead of StateFile (a
	// MemState across restarts in one process, or a test's faulty store).
	State StateStore
	// ResetStateAhead makes New start afresh when the state file is ahead
	// of the chain (the block store lost blocks it had committed, e.g. a
	// damaged file was cut) instead of refusing to run. It is only safe
	// for a validator that is the whole validator set: nobody else holds
	// votes of its that a fresh start could contradict.
	ResetStateAhead bool
	Evidence        consensus.EvidenceSink // optional
	Logf            func(format string, args ...any)
	// Stats, when set, is kept up to date for metrics.
	Stats *Stats
	// Stalled, when set, is called on each timer that fires once the
	// current height has gone on for StallAfter (default 10 s) without a
	// decision: this validator waits for a quorum it cannot reach (peers
	// down, a partition), which its operator must be able to see. A lone
	// validator never leaves round 0 (no quorum schedules the later
	// timeouts), so time, not the round, tells.
	Stalled    func(height uint64, round int32, waited time.Duration)
	StallAfter time.Duration
	// ProposeFailed, when set, hears of each block this validator was
	// asked to propose and could not build (the round then times out):
	// a chain whose blocks cannot be built must say why at a level an
	// operator reads. Unset, the failure goes to Logf.
	ProposeFailed func(height uint64, round int32, err error)
}

// Stats count what the driver saw, for metrics. They are read from other
// goroutines.
type Stats struct {
	Rounds   atomic.Uint64 // rounds entered (a new height starts round 0)
	Timeouts atomic.Uint64 // propose, prevote and precommit timeouts that fired (not retransmits)
}

// ErrWouldDoubleSign is returned when the core asks for a vote that
// contradicts one already signed and persisted. It means a bug or a
// corrupted state file; the driver stops rather than sign.
var ErrWouldDoubleSign = errors.New("bft: refusing to double-sign")

// ErrStateAhead is returned by New when the state file belongs to a height
// the chain has not reached: this validator may have voted there, and
// voting again could contradict it.
var ErrStateAhead = errors.New("bft: state file is ahead of the chain")

// ErrTransportClosed is returned by Run when the transport stops
// delivering: the network under the validator is gone.
var ErrTransportClosed = errors.New("bft: transport closed")

type signKey struct {
	h   uint64
	r   int32
	typ consensus.VoteType
}

// Driver runs one validator.
type Driver struct {
	cfg    Config
	core   *consensus.State
	timers chan consensus.Timeout
	signed map[signKey]consensus.Vote // our signed votes of recent heights
	err    error

	statHeight uint64 // height and round last counted in Stats
	statRound  int32

	stallHeight uint64    // the height checkStalled times
	heightStart time.Time // when checkStalled first saw it

	work work // Propose and Validate calls running off the loop
}

// New prepares a driver, restoring the persisted snapshot when it belongs
// to cfg.Height.
func New(cfg Config) (*Driver, error) {
	if cfg.Signer == nil || cfg.Validators == nil || cfg.Transport == nil || cfg.App == nil {
		return nil, errors.New("bft: Signer, Validators, Transport and App are required")
	}
	if cfg.Clock == nil {
		cfg.Clock = SystemClock{}
	}
	if cfg.Timeouts == (consensus.Timeouts{}) {
		cfg.Timeouts = consensus.DefaultTimeouts
	}
	if cfg.StallAfter <= 0 {
		cfg.StallAfter = 10 * time.Second
	}
	if cfg.Logf == nil {
		cfg.Logf = func(string, ...any) {}
	}
	if cfg.State == nil && cfg.StateFile != "" {
		cfg.State = FileState(cfg.StateFile)
	}
	// The core is handed the sets of its first height and the next; after
	// each commit, the set of the height after the next (handOver).
	var sets []consensus.ValidatorsEvent
	for h := cfg.Height; h <= cfg.Height+1; h++ {
		e, err := setOf(cfg.Validators, h)
		if err != nil {
			return nil, err
		}
		sets = append(sets, e)
	}
	core, err := consensus.New(consensus.Config{Self: cfg.Signer.Address(), ChainID: cfg.Signer.ChainID(),
		Timeouts: cfg.Timeouts}, cfg.Height, sets...)
	if err != nil {
		return nil, err
	}
	d := &Driver{cfg: cfg, core: core, timers: make(chan consensus.Timeout, 64), signed: make(map[signKey]consensus.Vote)}
	if cfg.State != nil {
		snap, err := cfg.State.Load()
		switch {
		case errors.Is(err, ErrNoState):
		case err != nil:
			return nil, fmt.Errorf("bft: loading state: %w", err)
		case snap.Height == cfg.Height:
			if err := core.Restore(snap); err != nil {
				return nil, err
			}
			for _, v := range snap.Votes {
				d.signed[signKey{v.Height, v.Round, v.Type}] = v
			}
		case snap.Height > cfg.Height && cfg.ResetStateAhead:
			cfg.Logf("state file is at height %d but the chain resumes at %d: starting afresh", snap.Height, cfg.Height)
		case snap.Height > cfg.Height:
			// We signed at a height the chain has not committed: the block
			// store is behind the state file. Voting again could contradict.
			return nil, fmt.Errorf("%w: state file is at height %d but the chain resumes at %d", ErrStateAhead, snap.Height, cfg.Height)
		}
	}
	return d, nil
}

// Height is the height the core is working on.
func (d *Driver) Height() uint64 { return d.core.Height() }

// Run drives the core until ctx is done or an unrecoverable error. When it
// returns, no App call it started is still running.
func (d *Driver) Run(ctx context.Context) error {
	d.work.init(ctx, d.cfg.App, d.cfg.Logf, d.cfg.ProposeFailed)
	defer d.work.stop()
	d.step(consensus.Start{})
	for d.err == nil {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case in, ok := <-d.cfg.Transport.Receive():
			if !ok {
				return ErrTransportClosed
			}
			// A message verified for another chain changes nothing.
			if effects, err := d.core.Deliver(in); err == nil {
				d.carry(effects)
			}
		case t := <-d.timers:
			if d.cfg.Stats != nil && t.Kind != consensus.TimeoutRetransmit {
				d.cfg.Stats.Timeouts.Add(1)
			}
			d.checkStalled()
			d.step(consensus.TimeoutEvent{Timeout: t})
		case r := <-d.work.results:
			d.work.finished(r)
			d.step(r.ev)
		}
	}
	return d.err
}

func (d *Driver) step(ev consensus.Event) { d.carry(d.core.Step(ev)) }

// checkStalled reports, through Stalled, a height that has gone on for
// StallAfter or longer.
func (d *Driver) checkStalled() {
	if d.cfg.Stalled == nil {
		return
	}
	now := d.cfg.Clock.Now()
	if h := d.core.Height(); h != d.stallHeight || d.heightStart.IsZero() {
		d.stallHeight, d.heightStart = h, now
		return
	}
	if waited := now.Sub(d.heightStart); waited >= d.cfg.StallAfter {
		d.cfg.Stalled(d.stallHeight, d.core.Round(), waited)
	}
}

// carry carries out a step's effects strictly in order: the core puts the
// commit of decided blocks first and the snapshot (Persist) ahead of
// anything signed, so a crash at any point neither leaves a state file
// ahead of the chain nor lets a message out that the disk does not know.
func (d *Driver) carry(effects []consensus.Effect) {
	if d.cfg.Stats != nil && (d.core.Height() != d.statHeight || d.core.Round() != d.statRound) {
		d.cfg.Stats.Rounds.Add(1)
		d.statHeight, d.statRound = d.core.Height(), d.core.Round()
	}
	for _, e := range effects {
		if d.err != nil {
			return
		}
		d.apply(e)
	}
	d.work.moved(d.core.Height(), d.core.Round())
}

func (d *Driver) apply(e consensus.Effect) {
	switch e := e.(type) {
	case consensus.BroadcastProposal:
		p := e.Proposal
		d.cfg.Signer.SignProposal(&p)
		d.cfg.Transport.Broadcast(EncodeMessage(consensus.ProposalEvent{Proposal: p}))
	case consensus.BroadcastVote:
		v, err := d.sign(e.Vote)
		if err != nil {
			d.err = err
			return
		}
		d.cfg.Transport.Broadcast(EncodeMessage(consensus.VoteEvent{Vote: v}))
	case consensus.RelayVotes:
		for _, v := range e.Votes {
			if v = d.withSignature(v); v.Signature != nil {
				d.cfg.Transport.Broadcast(EncodeMessage(consensus.VoteEvent{Vote: v}))
			}
		}
	case consensus.SendVotes:
		d.sendVotes(e.To, e.Votes)
	case consensus.SendDecision:
		p := e.Proposal
		if p.Signature == nil && p.Proposer == d.cfg.Signer.Address() {
			d.cfg.Signer.SignProposal(&p) // our own proposal, kept unsigned by the core
		}
		d.cfg.Transport.Send(e.To, EncodeMessage(consensus.ProposalEvent{Proposal: p}))
		d.sendVotes(e.To, e.Precommits)
	case consensus.BroadcastStatus:
		d.cfg.Transport.Broadcast(EncodeMessage(consensus.StatusEvent{From: d.cfg.Signer.Address(), Height: e.Height, Round: e.Round}))
	case consensus.ScheduleTimeout:
		t := e.Timeout
		d.cfg.Clock.AfterFunc(e.Duration, func() {
			select {
			case d.timers <- t:
			default: // the loop is gone or badly behind; the retransmit tick recovers
			}
		})
	case consensus.RequestValue:
		d.work.propose(e)
	case consensus.RequestValidation:
		d.work.validate(e)
	case consensus.Decide:
		d.commit(e)
	case consensus.LastCommit:
		d.lastCommit(e)
	case consensus.Persist:
		if d.cfg.State != nil {
			if err := d.cfg.State.Save(e.Snapshot); err != nil {
				d.err = fmt.Errorf("bft: persisting state: %w", err)
			}
		}
	case consensus.EvidenceFound:
		a, b := d.withSignature(e.A), d.withSignature(e.B)
		ev := consensus.NewDuplicateVoteEvidence(a, b)
		vals, err := d.cfg.Validators.ValidatorSet(a.Height)
		if err == nil {
			err = ev.Verify(d.cfg.Signer.ChainID(), vals)
		}
		if err != nil {
			d.cfg.Logf("unverifiable evidence: %v", err)
		} else if d.cfg.Evidence != nil {
			d.cfg.Evidence.ReportDoubleSign(ev)
		}
	case consensus.Halt:
		d.err = e.Err
	}
}

// sign signs one of our votes, refusing to contradict an earlier one.
func (d *Driver) sign(v consensus.Vote) (consensus.Vote, error) {
	k := signKey{v.Height, v.Round, v.Type}
	if old, ok := d.signed[k]; ok {
		if old.ID != v.ID {
			return v, fmt.Errorf("%w: %v at %d/%d", ErrWouldDoubleSign, v.Type, v.Height, v.Round)
		}
		old = d.withSignature(old) // restored from the state file unsigned
		d.signed[k] = old
		return old, nil
	}
	d.cfg.Signer.SignVote(&v)
	d.signed[k] = v
	for key := range d.signed { // keep a few heights only
		if key.h+2 < v.Height {
			delete(d.signed, key)
		}
	}
	return v, nil
}

// withSignature signs our own votes, which the core keeps unsigned, when
// they must leave the process again (relays, catch-up answers,
// certificates). The core only reports votes it really cast, and
// signatures are deterministic (RFC 6979), so this reproduces the
// signature sent the first time.
func (d *Driver) withSignature(v consensus.Vote) consensus.Vote {
	if v.Signature == nil && v.Validator == d.cfg.Signer.Address() {
		d.cfg.Signer.SignVote(&v)
	}
	return v
}

func (d *Driver) sendVotes(to types.Address, votes []consensus.Vote) {
	for _, v := range votes {
		if v = d.withSignature(v); v.Signature != nil {
			d.cfg.Transport.Send(to, EncodeMessage(consensus.VoteEvent{Vote: v}))
		}
	}
}

func (d *Driver) commit(e consensus.Decide) {
	vals, err := d.cfg.Validators.ValidatorSet(e.Height)
	if err != nil {
		d.err = err
		return
	}
	pcs := make([]consensus.Vote, len(e.Precommits))
	for i, v := range e.Precommits {
		pcs[i] = d.withSignature(v)
	}
	cert, err := consensus.NewCertificate(vals, e.Height, e.Round, e.Value.ID, pcs)
	if err != nil {
		d.err = fmt.Errorf("bft: certificate for height %d: %w", e.Height, err)
		return
	}
	if err := d.cfg.App.Commit(e.Value, cert); err != nil {
		d.err = fmt.Errorf("bft: commit of height %d: %w", e.Height, err)
		return
	}
	// The core is at e.Height+1 already, with its set and the next one's:
	// the chain now knows the set of the height after (a set is decided
	// at least two blocks before it runs), which the core gets as data.
	set, err := setOf(d.cfg.Validators, e.Height+2)
	if err != nil {
		d.err = err
		return
	}
	d.core.Step(set)
}

// lastCommit hands the App a certificate of the last decision with every
// precommit gathered for it so far.
func (d *Driver) lastCommit(e consensus.LastCommit) {
	lc, ok := d.cfg.App.(LastCommitter)
	if !ok {
		return
	}
	vals, err := d.cfg.Validators.ValidatorSet(e.Height)
	if err != nil {
		return // the commit of this height had it; nothing to widen without it
	}
	pcs := make([]consensus.Vote, len(e.Precommits))
	for i, v := range e.Precommits {
		pcs[i] = d.withSignature(v)
	}
	if cert, err := consensus.NewCertificate(vals, e.Height, e.Round, e.ID, pcs); err == nil {
		lc.LastCommit(cert)
	}
}

// setOf is the validator set of height h as the core takes it: a run of
// that one height.
func setOf(vals consensus.ValidatorSource, h uint64) (consensus.ValidatorsEvent, error) {
	set, err := vals.ValidatorSet(h)
	if err != nil {
		return consensus.ValidatorsEvent{}, fmt.Errorf("bft: validator set of height %d: %w", h, err)
	}
	return consensus.ValidatorsEvent{From: h, To: h, Set: set}, nil
}
