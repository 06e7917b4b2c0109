package bft

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/consensus/cycle"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
)

const chainID = 8118

// testApp decides opaque blocks: 8 bytes of height, the proposer's address
// and 8 bytes of nonce, identified by their keccak256. It verifies every
// commit certificate it is given.
type testApp struct {
	mu     sync.Mutex
	self   types.Address
	vals   consensus.ValidatorSource
	chain  []consensus.Value
	nonce  uint64
	commit chan uint64
	// stateFile is the driver's; a commit checks that the snapshot of the
	// next height was not persisted before the block was stored.
	stateFile string
}

func (a *testApp) Propose(_ context.Context, h uint64) (consensus.Value, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.nonce++
	data := binary.BigEndian.AppendUint64(nil, h)
	data = append(data, a.self[:]...)
	data = binary.BigEndian.AppendUint64(data, a.nonce)
	return consensus.Value{ID: crypto.Keccak256(data), Data: data}, nil
}

func (a *testApp) Validate(_ context.Context, _ uint64, v consensus.Value) error {
	if len(v.Data) != 36 || types.Hash(crypto.Keccak256(v.Data)) != v.ID {
		return errors.New("bad block")
	}
	return nil
}

func (a *testApp) Commit(v consensus.Value, cert *consensus.Certificate) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	h := uint64(len(a.chain)) + 1
	if got := binary.BigEndian.Uint64(v.Data); got != h {
		return fmt.Errorf("block for height %d committed at %d", got, h)
	}
	vals, err := a.vals.ValidatorSet(h)
	if err != nil {
		return err
	}
	if err := consensus.VerifyCertificate(chainID, vals, h, v.ID, cert); err != nil {
		return err
	}
	if a.stateFile != "" {
		if snap, err := loadSnapshot(a.stateFile); err == nil && snap.Height > h {
			return fmt.Errorf("state file at height %d before block %d was stored", snap.Height, h)
		}
	}
	a.chain = append(a.chain, v)
	select {
	case a.commit <- h:
	default:
	}
	return nil
}

func (a *testApp) height() uint64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	return uint64(len(a.chain))
}

var fastTimeouts = consensus.Timeouts{
	Propose: 400 * time.Millisecond, ProposeDelta: 200 * time.Millisecond,
	Prevote: 150 * time.Millisecond, PrevoteDelta: 100 * time.Millisecond,
	Precommit: 150 * time.Millisecond, PrecommitDelta: 100 * time.Millisecond,
	Retransmit: 500 * time.Millisecond,
}

type testNet struct {
	t       *testing.T
	net     *MemNetwork
	signers []*consensus.Signer
	sched   *cycle.Schedule
	apps    []*testApp
	cancel  []context.CancelFunc
	done    []chan error
	dir     string
}

func newTestNet(t *testing.T, powers []int64) *testNet {
	tn := &testNet{t: t, net: NewMemNetwork(chainID), dir: t.TempDir()}
	var vals []consensus.Validator
	for i, p := range powers {
		key := make([]byte, 32)
		key[0], key[31] = 7, byte(i+1)
		s, err := consensus.NewSigner(chainID, key)
		if err != nil {
			t.Fatal(err)
		}
		tn.signers = append(tn.signers, s)
		vals = append(vals, consensus.Validator{Address: s.Address(), Power: p})
	}
	set, err := consensus.NewValidatorSet(vals)
	if err != nil {
		t.Fatal(err)
	}
	tn.sched = cycle.NewSchedule(set)
	for i := range powers {
		tn.apps = append(tn.apps, &testApp{self: tn.signers[i].Address(), vals: tn.sched, commit: make(chan uint64, 1)})
	}
	tn.cancel = make([]context.CancelFunc, len(powers))
	tn.done = make([]chan error, len(powers))
	return tn
}

