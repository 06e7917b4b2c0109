package bft

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
)

// Durations that tell the timeouts apart in fakeClock.
var distinctTimeouts = consensus.Timeouts{
	Propose: 1 * time.Second, ProposeDelta: 100 * time.Millisecond,
	Prevote: 2 * time.Second, PrevoteDelta: 100 * time.Millisecond,
	Precommit: 3 * time.Second, PrecommitDelta: 100 * time.Millisecond,
	Retransmit: 7 * time.Second,
}

// fakeClock hands every timer to the test, which fires it when it likes.
type fakeClock struct{ timers chan timer }

type timer struct {
	d    time.Duration
	fire func()
}

func (c *fakeClock) Now() time.Time { return time.Unix(1_700_000_000, 0) }
func (c *fakeClock) AfterFunc(d time.Duration, f func()) func() bool {
	c.timers <- timer{d, f}
	return func() bool { return true }
}

// fakeTransport lets the test inject messages and read what is sent.
type fakeTransport struct {
	in  chan consensus.Verified
	out chan []byte
}

func (t *fakeTransport) Broadcast(msg []byte)               { t.out <- msg }
func (t *fakeTransport) Send(_ types.Address, msg []byte)   { t.out <- msg }
func (t *fakeTransport) Receive() <-chan consensus.Verified { return t.in }

// blockingApp blocks in Propose and Validate until its context ends.
type blockingApp struct {
	entered   chan string
	cancelled chan string
}

func (a *blockingApp) block(ctx context.Context, what string) error {
	a.entered <- what
	<-ctx.Done()
	a.cancelled <- what
	return ctx.Err()
}

func (a *blockingApp) Propose(ctx context.Context, _ uint64) (consensus.Value, error) {
	return consensus.Value{}, a.block(ctx, "propose")
}

func (a *blockingApp) Validate(ctx context.Context, _ uint64, _ consensus.Value) error {
	return a.block(ctx, "validate")
}

func (a *blockingApp) Commit(consensus.Value, *consensus.Certificate) error {
	return errors.New("nothing is decided in this test")
}

// within turns a hang into a failure; the bound is generous and is not
// what the test measures.
func within[T any](t *testing.T, ch <-chan T, what string, ok func(T) bool) T {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case v := <-ch:
			if ok == nil || ok(v) {
				return v
			}
		case <-deadline:
			t.Fatalf("no %s: the driver is stuck", what)
		}
	}
}

type blockedRig struct {
	signers []*consensus.Signer
	set     *consensus.ValidatorSet
	clock   *fakeClock
	tr      *fakeTransport
	app     *blockingApp
	cancel  context.CancelFunc
	done    chan error
}

