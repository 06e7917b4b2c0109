package consensus

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/types"
)

// fixedSource is a validator set per height with priorities advancing one
// run per height.
type fixedSource struct{ sets []*ValidatorSet }

func newSource(t *testing.T, powers []int64) *fixedSource {
	return &fixedSource{sets: []*ValidatorSet{nil, set(t, powers, nil)}}
}

// fixed hands a core the source's set for every height from 1.
func (f *fixedSource) fixed() ValidatorsEvent {
	return ValidatorsEvent{From: 1, To: math.MaxUint64, Set: f.sets[1]}
}

func (f *fixedSource) ValidatorSet(h uint64) (*ValidatorSet, error) {
	for uint64(len(f.sets)) <= h {
		f.sets = append(f.sets, f.sets[len(f.sets)-1].Next())
	}
	return f.sets[h], nil
}

func val(tag byte) Value { return Value{ID: types.Hash{0: tag, 31: 1}, Data: []byte{tag}} }

type envelope struct {
	to int
	ev Event
}

// harness runs the honest cores of a scenario by hand: the test injects
// the Byzantine messages, decides which honest messages are dropped, and
// fires timeouts explicitly. Validator i has address addr(i+1).
type harness struct {
	t        *testing.T
	n        int
	cores    map[int]*State
	queue    []envelope
	drop     func(from, to int, ev Event) bool
	values   map[int]Value // what node i proposes
	pending  map[int][]Timeout
	decided  map[int][]Value
	evidence int
}

func newHarness(t *testing.T, powers []int64, honest []int, off rule) *harness {
	h := &harness{t: t, n: len(powers), cores: make(map[int]*State), values: make(map[int]Value),
		pending: make(map[int][]Timeout), decided: make(map[int][]Value)}
	src := newSource(t, powers)
	for _, i := range honest {
		s, err := New(Config{Self: addr(byte(i + 1)), Timeouts: DefaultTimeouts, off: off}, 1, src.fixed())
		if err != nil {
			t.Fatal(err)
		}
		h.cores[i] = s
	}
	return h
}

func (h *harness) start() {
	for i := range h.n {
		if h.cores[i] != nil {
			h.queue = append(h.queue, envelope{i, Start{}})
		}
	}
	h.run()
}

func (h *harness) inject(to []int, ev Event) {
	for _, i := range to {
		h.queue = append(h.queue, envelope{i, ev})
	}
	h.run()
}

func (h *harness) fire(i int, k TimeoutKind) {
	c := h.cores[i]
	for _, to := range h.pending[i] {
		if to.Kind == k && to.Height == c.Height() && to.Round == c.Round() {
			h.queue = append(h.queue, envelope{i, TimeoutEvent{to}})
			h.run()
			return
		}
	}
	h.t.Fatalf("node %d has no pending %v timeout at %d/%d", i, k, c.Height(), c.Round())
}

func (h *harness) run() {
	for len(h.queue) > 0 {
		e := h.queue[0]
		h.queue = h.queue[1:]
		for _, eff := range h.cores[e.to].Step(e.ev) {
			h.effect(e.to, eff)
		}
	}
}

func (h *harness) send(from int, ev Event) {
	for to := range h.cores {
		if to != from && (h.drop == nil || !h.drop(from, to, ev)) {
			h.queue = append(h.queue, envelope{to, ev})
		}
	}
}

func (h *harness) effect(i int, eff Effect) {
	switch e := eff.(type) {
	case BroadcastProposal:
		h.send(i, ProposalEvent{e.Proposal})
	case BroadcastVote:
		h.send(i, VoteEvent{e.Vote})
	case RequestValue:
		v, ok := h.values[i]
		if !ok {
			v = val(byte(0x80 + i))
		}
		h.queue = append(h.queue, envelope{i, ValueEvent{Height: e.Height, Round: e.Round, Value: v}})
	case RequestValidation:
		h.queue = append(h.queue, envelope{i, ValidatedEvent{Height: e.Height, ID: e.Value.ID, Valid: e.Value.Data[0] != 0xEE}})
	case ScheduleTimeout:
		h.pending[i] = append(h.pending[i], e.Timeout)
	case Decide:
		h.decided[i] = append(h.decided[i], e.Value)
	case EvidenceFound:
		h.evidence++
	}
}

// agreementViolated reports whether two honest nodes decided differently at height 1.
func (h *harness) agreementViolated() bool {
	var first *Value
	for _, d := range h.decided {
		if len(d) == 0 {
			continue
		}
		if first == nil {
			first = &d[0]
		} else if first.ID != d[0].ID {
			return true
		}
	}
	return false
}

func vote(t VoteType, r int32, v Value, from int) VoteEvent {
	return VoteEvent{Vote{Type: t, Height: 1, Round: r, ID: v.ID, Validator: addr(byte(from + 1))}}
}

