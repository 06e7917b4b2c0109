package bft

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/chain"
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
	r := newAppRig(t, 3, 4, 30_000_000, false)
	r.chains[0].Config.MaxExtra = MaxExtra // shared by the rig's chains
	ctx := context.Background()
	a, b := r.apps[0], r.apps[1]

	v1, err := a.Propose(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if blk, _, _ := DecodeValue(v1); len(blk.HeaderRef().Extra) != 0 {
		t.Fatalf("block 1 (no parent certificate, no evidence) has extra data %x", blk.HeaderRef().Extra)
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
	d, err := DecodeConsensusData(blk2.HeaderRef().Extra)
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
	propose := func(d ConsensusData) consensus.Value {
		built, err := r.chains[0].BuildBlock(chain.BuildParams{Coinbase: r.signers[0].Address(), Time: head.Time() + 1,
			ParentBeaconRoot: CertRoot(cert1.Encode()), Extra: d.Encode()}, nil)
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
		{"absent validator not reported", propose(ConsensusData{}), "absent validators"},
		{"a signer reported absent", propose(ConsensusData{Absent: []types.Address{r.signers[0].Address()}}), "absent validator 0"},
		{"evidence of the block's own height", propose(ConsensusData{Absent: absent, Evidence: []consensus.DuplicateVoteEvidence{r.equivocate(2, 2)}}), "not decided"},
		{"one offence twice", propose(ConsensusData{Absent: absent, Evidence: []consensus.DuplicateVoteEvidence{ev, ev}}), "reported twice"},
		{"forged evidence", propose(ConsensusData{Absent: absent, Evidence: []consensus.DuplicateVoteEvidence{forged}}), "invalid evidence"},
		{"evidence of an outsider", propose(ConsensusData{Absent: absent, Evidence: []consensus.DuplicateVoteEvidence{outsiders.equivocate(0, 1)}}), "not a validator"},
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

// Only the canonical encoding decodes, and what decodes re-encodes to the
// same bytes.
func TestConsensusDataCanonical(t *testing.T) {
	r := newAppRig(t, 5, 4, 30_000_000, false)
	d := ConsensusData{Absent: []types.Address{{1}, {2}}, Evidence: []consensus.DuplicateVoteEvidence{r.equivocate(1, 3)}}
	enc := d.Encode()
	got, err := DecodeConsensusData(enc)
	if err != nil || !bytes.Equal(got.Encode(), enc) {
		t.Fatalf("round trip: %v", err)
	}
	if (&ConsensusData{}).Encode() != nil {
		t.Fatal("empty data encodes to bytes")
	}
	for name, bad := range map[string][]byte{
		"empty lists spelled out": {0xc2, 0xc0, 0xc0},
		"trailing bytes":          append(bytes.Clone(enc), 0),
		"short address":           {0xc4, 0xc2, 0x81, 0x01, 0xc0},
		"a third list":            {0xc3, 0xc0, 0xc0, 0xc0},
		"not a list":              {0x80},
	} {
		if _, err := DecodeConsensusData(bad); !errors.Is(err, ErrConsensusData) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

func FuzzDecodeConsensusData(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0xc2, 0xc0, 0xc0})
	f.Add([]byte{0xd7, 0xd5, 0x94, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 0xc0})
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := DecodeConsensusData(b)
		if err == nil && !bytes.Equal(d.Encode(), b) {
			t.Fatalf("%x decodes but re-encodes to %x", b, d.Encode())
		}
	})
}
