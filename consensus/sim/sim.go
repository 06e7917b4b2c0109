// Package sim is a deterministic simulator for the consensus core: N
// validators with given stakes, a virtual clock, and a seeded scheduler
// that delays, drops, duplicates and reorders messages, partitions the
// network until a global stabilisation time (GST), crashes and restarts
// validators from their persisted state (also in the middle of carrying
// out a step), and lets Byzantine validators equivocate, repeat
// themselves, stay silent, vote for invalid blocks, propose late, forge
// signatures, replay votes from another chain, height or round, vote with
// keys outside the validator set, propose out of turn, or prevote a value
// to one validator only. Every message
// travels as the node's wire bytes, signed with the validator's
// secp256k1 key, and enters an honest core through State.Receive, which
// checks the signature. After every decision it checks agreement and
// validity, on every vote that honest validators never double-sign, and
// at the end that every honest validator decided every height up to the
// target (liveness after GST).
//
// The same Config and seed always produce the same run, event for event:
// Result.TraceHash fingerprints the whole trace, so a failing seed replays
// exactly.
package sim

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash"
	"math"
	"math/rand/v2"
	"time"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/consensus/cycle"
	"github.com/chaind/chaind/internal/types"
)

// Behaviour is what a Byzantine validator does.
type Behaviour uint8

// Byzantine behaviours.
const (
	Silent     Behaviour = iota // sends nothing
	Equivocate                  // coordinated: splits the honest validators with two proposals and votes for both sides, sending every vote three times
	Invalid                     // proposes invalid blocks and votes for them
	Late                        // follows the protocol but sends its proposals around timeoutPropose late
	Forge                       // sends a victim a proposal and a quorum of precommits for another value, signed with its own key in others' names
	Replay                      // the same attack with messages the validators really signed, but for another chain, and honest votes relabelled to other heights and rounds
	Sybil                       // Equivocate, plus the same votes from as many keys outside the validator set
	Hijack                      // proposes in rounds where it is not the proposer, ahead of the real proposer, to split the honest prevotes
	Selective                   // prevotes each honest proposal to one honest validator only (nil to the rest), so that one may lock alone
	Mixed                       // each Byzantine validator draws one of the above from the seed
)

var behaviourNames = [...]string{"silent", "equivocate", "invalid", "late", "forge", "replay", "sybil", "hijack", "selective", "mixed"}

func (b Behaviour) String() string {
	if int(b) < len(behaviourNames) {
		return behaviourNames[b]
	}
	return fmt.Sprintf("behaviour(%d)", uint8(b))
}

// ParseBehaviour is the inverse of Behaviour.String.
func ParseBehaviour(name string) (Behaviour, bool) {
	for i, n := range behaviourNames {
		if n == name {
			return Behaviour(i), true
		}
	}
	return 0, false
}

// coreless reports whether the adversary, not a core, drives a validator.
func (b Behaviour) coreless() bool { return b != Invalid && b != Late }

// Config describes one simulation.
type Config struct {
	Stakes    []int64 // one per validator
	Byzantine int     // how many validators (the last ones by index) are Byzantine
	Behaviour Behaviour
	Seed      uint64
	Heights   uint64 // target: every honest validator must decide 1..Heights

	Drop, Dup          float64       // per-message probabilities before GST
	MinDelay, MaxDelay time.Duration // delivery delay before GST (reordering follows)
	PostGSTDelay       time.Duration // delay bound after GST
	GST                time.Duration // global stabilisation time; no drops or partitions after it
	Partitions         bool          // random two-way partitions before GST
	Crashes            int           // crash/restart episodes of honest validators before GST
	// TornCrashes are crash/restart episodes before GST that hit an
	// honest validator while it carries out a step: right after its first
	// signed message of the step has left, before the step's remaining
	// effects. The core's Persist effect comes first, so nothing is lost.
	TornCrashes int

	Timeouts consensus.Timeouts
	// MaxTime bounds the virtual time (default GST + Heights·10s + 60s).
	MaxTime time.Duration
	// Trace, when set, receives one line per processed event.
	Trace func(string)
	// BlockTime, when set, is how long a proposer takes to answer the
	// core's request for a value (a node waits for its block time, then
	// builds), instead of a millisecond. The value it builds then carries
	// the last commit its core has gathered for the previous height (see
	// lastcommit.go): with it set, the simulator checks the liveness
	// accounting and reports it in Result.Absent.
	BlockTime time.Duration
	// CoreConfig, when set, may change the configuration of every honest
	// core before it is built (at boot and at each restart). The tests
	// of package consensus use it to switch safety rules off, which only
	// their test build can do.
	CoreConfig func(*consensus.Config)
}