func proposal(r int32, v Value, vr int32, from int) ProposalEvent {
	return ProposalEvent{Proposal{Height: 1, Round: r, Value: v, ValidRound: vr, Proposer: addr(byte(from + 1))}}
}

// lockScenario: four equal validators, v1 Byzantine. Round 0: honest v0
// proposes A, everybody prevotes A, v0 sees precommits of v0, v2 and the
// Byzantine v1 and decides A; v2 and v3 see only each other's precommits
// and a nil precommit from v1, time out and move to round 1, locked on A.
// Round 1: the Byzantine proposer v1 proposes B with validRound vr and
// prevotes and precommits B. Only locking (L23/L29) and the PoLC check of
// L28 stop v2 and v3 from deciding B.
func lockScenario(t *testing.T, off rule, vr int32) *harness {
	A, B := val(0xA), val(0xB)
	h := newHarness(t, []int64{1, 1, 1, 1}, []int{0, 2, 3}, off)
	h.values[0] = A
	h.drop = func(from, to int, ev Event) bool {
		v, ok := ev.(VoteEvent)
		return ok && v.Vote.Type == Precommit && (from == 0 || (from == 3 && to == 0))
	}
	h.start() // v0 proposes A; v0, v2, v3 prevote and precommit A
	h.inject([]int{0, 2, 3}, vote(Prevote, 0, A, 1))
	h.inject([]int{0}, vote(Precommit, 0, A, 1))
	if len(h.decided[0]) != 1 || h.decided[0][0].ID != A.ID {
		t.Fatalf("v0 should have decided A in round 0, decided %v", h.decided[0])
	}
	h.inject([]int{2, 3}, vote(Precommit, 0, Value{}, 1))
	for _, i := range []int{2, 3} {
		if lv, lr := h.cores[i].Locked(); lv.ID != A.ID || lr != 0 {
			t.Fatalf("v%d should be locked on A at round 0", i)
		}
		h.fire(i, TimeoutPrecommit)
		if h.cores[i].Round() != 1 {
			t.Fatalf("v%d should be in round 1", i)
		}
	}
	h.inject([]int{2, 3}, proposal(1, B, vr, 1))
	h.inject([]int{2, 3}, vote(Prevote, 1, B, 1))
	h.inject([]int{2, 3}, vote(Precommit, 1, B, 1))
	if vr >= 0 { // without a prevote from L22, the round needs the propose timeout
		for _, i := range []int{2, 3} {
			if h.cores[i].Round() == 1 && h.cores[i].CurrentStep() == StepPropose {
				h.fire(i, TimeoutPropose)
			}
		}
	}
	return h
}

// quorumScenario: seven equal validators, v0 and v1 Byzantine (2/7 < 1/3).
// The Byzantine proposer sends A to {v2, v3} and B to {v4, v5, v6}, and both
// Byzantine validators vote A to the first group and B to the second. With
// quorum > 2/3 (5 votes) only B can gather one; with a simple majority
// (4 votes) both groups decide.
func quorumScenario(t *testing.T, off rule) *harness {
	A, B := val(0xA), val(0xB)
	g1, g2 := []int{2, 3}, []int{4, 5, 6}
	h := newHarness(t, []int64{1, 1, 1, 1, 1, 1, 1}, []int{2, 3, 4, 5, 6}, off)
	h.start()
	for _, side := range []struct {
		g []int
		v Value
	}{{g1, A}, {g2, B}} {
		h.inject(side.g, proposal(0, side.v, -1, 0))
		for _, z := range []int{0, 1} {
			h.inject(side.g, vote(Prevote, 0, side.v, z))
			h.inject(side.g, vote(Precommit, 0, side.v, z))
		}
	}
	return h
}

// validRoundScenario: four equal validators, v2 Byzantine. Round 0: v0
// proposes A, which v3 never receives; v0 and v1 prevote A and the
// Byzantine v2 sends its prevote for A to v1 alone, so only v1 sees a
// polka, locks on A and precommits it; v0 and v3 precommit nil and the
// round ends undecided. v2's prevote reaches v0 and v3 late, in round 1,
// whose proposer is v1. Re-proposing validValue with validRound (L15-L16)
// lets everyone decide A in round 1; proposing a fresh value instead
// leaves v1 locked, prevoting nil against it, and nothing can unlock it.
func validRoundScenario(t *testing.T, off rule) *harness {
	A, B := val(0xA), val(0xB)
	h := newHarness(t, []int64{1, 1, 1, 1}, []int{0, 1, 3}, off)
	h.values[0], h.values[1] = A, B
	h.drop = func(from, to int, ev Event) bool {
		p, ok := ev.(ProposalEvent)
		return ok && to == 3 && p.Proposal.Round == 0
	}
	h.start()
	h.inject([]int{1}, vote(Prevote, 0, A, 2))
	if lv, _ := h.cores[1].Locked(); lv.ID != A.ID {
		t.Fatal("v1 should be locked on A")
	}
	h.fire(3, TimeoutPropose)
	h.fire(0, TimeoutPrevote)
	h.fire(3, TimeoutPrevote)
	h.fire(0, TimeoutPrecommit)
	h.fire(3, TimeoutPrecommit)
	h.inject([]int{0, 3}, vote(Prevote, 0, A, 2))
	h.fire(1, TimeoutPrecommit) // v1 enters round 1 as its proposer
	return h
}

