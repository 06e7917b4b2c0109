package bft

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/pos"
	"github.com/chaind/chaind/internal/types"
)

// equivocate signs two prevotes of validator i for different values at
// height and round 0.
func (r *appRig) equivocate(i int, height uint64) consensus.DuplicateVoteEvidence {
	var votes [2]consensus.Vote
	for k := range votes {
		votes[k] = consensus.Vote{Type: consensus.Prevote, Height: height, ID: types.Hash{byte(k + 1)}, Validator: r.signers[i].Address()}
		r.signers[i].SignVote(&votes[k])
	}
	return consensus.NewDuplicateVoteEvidence(votes[0], votes[1])
}

// On a chain that carries consensus data, a proposal names the parent's
// validators missing from the parent's certificate and carries pooled
// evidence; other validators refuse any block whose data differs from
// what they can check.
func TestConsensusDataInProposals(t *testing.T) {
	r := newAppRigEngine(t, 3, 4, 30_000_000, false, func(vals consensus.ValidatorSource) chain.Engine {
		return pos.NewWithValidators(vals) // the header rules over the rig's fixed set
	})
	ctx := context.Background()
	a, b := r.apps[0], r.apps[1]

	v1, err := a.Propose(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Block 1 (no parent certificate, no evidence) records only its time,
	// to the millisecond, taken from the clock.
	blk1, _, _ := DecodeValue(v1)
	if d, err := pos.DecodeConsensusData(blk1.HeaderRef().Extra); err != nil || len(d.Absent) != 0 || len(d.Evidence) != 0 ||
		d.TimeMs/1000 != blk1.Time() || time.Since(time.UnixMilli(int64(d.TimeMs))).Abs() > time.Minute {
		t.Fatalf("block 1 consensus data %+v %v, time %d", d, err, blk1.Time())
	}
	cert1 := r.decide(1, v1) // signed by validators 0, 1 and 2

	// Evidence: validator 3 equivocated at height 1.
	ev := r.equivocate(3, 1)
	if err := a.AddEvidence(ev); err != nil {
		t.Fatal(err)
	}
	if err := a.AddEvidence(r.equivocate(3, 1)); err != nil || len(a.PendingEvidence()) != 1 {
		t.Fatalf("the same offence again: %v, %d pooled", err, len(a.PendingEvidence()))
	}
	forged := ev
	forged.B.Signature = bytes.Clone(forged.A.Signature)
	outsiders := newAppRig(t, 4, 4, 30_000_000, false)
	for name, bad := range map[string]consensus.DuplicateVoteEvidence{
		"a height not reached":          r.equivocate(3, 5),
		"a validator outside the set":   outsiders.equivocate(0, 1),
		"a signature of the other vote": forged,
	} {
		if err := a.AddEvidence(bad); !errors.Is(err, consensus.ErrEvidence) {
			t.Errorf("%s: %v", name, err)
		}
	}

	v2, err := a.Propose(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	blk2, _, _ := DecodeValue(v2)
	d, err := pos.DecodeConsensusData(blk2.HeaderRef().Extra)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Absent) != 1 || d.Absent[0] != r.signers[3].Address() || len(d.Evidence) != 1 || !bytes.Equal(d.Evidence[0].Encode(), ev.Encode()) {
		t.Fatalf("consensus data %+v", d)
	}
	if err := b.Validate(ctx, 2, v2); err != nil {
		t.Fatalf("valid proposal refused: %v", err)
	}

	head := r.chains[0].Head()
	propose := func(d pos.ConsensusData) consensus.Value {
		extra := d.Encode()
		if extra == nil {
			extra = []byte{} // chosen empty: the engine fills in only a nil extra
		}
		built, err := r.chains[0].BuildBlock(chain.BuildParams{Coinbase: r.signers[0].Address(), Time: head.Time() + 1,
			ParentBeaconRoot: pos.CertRoot(cert1.Encode()), Extra: extra}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return EncodeValue(built.Block, cert1.Encode())
	}
	absent := []types.Address{r.signers[3].Address()}
	for _, tc := range []struct {
		name string
		v    consensus.Value
		err  string
	}{
		{"absent validator not reported", propose(pos.ConsensusData{}), "absent validators"},
		{"a signer reported absent", propose(pos.ConsensusData{Absent: []types.Address{r.signers[0].Address()}}), "absent validator 0"},
		{"evidence of the block's own height", propose(pos.ConsensusData{Absent: absent, Evidence: []consensus.DuplicateVoteEvidence{r.equivocate(2, 2)}}), "not decided"},
		{"one offence twice", propose(pos.ConsensusData{Absent: absent, Evidence: []consensus.DuplicateVoteEvidence{ev, ev}}), "reported twice"},
		{"forged evidence", propose(pos.ConsensusData{Absent: absent, Evidence: []consensus.DuplicateVoteEvidence{forged}}), "invalid evidence"},
		{"evidence of an outsider", propose(pos.ConsensusData{Absent: absent, Evidence: []consensus.DuplicateVoteEvidence{outsiders.equivocate(0, 1)}}), "not a validator"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := b.Validate(ctx, 2, tc.v)
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Fatalf("got %v, want %q", err, tc.err)
			}
		})
	}

	// Once a decided block carried it, the evidence leaves the pool.
	r.decide(2, v2)
	if n := len(a.PendingEvidence()); n != 0 {
		t.Fatalf("%d pieces of evidence still pooled", n)
	}
}