// DefaultTimeouts are the simulator's timeouts: short, but well above the
// default message delays.
var DefaultTimeouts = consensus.Timeouts{
	Propose: 300 * time.Millisecond, ProposeDelta: 100 * time.Millisecond,
	Prevote: 200 * time.Millisecond, PrevoteDelta: 100 * time.Millisecond,
	Precommit: 200 * time.Millisecond, PrecommitDelta: 100 * time.Millisecond,
	Retransmit: 600 * time.Millisecond,
}

// Result summarises a run.
type Result struct {
	Violations []string
	Decided    []uint64 // heights decided per validator (Byzantine ones included, for information)
	// Rounds per height over all honest decisions: rounds = decision round + 1.
	RoundsMean                           float64
	RoundsMax                            int32
	Sent, Delivered, Dropped, Duplicated int
	Rejected                             int // messages honest cores refused: malformed or badly signed
	Evidence                             int // equivocations detected by honest validators
	Events                               int
	EndTime                              time.Duration
	TraceHash                            [32]byte
	// Absent lists, per height h, the validators missing from the last
	// commit for h that the decided block of h+1 carries: those the
	// chain counts as having missed h. Only with Config.BlockTime, and
	// only for heights whose successor's value an honest core built.
	Absent map[uint64][]int
}

// OK reports whether the run found no violation.
func (r *Result) OK() bool { return len(r.Violations) == 0 }

type itemKind uint8

const (
	deliver itemKind = iota // a network message
	local                   // a timeout or an application answer; carries an incarnation
	crash
	restart
	tear  // arm a torn crash
	build // a proposer's value is ready (Config.BlockTime)
)

type item struct {
	at   time.Duration
	seq  uint64
	kind itemKind
	to   int
	from int
	inc  uint32
	ev   consensus.Event // local events
	msg  []byte          // network messages: the wire bytes
}

// queue is a binary min-heap of events by (time, sequence). Items are
// stored by value: with a hundred validators it holds tens of thousands of
// messages, and chasing pointers in comparisons dominated the run time.
type queue []item

func (q queue) less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}