// hijackScenario: four equal validators, v3 Byzantine. Before round 0
// starts, v3 sends v1 and v2 a proposal of its own; v0, the proposer,
// then proposes A. Honest validators that accept a proposal from anyone
// but proposer(h, r) prevote the hijacker's value, the round's prevotes
// split and nothing is decided; an adversary can do that every round.
func hijackScenario(t *testing.T, off rule) *harness {
	h := newHarness(t, []int64{1, 1, 1, 1}, []int{0, 1, 2}, off)
	h.values[0] = val(0xA)
	h.inject([]int{1, 2}, proposal(0, val(0xB), -1, 3))
	h.start()
	return h
}

// decidedAll reports whether nodes all decided v at height 1.
func decidedAll(h *harness, v Value, nodes ...int) bool {
	for _, i := range nodes {
		if len(h.decided[i]) == 0 || h.decided[i][0].ID != v.ID { // height 1
			return false
		}
	}
	return true
}

// Each safety rule stops the bad outcome of a crafted scenario, and the
// same scenario with the rule switched off shows that outcome: the test
// proves it can fail. (The simulator shows the same for every rule in
// rules_test.go.)
func TestRuleScenarios(t *testing.T) {
	for _, c := range []struct {
		name string
		rule rule
		// bad reports whether the scenario ended in the outcome the rule
		// prevents, and describes it.
		bad func(t *testing.T, off rule) (bool, string)
	}{
		{"locking (L23, L29)", ruleLocking, func(t *testing.T, off rule) (bool, string) {
			h := lockScenario(t, off, -1)
			return h.agreementViolated(), fmt.Sprintf("decided %v", h.decided)
		}},
		{"polka of the valid round (L28)", rulePolka, func(t *testing.T, off rule) (bool, string) {
			h := lockScenario(t, off, 0)
			return h.agreementViolated(), fmt.Sprintf("decided %v", h.decided)
		}},
		{"quorum > 2/3", ruleQuorum, func(t *testing.T, off rule) (bool, string) {
			h := quorumScenario(t, off)
			if off == 0 && len(h.decided[4]) != 1 {
				t.Fatalf("the B side should decide B, decided %v", h.decided)
			}
			return h.agreementViolated(), fmt.Sprintf("decided %v", h.decided)
		}},
		{"valid round (L15, L16)", ruleValidRound, func(t *testing.T, off rule) (bool, string) {
			h := validRoundScenario(t, off)
			lv, lr := h.cores[1].Locked()
			return !decidedAll(h, val(0xA), 0, 1, 3),
				fmt.Sprintf("decided %d of 3 by round 1; v1 locked on %x at round %d, in round %d", len(h.decided), lv.ID[:1], lr, h.cores[1].Round())
		}},
		{"proposer check", ruleProposer, func(t *testing.T, off rule) (bool, string) {
			h := hijackScenario(t, off)
			return !decidedAll(h, val(0xA), 0, 1, 2),
				fmt.Sprintf("decided %d of 3 in round 0: a non-proposer's proposal split the prevotes", len(h.decided))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if bad, what := c.bad(t, 0); bad {
				t.Fatalf("with every rule on: %s", what)
			}
			bad, what := c.bad(t, c.rule)
			if !bad {
				t.Fatal("switched off, the scenario ended well: the rule is not shown to be needed")
			}
			t.Logf("off: %s", what)
		})
	}
}

// Timeouts grow linearly with the round: timeoutX(r) = base + r·delta.
func TestTimeoutsGrow(t *testing.T) {
	to := Timeouts{Propose: 3 * time.Second, ProposeDelta: 500 * time.Millisecond}
	for r, want := range []time.Duration{3 * time.Second, 3500 * time.Millisecond, 4 * time.Second} {
		if got := to.Duration(TimeoutPropose, int32(r)); got != want {
			t.Errorf("timeoutPropose(%d) = %v, want %v", r, got, want)
		}
	}
}