// A block that reaches a node through block sync, certified by a quorum
// but with consensus data the engine refuses, is not stored: the header
// rules a validator applies to a proposal apply to synced blocks too.
func TestSyncedConsensusDataChecked(t *testing.T) {
	r := newAppRigEngine(t, 5, 4, 30_000_000, false, func(vals consensus.ValidatorSource) chain.Engine {
		return pos.NewWithValidators(vals)
	})
	ctx := context.Background()
	v1, err := r.apps[0].Propose(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	cert1 := r.decide(1, v1) // validator 3 is absent from it
	src, synced := r.chains[0], r.chains[1]
	build := func(d pos.ConsensusData) *types.Block {
		extra := d.Encode()
		if extra == nil {
			extra = []byte{}
		}
		built, err := src.BuildBlock(chain.BuildParams{Coinbase: r.signers[0].Address(), Time: src.Head().Time() + 1,
			ParentBeaconRoot: pos.CertRoot(cert1.Encode()), Extra: extra}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return built.Block
	}
	for _, tc := range []struct {
		name string
		d    pos.ConsensusData
	}{
		{"absent validator not reported", pos.ConsensusData{}},
		{"a signer reported absent", pos.ConsensusData{Absent: []types.Address{r.signers[0].Address(), r.signers[3].Address()}}},
	} {
		bad := build(tc.d)
		cert := r.certify(2, bad.Hash(), 0, 1, 2).Encode()
		if n, err := synced.InsertCertifiedChain([]*types.Block{bad}, [][]byte{cert}, nil); n != 0 || !errors.Is(err, pos.ErrConsensusData) {
			t.Fatalf("%s: sync inserted %d, %v", tc.name, n, err)
		}
		if _, err := synced.InsertCertified(bad, cert); !errors.Is(err, pos.ErrConsensusData) {
			t.Fatalf("%s: certified insert: %v", tc.name, err)
		}
		if synced.Head().Number() != 1 {
			t.Fatalf("%s: head %d", tc.name, synced.Head().Number())
		}
	}
	// The block with the data the certificate calls for goes in.
	good := build(pos.ConsensusData{Absent: []types.Address{r.signers[3].Address()}})
	cert := r.certify(2, good.Hash(), 0, 1, 2).Encode()
	if n, err := synced.InsertCertifiedChain([]*types.Block{good}, [][]byte{cert}, nil); n != 1 || err != nil {
		t.Fatalf("valid block: %d %v", n, err)
	}
}