// startBlocked runs validator self of a four-validator set with a
// blockingApp, a fake clock and a fake transport.
func startBlocked(t *testing.T, pick func(set *consensus.ValidatorSet, a types.Address) bool) *blockedRig {
	tn := newTestNet(t, []int64{1, 1, 1, 1})
	set, err := tn.sched.ValidatorSet(1)
	if err != nil {
		t.Fatal(err)
	}
	r := &blockedRig{signers: tn.signers, set: set, clock: &fakeClock{timers: make(chan timer, 64)},
		tr:  &fakeTransport{in: make(chan consensus.Verified), out: make(chan []byte, 256)},
		app: &blockingApp{entered: make(chan string, 8), cancelled: make(chan string, 8)}, done: make(chan error, 1)}
	self := -1
	for i, s := range tn.signers {
		if pick(set, s.Address()) {
			self = i
			break
		}
	}
	d, err := New(Config{Signer: tn.signers[self], Validators: tn.sched, Timeouts: distinctTimeouts,
		Transport: r.tr, Clock: r.clock, App: r.app, Height: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	go func() { r.done <- d.Run(ctx) }()
	return r
}

// stop ends Run and checks that the blocked call was cancelled before Run
// returned: the App is never used after Run.
func (r *blockedRig) stop(t *testing.T, what string) {
	r.cancel()
	if err := within(t, r.done, "return from Run", nil); !errors.Is(err, context.Canceled) {
		t.Fatalf("Run: %v", err)
	}
	select {
	case got := <-r.app.cancelled:
		if got != what {
			t.Fatalf("cancelled %s, want %s", got, what)
		}
	default:
		t.Fatalf("Run returned while %s was still running", what)
	}
}

func (r *blockedRig) inject(ev consensus.Event, from *consensus.Signer) {
	m, err := consensus.VerifyMessage(from.ChainID(), from.Address(), EncodeMessage(ev))
	if err != nil {
		panic(err)
	}
	r.tr.in <- m
}

func isStatus(msg []byte) bool {
	ev, err := DecodeMessage(msg)
	_, ok := ev.(consensus.StatusEvent)
	return err == nil && ok
}

// While Propose blocks, the driver still fires timeouts (the retransmit
// tick broadcasts a status) and handles votes: two prevotes of round 1
// move the core on, which cancels the Propose of round 0.
func TestProposeDoesNotBlockTheDriver(t *testing.T) {
	r := startBlocked(t, func(set *consensus.ValidatorSet, a types.Address) bool { return set.Proposer(0) == a })
	defer r.cancel()
	within(t, r.app.entered, "Propose call", nil)
	tick := within(t, r.clock.timers, "retransmit timer", func(tm timer) bool { return tm.d == distinctTimeouts.Retransmit })
	tick.fire()
	within(t, r.tr.out, "status broadcast", isStatus)
	self := r.set.Proposer(0)
	n := 0
	for _, s := range r.signers {
		if s.Address() == self || n == 2 {
			continue
		}
		v := consensus.Vote{Type: consensus.Prevote, Height: 1, Round: 1, ID: consensus.NilID, Validator: s.Address()}
		s.SignVote(&v)
		r.inject(consensus.VoteEvent{Vote: v}, s)
		n++
	}
	if got := within(t, r.app.cancelled, "cancellation of the stale Propose", nil); got != "propose" {
		t.Fatalf("cancelled %s", got)
	}
	// Round 1 has its own proposer; if that is us again, a new Propose runs.
	r.cancel()
	within(t, r.done, "return from Run", nil)
}

// While Validate blocks, the propose timeout still fires and the driver
// prevotes nil.
func TestValidateDoesNotBlockTheDriver(t *testing.T) {
	r := startBlocked(t, func(set *consensus.ValidatorSet, a types.Address) bool { return set.Proposer(0) != a })
	defer r.cancel()
	propose := within(t, r.clock.timers, "propose timer", func(tm timer) bool { return tm.d == distinctTimeouts.Propose })
	var proposer *consensus.Signer
	for _, s := range r.signers {
		if s.Address() == r.set.Proposer(0) {
			proposer = s
		}
	}
	data := []byte("a block")
	p := consensus.Proposal{Height: 1, Round: 0, ValidRound: -1, Proposer: proposer.Address(),
		Value: consensus.Value{ID: crypto.Keccak256(data), Data: data}}
	proposer.SignProposal(&p)
	r.inject(consensus.ProposalEvent{Proposal: p}, proposer)
	within(t, r.app.entered, "Validate call", nil)
	propose.fire()
	within(t, r.tr.out, "nil prevote", func(msg []byte) bool {
		ev, err := DecodeMessage(msg)
		v, ok := ev.(consensus.VoteEvent)
		return err == nil && ok && v.Vote.Type == consensus.Prevote && v.Vote.ID == consensus.NilID
	})
	r.stop(t, "validate")
}

// Answers of Propose and Validate that arrive after the core has moved on
// change nothing: a value for a round the core left is not proposed, and a
// validation result of another height neither approves nor condemns a
// value of the current one.
func TestStaleAnswersAreHarmless(t *testing.T) {
	tn := newTestNet(t, []int64{1, 1, 1, 1})
	set, err := tn.sched.ValidatorSet(5)
	if err != nil {
		t.Fatal(err)
	}
	addr := func(i int) types.Address { return tn.signers[i].Address() }
	newCore := func(self types.Address) *consensus.State {
		c, err := consensus.New(consensus.Config{Self: self, Timeouts: distinctTimeouts}, 5, consensus.ValidatorsEvent{From: 5, To: 5, Set: set})
		if err != nil {
			t.Fatal(err)
		}
		c.Step(consensus.Start{})
		return c
	}
	prevote := func(i int, round int32) consensus.Event {
		return consensus.VoteEvent{Vote: consensus.Vote{Type: consensus.Prevote, Height: 5, Round: round, ID: consensus.NilID, Validator: addr(i)}}
	}
	value := consensus.Value{ID: types.Hash{0xb1}, Data: []byte("block")}
	var proposer, other types.Address
	for i := range tn.signers {
		if addr(i) == set.Proposer(0) {
			proposer = addr(i)
		} else {
			other = addr(i)
		}
	}

	t.Run("value of a round left", func(t *testing.T) {
		c := newCore(proposer)
		var moved int
		for i := range tn.signers {
			if addr(i) != proposer && moved < 2 {
				c.Step(prevote(i, 1))
				moved++
			}
		}
		if c.Round() != 1 {
			t.Fatalf("core at round %d, want 1", c.Round())
		}
		for _, e := range c.Step(consensus.ValueEvent{Height: 5, Round: 0, Value: value}) {
			if _, ok := e.(consensus.BroadcastProposal); ok {
				t.Fatal("proposed a value built for a round the core had left")
			}
		}
	})

	for _, stale := range []consensus.ValidatedEvent{
		{Height: 4, ID: value.ID, Valid: true},
		{Height: 4, ID: value.ID, Valid: false},
		{Height: 6, ID: value.ID, Valid: false},
	} {
		t.Run("validation of another height", func(t *testing.T) {
			c := newCore(other)
			p := consensus.Proposal{Height: 5, Round: 0, ValidRound: -1, Proposer: proposer, Value: value}
			c.Step(consensus.ProposalEvent{Proposal: p})
			for _, e := range c.Step(stale) {
				if _, ok := e.(consensus.BroadcastVote); ok {
					t.Fatalf("%+v made the core vote", stale)
				}
			}
			voted := false
			for _, e := range c.Step(consensus.ValidatedEvent{Height: 5, ID: value.ID, Valid: true}) {
				if v, ok := e.(consensus.BroadcastVote); ok && v.Vote.ID == value.ID {
					voted = true
				}
			}
			if !voted {
				t.Fatalf("after %+v the current validation was not taken", stale)
			}
		})
	}
}

// validateApp records which values Validate was called for and blocks
// until its context ends.
type validateApp struct {
	blockingApp
	ids chan types.Hash
}

func (a *validateApp) Validate(ctx context.Context, _ uint64, v consensus.Value) error {
	a.ids <- v.ID
	<-ctx.Done()
	return ctx.Err()
}

// Validations run one at a time, in order; when the core moves to another
// height the running one is cancelled and queued ones of the old height
// never start.
func TestValidationsOneAtATime(t *testing.T) {
	app := &validateApp{ids: make(chan types.Hash, 8)}
	var w work
	w.init(context.Background(), app, t.Logf, nil)
	defer w.stop()
	req := func(h uint64, id byte) consensus.RequestValidation {
		return consensus.RequestValidation{Height: h, Value: consensus.Value{ID: types.Hash{id}, Data: []byte{id}}}
	}
	w.moved(1, 0)
	for id := byte(1); id <= 3; id++ {
		w.validate(req(1, id))
	}
	if w.validation == nil || len(w.queue) != 2 {
		t.Fatalf("%d validations queued behind the running one, want 2", len(w.queue))
	}
	if got := within(t, app.ids, "first validation", nil); got != (types.Hash{1}) {
		t.Fatalf("first validation of %x", got[:1])
	}
	w.validate(req(2, 4))
	w.moved(2, 0)
	r := within(t, w.results, "answer of the cancelled validation", nil)
	if ev, ok := r.ev.(consensus.ValidatedEvent); !ok || ev.Height != 1 || ev.Valid {
		t.Fatalf("answer of the cancelled validation: %+v", r.ev)
	}
	w.finished(r)
	if got := within(t, app.ids, "validation of the new height", nil); got != (types.Hash{4}) {
		t.Fatalf("after moving to height 2, validated %x of height 1", got[:1])
	}
	if len(w.queue) != 0 {
		t.Fatalf("%d stale validations still queued", len(w.queue))
	}
}

// failingApp cannot build a block.
type failingApp struct{ validateApp }

var errCannotBuild = errors.New("no code at the EIP-7002 queue")

func (a *failingApp) Propose(context.Context, uint64) (consensus.Value, error) {
	return consensus.Value{}, errCannotBuild
}

// A block this validator cannot build is reported through ProposeFailed
// (which the node logs as a warning), not only to the debug log, and the
// core gets an empty value so the round times out.
func TestProposeFailureReported(t *testing.T) {
	type failure struct {
		h   uint64
		r   int32
		err error
	}
	got := make(chan failure, 1)
	var w work
	w.init(context.Background(), &failingApp{}, t.Logf, func(h uint64, r int32, err error) { got <- failure{h, r, err} })
	defer w.stop()
	w.moved(3, 1)
	w.propose(consensus.RequestValue{Height: 3, Round: 1})
	f := within(t, got, "the failure report", nil)
	if f.h != 3 || f.r != 1 || !errors.Is(f.err, errCannotBuild) {
		t.Fatalf("reported %+v", f)
	}
	r := within(t, w.results, "the proposal's answer", nil)
	if ev, ok := r.ev.(consensus.ValueEvent); !ok || ev.Height != 3 || ev.Value.ID != (types.Hash{}) {
		t.Fatalf("answer %+v, want an empty value at height 3", r.ev)
	}
}