// start runs validator i from the height after its chain.
func (tn *testNet) start(i int) {
	tn.apps[i].stateFile = filepath.Join(tn.dir, fmt.Sprintf("v%d.state", i))
	d, err := New(Config{
		Signer: tn.signers[i], Validators: tn.sched, Timeouts: fastTimeouts,
		Transport: tn.net.Join(tn.signers[i].Address()), App: tn.apps[i],
		Height:    tn.apps[i].height() + 1,
		StateFile: tn.apps[i].stateFile,
	})
	if err != nil {
		tn.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	tn.cancel[i] = cancel
	tn.done[i] = make(chan error, 1)
	go func() { tn.done[i] <- d.Run(ctx) }()
}

// crash stops validator i and cuts it off the network.
func (tn *testNet) crash(i int) {
	tn.net.Leave(tn.signers[i].Address())
	tn.cancel[i]()
	if err := <-tn.done[i]; !errors.Is(err, context.Canceled) {
		tn.t.Fatalf("validator %d stopped with %v", i, err)
	}
	tn.cancel[i] = nil
}

func (tn *testNet) stopAll() {
	for i, c := range tn.cancel {
		if c != nil {
			tn.crash(i)
		}
	}
}

// waitHeights waits until the given validators committed at least h
// heights. The bound is generous: it only turns a hang into a failure.
func (tn *testNet) waitHeights(h uint64, who ...int) {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		ok := true
		for _, i := range who {
			if tn.apps[i].height() < h {
				ok = false
			}
			select {
			case err := <-tn.done[i]:
				tn.cancel[i]()
				tn.cancel[i] = nil
				tn.t.Fatalf("validator %d stopped: %v", i, err)
			default:
			}
		}
		if ok {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, i := range who {
		tn.t.Logf("validator %d at height %d", i, tn.apps[i].height())
	}
	tn.t.Fatalf("validators %v did not reach height %d", who, h)
}

func (tn *testNet) checkAgreement() {
	for h := 0; ; h++ {
		var first *consensus.Value
		seen := false
		for _, a := range tn.apps {
			a.mu.Lock()
			if h < len(a.chain) {
				seen = true
				if first == nil {
					first = &a.chain[h]
				} else if first.ID != a.chain[h].ID {
					tn.t.Fatalf("height %d: %x vs %x", h+1, first.ID[:4], a.chain[h].ID[:4])
				}
			}
			a.mu.Unlock()
		}
		if !seen {
			return
		}
	}
}

// Four validators on the in-memory transport with the real clock decide
// heights; with one of them crashed (1/4 of the power) the others go on.
func TestFourValidatorsOneCrashed(t *testing.T) {
	tn := newTestNet(t, []int64{1, 1, 1, 1})
	for i := range 4 {
		tn.start(i)
	}
	defer tn.stopAll()
	tn.waitHeights(3, 0, 1, 2, 3)
	tn.crash(3)
	h := tn.apps[0].height()
	tn.waitHeights(h+5, 0, 1, 2)
	tn.checkAgreement()
}

// A validator restarted from its state file catches up and never signs
// two different votes for one height, round and type: every vote on the
// network is checked.
func TestRestartNeverDoubleSigns(t *testing.T) {
	tn := newTestNet(t, []int64{1, 1, 1, 1})
	var mu sync.Mutex
	seen := make(map[string]types.Hash)
	var conflict string
	tn.net.Tap(func(from types.Address, msg []byte) {
		ev, err := DecodeMessage(msg)
		if err != nil {
			return
		}
		v, ok := ev.(consensus.VoteEvent)
		if !ok {
			return
		}
		k := fmt.Sprintf("%x/%d/%d/%d", v.Vote.Validator[:4], v.Vote.Height, v.Vote.Round, v.Vote.Type)
		mu.Lock()
		if old, ok := seen[k]; ok && old != v.Vote.ID {
			conflict = k
		}
		seen[k] = v.Vote.ID
		mu.Unlock()
	})
	for i := range 4 {
		tn.start(i)
	}
	defer tn.stopAll()
	for round := range 3 {
		tn.waitHeights(uint64(2+3*round), 0, 1, 2, 3)
		victim := round % 4
		tn.crash(victim)
		time.Sleep(100 * time.Millisecond)
		tn.start(victim)
	}
	tn.waitHeights(12, 0, 1, 2, 3)
	tn.checkAgreement()
	mu.Lock()
	defer mu.Unlock()
	if conflict != "" {
		t.Fatalf("double sign on the wire: %s", conflict)
	}
}

// The signing guard refuses to contradict a vote recorded in the state file.
func TestStateFileGuard(t *testing.T) {
	tn := newTestNet(t, []int64{1, 1, 1, 1})
	path := filepath.Join(tn.dir, "guard.state")
	nilVote := consensus.Vote{Type: consensus.Prevote, Height: 1, Round: 0, ID: consensus.NilID, Validator: tn.signers[0].Address()}
	snap := consensus.Snapshot{Height: 1, Round: 0, Step: consensus.StepPrevote, LockedRound: -1, ValidRound: -1, Votes: []consensus.Vote{nilVote}}
	if err := saveSnapshot(path, snap); err != nil {
		t.Fatal(err)
	}
	d, err := New(Config{Signer: tn.signers[0], Validators: tn.sched, Transport: tn.net.Join(tn.signers[0].Address()), App: tn.apps[0], Height: 1, StateFile: path})
	if err != nil {
		t.Fatal(err)
	}
	if d.core.Round() != 0 || d.core.CurrentStep() != consensus.StepPrevote {
		t.Fatalf("restored at %d/%v", d.core.Round(), d.core.CurrentStep())
	}
	other := nilVote
	other.ID = types.Hash{1}
	if _, err := d.sign(other); !errors.Is(err, ErrWouldDoubleSign) {
		t.Fatalf("sign contradicting vote: %v", err)
	}
	if v, err := d.sign(nilVote); err != nil || consensus.VerifyVote(chainID, v) != nil {
		t.Fatalf("re-signing the same vote: %v, signature ok: %v", err, consensus.VerifyVote(chainID, v))
	}
	// A state file ahead of the chain is refused.
	if _, err := New(Config{Signer: tn.signers[0], Validators: tn.sched, Transport: tn.net.Join(tn.signers[0].Address()), App: tn.apps[0], Height: 0 + 1, StateFile: path}); err != nil {
		t.Fatal(err)
	}
	snap.Height = 5
	saveSnapshot(path, snap)
	if _, err := New(Config{Signer: tn.signers[0], Validators: tn.sched, Transport: tn.net.Join(tn.signers[0].Address()), App: tn.apps[0], Height: 2, StateFile: path}); !errors.Is(err, ErrStateAhead) {
		t.Fatalf("state file ahead of the chain: %v", err)
	}
	// A sole validator whose store lost blocks starts afresh instead.
	d, err = New(Config{Signer: tn.signers[0], Validators: tn.sched, Transport: tn.net.Join(tn.signers[0].Address()), App: tn.apps[0], Height: 2, StateFile: path, ResetStateAhead: true})
	if err != nil || d.Height() != 2 || d.core.Round() != 0 || len(d.signed) != 0 {
		t.Fatalf("reset of a state file ahead: %v", err)
	}
}

func TestMessageRoundTrip(t *testing.T) {
	s := consensus.Vote{Type: consensus.Prevote, Height: 3, Round: 1, ID: types.Hash{4}}
	for _, ev := range []consensus.Event{
		consensus.VoteEvent{Vote: s},
		consensus.ProposalEvent{Proposal: consensus.Proposal{Height: 3, Round: 1, ValidRound: 0, Value: consensus.Value{ID: types.Hash{4}, Data: []byte{1, 2}}}},
		consensus.StatusEvent{Height: 9, Round: 2},
	} {
		got, err := DecodeMessage(EncodeMessage(ev))
		if err != nil {
			t.Fatal(err)
		}
		if string(EncodeMessage(got)) != string(EncodeMessage(ev)) {
			t.Fatalf("round trip of %T changed it", ev)
		}
	}
	for _, bad := range [][]byte{nil, {9}, {2}, {3, 0xc1, 0x01}} {
		if _, err := DecodeMessage(bad); err == nil {
			t.Errorf("DecodeMessage(%x) accepted", bad)
		}
	}
}

func FuzzDecodeMessage(f *testing.F) {
	f.Add(EncodeMessage(consensus.StatusEvent{Height: 1, Round: 1}))
	f.Add(EncodeMessage(consensus.VoteEvent{Vote: consensus.Vote{Type: consensus.Precommit}}))
	f.Fuzz(func(t *testing.T, b []byte) { DecodeMessage(b) })
}

// A validator alone among four cannot reach a quorum: its height goes on
// without a decision, and past StallAfter it says so through Stalled,
// which the node turns into a warning for its operator.
func TestStalledWithoutQuorum(t *testing.T) {
	tn := newTestNet(t, []int64{1, 1, 1, 1})
	stalled := make(chan uint64, 16)
	tn.apps[0].stateFile = filepath.Join(tn.dir, "v0.state")
	d, err := New(Config{
		Signer: tn.signers[0], Validators: tn.sched, Timeouts: fastTimeouts,
		Transport: tn.net.Join(tn.signers[0].Address()), App: tn.apps[0],
		Height: 1, StateFile: tn.apps[0].stateFile, StallAfter: time.Second,
		Stalled: func(h uint64, _ int32, waited time.Duration) {
			if waited < time.Second {
				t.Errorf("stalled after %v, before StallAfter", waited)
			}
			select {
			case stalled <- h:
			default:
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- d.Run(ctx) }()
	defer func() { cancel(); <-done }()
	select {
	case h := <-stalled:
		if h != 1 {
			t.Fatalf("stalled at height %d, want 1", h)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("a validator without a quorum never reported itself stalled")
	}
	if h := tn.apps[0].height(); h != 0 {
		t.Fatalf("a lone validator of four committed height %d", h)
	}
}