// L55: f+1 power of messages from a higher round makes a process jump to it,
// and f or less does not.
func TestRoundSkip(t *testing.T) {
	h := newHarness(t, []int64{1, 1, 1, 1}, []int{0, 1, 2, 3}, 0)
	h.values[0] = val(1)
	h.drop = func(int, int, Event) bool { return true } // isolate everyone
	h.start()
	c := h.cores[3]
	h.inject([]int{3}, vote(Prevote, 5, Value{}, 1))
	if c.Round() != 0 {
		t.Fatalf("one of four validators moved v3 to round %d", c.Round())
	}
	h.inject([]int{3}, vote(Precommit, 5, Value{}, 2))
	if c.Round() != 5 {
		t.Fatalf("two of four validators (> 1/3) should move v3 to round 5, at %d", c.Round())
	}
}

// Invalid values are never prevoted: L22 prevotes nil (L26).
func TestInvalidValuePrevotesNil(t *testing.T) {
	h := newHarness(t, []int64{1, 1, 1, 1}, []int{1, 2, 3}, 0)
	h.start()
	bad := Value{ID: types.Hash{0: 0xEE, 31: 1}, Data: []byte{0xEE}}
	var got []Vote
	h.drop = func(from, to int, ev Event) bool {
		if v, ok := ev.(VoteEvent); ok && to == 1 {
			got = append(got, v.Vote)
		}
		return false
	}
	h.inject([]int{1, 2, 3}, proposal(0, bad, -1, 0))
	for _, v := range got {
		if v.Type == Prevote && v.ID != NilID {
			t.Fatalf("v%d prevoted the invalid value", v.Validator[19]-1)
		}
	}
	if len(got) == 0 {
		t.Fatal("no prevotes seen")
	}
}

// A proposal from anyone but proposer(h, r) is ignored.
func TestProposalFromNonProposerIgnored(t *testing.T) {
	h := newHarness(t, []int64{1, 1, 1, 1}, []int{1, 2, 3}, 0)
	h.start()
	h.inject([]int{2}, proposal(0, val(7), -1, 3))
	if h.cores[2].CurrentStep() != StepPropose {
		t.Fatal("a proposal from a non-proposer moved the step")
	}
}

// Equivocation is reported once per validator, round and type.
func TestEquivocationEvidence(t *testing.T) {
	h := newHarness(t, []int64{1, 1, 1, 1}, []int{1, 2, 3}, 0)
	h.start()
	h.inject([]int{2}, vote(Prevote, 0, val(1), 0))
	h.inject([]int{2}, vote(Prevote, 0, val(2), 0))
	h.inject([]int{2}, vote(Prevote, 0, val(3), 0))
	if h.evidence != 1 {
		t.Fatalf("evidence reported %d times, want 1", h.evidence)
	}
}

// A restored validator resumes where it was and never votes differently in
// a round it already voted in.
func TestSnapshotRestoreNoDoubleSign(t *testing.T) {
	h := newHarness(t, []int64{1, 1, 1, 1}, []int{0, 1, 2, 3}, 0)
	A := val(0xA)
	h.values[0] = A
	h.drop = func(int, int, Event) bool { return true } // v2 hears nobody
	h.inject([]int{0}, Start{})                         // v0 proposes, but the proposal is dropped
	h.start()
	c := h.cores[2]
	for _, i := range []int{1, 2, 3} {
		h.fire(i, TimeoutPropose) // prevote nil
	}
	if c.CurrentStep() != StepPrevote {
		t.Fatalf("v2 step %v", c.CurrentStep())
	}
	snap := c.Snapshot()
	dec, err := DecodeSnapshot(snap.Encode())
	if err != nil {
		t.Fatal(err)
	}
	fresh, _ := New(Config{Self: addr(3), Timeouts: DefaultTimeouts}, 1, newSource(t, []int64{1, 1, 1, 1}).fixed())
	if err := fresh.Restore(dec); err != nil {
		t.Fatal(err)
	}
	effects := fresh.Step(Start{})
	if fresh.Round() != 0 || fresh.CurrentStep() != StepPrevote {
		t.Fatalf("restored at %d/%v", fresh.Round(), fresh.CurrentStep())
	}
	effects = append(effects, fresh.Step(proposal(0, A, -1, 0))...)
	effects = append(effects, fresh.Step(ValidatedEvent{Height: 1, ID: A.ID, Valid: true})...)
	for _, e := range effects {
		if bv, ok := e.(BroadcastVote); ok && bv.Vote.Type == Prevote && bv.Vote.Round == 0 && bv.Vote.ID != NilID {
			t.Fatal("restored validator prevoted A after having prevoted nil in the same round")
		}
	}
	stale := snap
	stale.Height = 7
	if err := fresh.Restore(stale); err == nil {
		t.Fatal("Restore after Start accepted")
	}
}