func (q *queue) push(it item) {
	*q = append(*q, it)
	h := *q
	for i := len(h) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.less(i, p) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (q *queue) pop() item {
	h := *q
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h[n] = item{}
	h = h[:n]
	for i := 0; ; {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h.less(c+1, c) {
			c++
		}
		if !h.less(c, i) {
			break
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
	*q = h
	return top
}

type node struct {
	idx       int
	addr      types.Address
	byz       bool
	behaviour Behaviour
	core      *consensus.State // nil for adversary-driven validators
	sign      *signer
	up        bool
	inc       uint32
	tear      bool                // crash right after the next signed message leaves
	snapshot  *consensus.Snapshot // the "fsync'd file"
	committed []types.Hash        // the chain, which survives crashes
	certs     []consensus.Decide  // and the decisions' proofs, kept with it
	signed    map[uint64]map[voteKey]types.Hash
	group     int // partition side

	// With Config.BlockTime (lastcommit.go): the height this incarnation
	// of the core started at, the last LastCommit it reported, and the
	// precommits it accepted from the network.
	bootHeight uint64
	restored   bool // this incarnation resumed bootHeight from the snapshot
	lastCommit consensus.LastCommit
	heard      map[heardKey]bool
}

type voteKey struct {
	round int32
	typ   consensus.VoteType
}

// Sim is one simulation in progress.
type Sim struct {
	cfg       Config
	rng       *rand.Rand
	now       time.Duration
	seq       uint64
	q         queue
	nodes     []*node
	src       *cycle.Schedule
	res       Result
	decisions map[uint64]types.Hash // first honest decision per height
	rounds    int64                 // sum of rounds over honest decisions
	nDecided  int64
	adv       *adversary
	trace     hash.Hash
	partUntil time.Duration
	behind    int // honest validators still short of the target height
	byAddr    map[types.Address]int
	sigs      *consensus.SigCache          // shared by the honest cores: each message is verified once
	outsiders []*signer                    // keys outside the validator set (Sybil)
	otherNet  []*signer                    // the validators' keys signing for another chain (Replay)
	carried   map[types.Hash]carriedCommit // the last commit each built value carries (lastcommit.go)
}

// Run executes a simulation to completion.
func Run(cfg Config) Result {
	s, err := New(cfg)
	if err != nil {
		return Result{Violations: []string{err.Error()}}
	}
	return s.Run()
}

// New prepares a simulation.
func New(cfg Config) (*Sim, error) {
	n := len(cfg.Stakes)
	if n == 0 || cfg.Byzantine < 0 || cfg.Byzantine > n {
		return nil, fmt.Errorf("sim: bad validator counts (%d validators, %d Byzantine)", n, cfg.Byzantine)
	}
	if cfg.Timeouts == (consensus.Timeouts{}) {
		cfg.Timeouts = DefaultTimeouts
	}
	if cfg.MaxDelay == 0 {
		cfg.MinDelay, cfg.MaxDelay = 5*time.Millisecond, 50*time.Millisecond
	}
	if cfg.PostGSTDelay == 0 {
		cfg.PostGSTDelay = cfg.MaxDelay
	}
	if cfg.MaxTime == 0 {
		cfg.MaxTime = cfg.GST + time.Duration(cfg.Heights)*10*time.Second + time.Minute
	}
	s := &Sim{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)),
		decisions: make(map[uint64]types.Hash), trace: sha256.New(), byAddr: make(map[types.Address]int),
		sigs: consensus.NewSigCache(1 << 16)}
	members, outsiders, order := validatorKeys(ChainID, n, n)
	vals := make([]consensus.Validator, n)
	for i, st := range cfg.Stakes {
		vals[i] = consensus.Validator{Address: members[i].Address(), Power: st}
		s.byAddr[members[i].Address()] = i
	}
	set, err := consensus.NewValidatorSet(vals)
	if err != nil {
		return nil, err
	}
	s.src = cycle.NewSchedule(set)
	for _, o := range outsiders {
		s.outsiders = append(s.outsiders, newSigner(o))
	}
	other := signersFor(ChainID+1, n)
	for _, k := range order {
		s.otherNet = append(s.otherNet, newSigner(other[k]))
	}
	for i := range n {
		nd := &node{idx: i, addr: members[i].Address(), sign: newSigner(members[i]), byz: i >= n-cfg.Byzantine, up: true,
			signed: make(map[uint64]map[voteKey]types.Hash)}
		if nd.byz {
			nd.behaviour = cfg.Behaviour
			if nd.behaviour == Mixed {
				nd.behaviour = Behaviour(s.rng.IntN(int(Mixed)))
			}
		}
		s.nodes = append(s.nodes, nd)
	}
	s.adv = newAdversary(s)
	for _, nd := range s.nodes {
		if !nd.byz && cfg.Heights > 0 {
			s.behind++
		}
	}
	for _, nd := range s.nodes {
		if nd.byz && nd.behaviour.coreless() {
			continue
		}
		if err := s.boot(nd); err != nil {
			return nil, err
		}
	}
	s.planFaults()
	return s, nil
}

// nodeAddr is the address of validator i.
func (s *Sim) nodeAddr(i int) types.Address { return s.nodes[i].addr }

// index is the validator with address a, or -1.
func (s *Sim) index(a types.Address) int {
	if i, ok := s.byAddr[a]; ok {
		return i
	}
	return -1
}

// boot (re)starts a validator's core at the height after its chain,
// restoring its persisted state when it belongs to that height.
func (s *Sim) boot(nd *node) error {
	h := uint64(len(nd.committed)) + 1
	cc := consensus.Config{Self: nd.addr, ChainID: ChainID, Timeouts: s.cfg.Timeouts,
		KeepDecisions: 1 << 20, SigCache: s.sigs}
	if s.cfg.CoreConfig != nil && !nd.byz {
		s.cfg.CoreConfig(&cc)
	}
	set, err := s.src.ValidatorSet(h)
	if err != nil {
		return err
	}
	// The simulated network's set never changes: one run from h on.
	core, err := consensus.New(cc, h, consensus.ValidatorsEvent{From: h, To: math.MaxUint64, Set: set})
	if err != nil {
		return err
	}
	nd.bootHeight, nd.restored, nd.lastCommit, nd.heard = h, false, consensus.LastCommit{}, nil
	for _, d := range nd.certs[max(0, len(nd.certs)-64):] {
		core.RememberDecision(d)
	}
	if nd.snapshot != nil && nd.snapshot.Height == h {
		if err := core.Restore(*nd.snapshot); err != nil {
			return err
		}
		nd.restored = true
	}
	nd.core = core
	s.push(&item{at: s.now, kind: local, to: nd.idx, inc: nd.inc, ev: consensus.Start{}})
	return nil
}

func (s *Sim) push(it *item) {
	s.seq++
	it.seq = s.seq
	s.q.push(*it)
}

// planFaults schedules partitions and crash/restart episodes before GST.
func (s *Sim) planFaults() {
	if s.cfg.GST <= 0 {
		return
	}
	var honest []int
	for _, nd := range s.nodes {
		if !nd.byz {
			honest = append(honest, nd.idx)
		}
	}
	if len(honest) == 0 {
		return
	}
	for range s.cfg.Crashes {
		i := honest[s.rng.IntN(len(honest))]
		at := time.Duration(s.rng.Int64N(int64(s.cfg.GST)))
		back := at + time.Duration(s.rng.Int64N(int64(s.cfg.GST-at)+1))
		s.push(&item{at: at, kind: crash, to: i})
		s.push(&item{at: back, kind: restart, to: i})
	}
	for range s.cfg.TornCrashes {
		i := honest[s.rng.IntN(len(honest))]
		s.push(&item{at: time.Duration(s.rng.Int64N(int64(s.cfg.GST))), kind: tear, to: i})
	}
}

// Run processes events until every honest validator reached the target
// height or the time bound passed, then checks liveness.
func (s *Sim) Run() Result {
	for len(s.q) > 0 && !s.done() {
		it := s.q.pop()
		if it.at > s.cfg.MaxTime {
			break
		}
		s.now = it.at
		s.step(&it)
	}
	s.res.EndTime = s.now
	for _, nd := range s.nodes {
		s.res.Decided = append(s.res.Decided, uint64(len(nd.committed)))
		if !nd.byz && uint64(len(nd.committed)) < s.cfg.Heights {
			s.violation("liveness: validator %d decided %d of %d heights by %v", nd.idx, len(nd.committed), s.cfg.Heights, s.now)
		}
	}
	if s.nDecided > 0 {
		s.res.RoundsMean = float64(s.rounds) / float64(s.nDecided)
	}
	copy(s.res.TraceHash[:], s.trace.Sum(nil))
	return s.res
}

func (s *Sim) done() bool { return s.behind == 0 }

func (s *Sim) violation(format string, args ...any) {
	if len(s.res.Violations) < 20 {
		s.res.Violations = append(s.res.Violations, fmt.Sprintf("seed %d: ", s.cfg.Seed)+fmt.Sprintf(format, args...))
	}
}

func (s *Sim) step(it *item) {
	s.res.Events++
	s.record(it)
	nd := s.nodes[it.to]
	switch it.kind {
	case crash:
		s.crash(nd)
		return
	case restart:
		if !nd.up {
			nd.up = true
			if err := s.boot(nd); err != nil {
				s.violation("restart of %d: %v", nd.idx, err)
			}
		}
		return
	case tear:
		nd.tear = nd.up
		return
	case build:
		if !nd.up || it.inc != nd.inc || nd.core == nil {
			return
		}
		s.apply(nd, nd.core.Step(s.buildValue(nd, it.ev.(consensus.ValueEvent))))
	case local:
		if !nd.up || it.inc != nd.inc || nd.core == nil {
			return // a timer or answer of a previous incarnation
		}
		s.apply(nd, nd.core.Step(it.ev))
	case deliver:
		if !nd.up {
			s.res.Dropped++
			return
		}
		s.res.Delivered++
		if nd.core == nil {
			if ev, err := consensus.DecodeMessage(it.msg); err == nil {
				s.adv.observe(nd, ev)
			}
			return
		}
		below := nd.core.Height()
		effects, err := nd.core.Receive(s.nodeAddr(it.from), it.msg)
		if err != nil {
			if !nd.byz {
				s.res.Rejected++
			}
			return
		}
		s.hear(nd, below, it.msg)
		s.apply(nd, effects)
	}
}

func (s *Sim) crash(nd *node) {
	if nd.up {
		nd.up = false
		nd.tear = false
		nd.inc++
		nd.core = nil
	}
}

// apply carries out a core's effects in order, the way the node's driver
// does: Persist stores the snapshot (the simulated fsync'd file), our own
// proposals and votes are signed on the way out, and relayed votes are
// sent as received. A torn crash stops it after the first signed message.
func (s *Sim) apply(nd *node, effects []consensus.Effect) {
	for _, e := range effects {
		if !nd.up {
			return // crashed part way through the step
		}
		switch e := e.(type) {
		case consensus.Persist:
			snap := e.Snapshot
			nd.snapshot = &snap
		case consensus.BroadcastProposal:
			delay := time.Duration(0)
			if nd.behaviour == Late && nd.byz {
				t := s.cfg.Timeouts.Duration(consensus.TimeoutPropose, e.Proposal.Round)
				delay = t/2 + time.Duration(s.rng.Int64N(int64(t)))
			}
			s.broadcast(nd.idx, encodeProposal(nd.sign.proposal(e.Proposal)), delay)
			s.torn(nd)
		case consensus.BroadcastVote:
			s.checkDoubleSign(nd, e.Vote)
			s.broadcast(nd.idx, encodeVote(nd.sign.vote(e.Vote)), 0)
			s.torn(nd)
		case consensus.RelayVotes:
			for _, v := range e.Votes {
				if v.Validator != nd.addr {
					s.broadcast(nd.idx, encodeVote(v), 0)
				}
			}
		case consensus.BroadcastStatus:
			s.broadcast(nd.idx, consensus.EncodeMessage(consensus.StatusEvent{Height: e.Height, Round: e.Round}), 0)
		case consensus.SendVotes:
			s.sendVotes(nd, s.index(e.To), e.Votes)
		case consensus.SendDecision:
			to := s.index(e.To)
			p := e.Proposal
			if p.Signature == nil {
				p = nd.sign.proposal(p) // our own proposal, kept unsigned by the core
			}
			s.send(nd.idx, to, encodeProposal(p), 0)
			s.sendVotes(nd, to, e.Precommits)
		case consensus.ScheduleTimeout:
			s.push(&item{at: s.now + e.Duration, kind: local, to: nd.idx, inc: nd.inc, ev: consensus.TimeoutEvent{Timeout: e.Timeout}})
		case consensus.RequestValue:
			if s.cfg.BlockTime > 0 {
				s.push(&item{at: s.now + s.cfg.BlockTime, kind: build, to: nd.idx, inc: nd.inc,
					ev: consensus.ValueEvent{Height: e.Height, Round: e.Round}})
				continue
			}
			s.push(&item{at: s.now + time.Millisecond, kind: local, to: nd.idx, inc: nd.inc,
				ev: consensus.ValueEvent{Height: e.Height, Round: e.Round, Value: s.makeValue(nd, e.Height, e.Round)}})
		case consensus.RequestValidation:
			ok := validValue(e.Value.ID)
			if nd.byz && nd.behaviour == Invalid {
				ok = true // it believes in its own bad blocks
			}
			s.push(&item{at: s.now + time.Millisecond, kind: local, to: nd.idx, inc: nd.inc,
				ev: consensus.ValidatedEvent{Height: e.Height, ID: e.Value.ID, Valid: ok}})
		case consensus.Decide:
			s.decide(nd, e)
		case consensus.LastCommit:
			nd.lastCommit = e
		case consensus.EvidenceFound:
			if !nd.byz {
				s.res.Evidence++
				if i := s.index(e.A.Validator); i >= 0 && !s.nodes[i].byz {
					s.violation("evidence against honest validator %d: %+v / %+v", i, e.A, e.B)
				}
			}
		case consensus.Halt:
			s.violation("validator %d halted: %v", nd.idx, e.Err)
		}
	}
}

// torn crashes nd if a torn crash is armed, and plans its restart.
func (s *Sim) torn(nd *node) {
	if !nd.tear {
		return
	}
	s.crash(nd)
	s.push(&item{at: s.now + time.Duration(1+s.rng.IntN(400))*time.Millisecond, kind: restart, to: nd.idx})
}

// sendVotes sends votes as they are, signing our own (the core keeps them
// unsigned).
func (s *Sim) sendVotes(nd *node, to int, votes []consensus.Vote) {
	for _, v := range votes {
		if v.Signature == nil && v.Validator == nd.addr {
			v = nd.sign.vote(v)
		}
		s.send(nd.idx, to, encodeVote(v), 0)
	}
}

// Values are 32 bytes: height, round, proposer, a kind byte (0 valid,
// 1 invalid, 2 and 3 the two sides of an equivocation, 4 a hijacker's or
// forger's value) and a non-zero tail.
func value(h uint64, r int32, proposer int, kind byte) consensus.Value {
	var id types.Hash
	binary.BigEndian.PutUint64(id[0:], h)
	binary.BigEndian.PutUint32(id[8:], uint32(r))
	binary.BigEndian.PutUint32(id[12:], uint32(proposer))
	id[16] = kind
	id[31] = 1
	return consensus.Value{ID: id}
}

func validValue(id types.Hash) bool { return id[16] != 1 }

func (s *Sim) makeValue(nd *node, h uint64, r int32) consensus.Value {
	if nd.byz && nd.behaviour == Invalid {
		return value(h, r, nd.idx, 1)
	}
	return value(h, r, nd.idx, 0)
}

func (s *Sim) decide(nd *node, d consensus.Decide) {
	if d.Height != uint64(len(nd.committed))+1 {
		s.violation("validator %d decided height %d with %d committed", nd.idx, d.Height, len(nd.committed))
		return
	}
	nd.committed = append(nd.committed, d.Value.ID)
	nd.certs = append(nd.certs, d)
	delete(nd.signed, d.Height-min(d.Height, 3))
	if nd.byz {
		return
	}
	if uint64(len(nd.committed)) == s.cfg.Heights {
		s.behind--
	}
	if !validValue(d.Value.ID) {
		s.violation("validity: validator %d decided invalid value %x at height %d", nd.idx, d.Value.ID[:20], d.Height)
	}
	if prev, ok := s.decisions[d.Height]; !ok {
		s.decisions[d.Height] = d.Value.ID
		s.recordAbsent(d)
	} else if prev != d.Value.ID {
		s.violation("agreement: height %d decided as %x and %x (validator %d, round %d)", d.Height, prev[:20], d.Value.ID[:20], nd.idx, d.Round)
	}
	s.rounds += int64(d.Round) + 1
	s.nDecided++
	s.res.RoundsMax = max(s.res.RoundsMax, d.Round+1)
}

// checkDoubleSign makes sure an honest validator never signs two different
// votes for one height, round and type, across crashes included.
func (s *Sim) checkDoubleSign(nd *node, v consensus.Vote) {
	if nd.byz {
		return
	}
	m := nd.signed[v.Height]
	if m == nil {
		m = make(map[voteKey]types.Hash)
		nd.signed[v.Height] = m
	}
	k := voteKey{v.Round, v.Type}
	if old, ok := m[k]; ok && old != v.ID {
		s.violation("honest validator %d double-signed %v at %d/%d", nd.idx, v.Type, v.Height, v.Round)
	}
	m[k] = v.ID
}

func (s *Sim) broadcast(from int, msg []byte, extra time.Duration) {
	for to := range s.nodes {
		if to != from {
			s.send(from, to, msg, extra)
		}
	}
}

// send puts one message on the simulated network.
func (s *Sim) send(from, to int, msg []byte, extra time.Duration) {
	if to < 0 {
		return
	}
	s.res.Sent++
	pre := s.now < s.cfg.GST
	if pre {
		if s.cfg.Drop > 0 && s.rng.Float64() < s.cfg.Drop {
			s.res.Dropped++
			return
		}
		if s.cfg.Partitions && s.partitioned(from, to) {
			s.res.Dropped++
			return
		}
	}
	copies := 1
	if s.cfg.Dup > 0 && s.rng.Float64() < s.cfg.Dup {
		copies = 2
		s.res.Duplicated++
	}
	for range copies {
		lo, hi := s.cfg.MinDelay, s.cfg.MaxDelay
		if !pre {
			hi = s.cfg.PostGSTDelay
		}
		d := lo
		if hi > lo {
			d += time.Duration(s.rng.Int64N(int64(hi - lo)))
		}
		s.push(&item{at: s.now + d + extra, kind: deliver, to: to, from: from, msg: msg})
	}
}

// partitioned redraws a random two-way split of the validators every so
// often before GST, with some periods of no partition at all.
func (s *Sim) partitioned(a, b int) bool {
	if s.now >= s.partUntil {
		s.partUntil = s.now + time.Duration(200+s.rng.IntN(1500))*time.Millisecond
		whole := s.rng.IntN(3) == 0
		for _, nd := range s.nodes {
			nd.group = 0
			if !whole {
				nd.group = s.rng.IntN(2)
			}
		}
	}
	return s.nodes[a].group != s.nodes[b].group
}

// record folds an event into the trace hash (and the trace, if asked).
func (s *Sim) record(it *item) {
	var b [32]byte
	binary.BigEndian.PutUint64(b[0:], uint64(it.at))
	b[8] = byte(it.kind)
	binary.BigEndian.PutUint32(b[9:], uint32(it.to))
	binary.BigEndian.PutUint32(b[13:], uint32(it.from))
	s.trace.Write(b[:17])
	if it.kind == deliver {
		s.trace.Write(it.msg)
	} else {
		_, h, r, id := describe(it.ev)
		binary.BigEndian.PutUint64(b[0:], h)
		binary.BigEndian.PutUint32(b[8:], uint32(r))
		s.trace.Write(b[:12])
		s.trace.Write(id[:])
	}
	if s.cfg.Trace != nil {
		ev := it.ev
		if it.kind == deliver {
			ev, _ = consensus.DecodeMessage(it.msg)
		}
		code, h, r, id := describe(ev)
		s.cfg.Trace(fmt.Sprintf("%v kind=%d to=%d from=%d ev=%d h=%d r=%d id=%x", it.at, it.kind, it.to, it.from, code, h, r, id[:20]))
	}
}

func describe(ev consensus.Event) (code byte, h uint64, r int32, id types.Hash) {
	switch e := ev.(type) {
	case consensus.Start:
		return 1, 0, 0, id
	case consensus.ProposalEvent:
		return 2, e.Proposal.Height, e.Proposal.Round, e.Proposal.Value.ID
	case consensus.VoteEvent:
		return 2 + byte(e.Vote.Type), e.Vote.Height, e.Vote.Round, e.Vote.ID
	case consensus.TimeoutEvent:
		return 10 + byte(e.Timeout.Kind), e.Timeout.Height, e.Timeout.Round, id
	case consensus.ValueEvent:
		return 20, e.Height, e.Round, e.Value.ID
	case consensus.ValidatedEvent:
		if e.Valid {
			return 21, e.Height, 0, e.ID
		}
		return 22, e.Height, 0, e.ID
	case consensus.StatusEvent:
		return 23, e.Height, 0, id
	}
	return 0, 0, 0, id
}
