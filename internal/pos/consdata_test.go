package pos

import (
	"bytes"
	"errors"
	"testing"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/types"
)

// equivocate signs two prevotes of one validator for different values at
// height and round 0.
func equivocate(t *testing.T, height uint64) consensus.DuplicateVoteEvidence {
	t.Helper()
	key := make([]byte, 32)
	key[0], key[31] = 9, 1
	s, err := consensus.NewSigner(8118, key)
	if err != nil {
		t.Fatal(err)
	}
	var votes [2]consensus.Vote
	for k := range votes {
		votes[k] = consensus.Vote{Type: consensus.Prevote, Height: height, ID: types.Hash{byte(k + 1)}, Validator: s.Address()}
		s.SignVote(&votes[k])
	}
	return consensus.NewDuplicateVoteEvidence(votes[0], votes[1])
}

// Only the canonical encoding decodes, and what decodes re-encodes to the
// same bytes.
func TestConsensusDataCanonical(t *testing.T) {
	d := ConsensusData{Absent: []types.Address{{1}, {2}}, Evidence: []consensus.DuplicateVoteEvidence{equivocate(t, 3)}}
	enc := d.Encode()
	got, err := DecodeConsensusData(enc)
	if err != nil || !bytes.Equal(got.Encode(), enc) {
		t.Fatalf("round trip: %v", err)
	}
	timed := ConsensusData{TimeMs: 1_700_000_000_123}
	if got, err := DecodeConsensusData(timed.Encode()); err != nil || got.TimeMs != timed.TimeMs || len(got.Absent) != 0 {
		t.Fatalf("time round trip: %+v %v", got, err)
	}
	if (&ConsensusData{}).Encode() != nil {
		t.Fatal("empty data encodes to bytes")
	}
	for name, bad := range map[string][]byte{
		"empty lists spelled out": {0xc2, 0xc0, 0xc0},
		"trailing bytes":          append(bytes.Clone(enc), 0),
		"short address":           {0xc4, 0xc2, 0x81, 0x01, 0xc0},
		"a third list":            {0xc3, 0xc0, 0xc0, 0xc0},
		"a zero time":             {0xc3, 0xc0, 0xc0, 0x80},
		"a time with a zero byte": {0xc5, 0xc0, 0xc0, 0x82, 0x00, 0x01},
		"a fourth element":        {0xc4, 0xc0, 0xc0, 0x01, 0x01},
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
	f.Add((&ConsensusData{TimeMs: 1_700_000_000_123}).Encode())
	f.Add([]byte{0xd7, 0xd5, 0x94, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 0xc0})
	f.Fuzz(func(t *testing.T, b []byte) {
		d, err := DecodeConsensusData(b)
		if err == nil && !bytes.Equal(d.Encode(), b) {
			t.Fatalf("%x decodes but re-encodes to %x", b, d.Encode())
		}
	})
}

// The block-time rule of chaind's chains: a block recording its time in
// milliseconds may share its parent's second but must come after its
// parent's milliseconds, with the header's seconds its own; one without
// keeps Ethereum's strictly later timestamp.
func TestCheckTime(t *testing.T) {
	at := func(sec, ms uint64) *types.Header {
		return &types.Header{Time: sec, Extra: (&ConsensusData{TimeMs: ms}).Encode()}
	}
	for _, tc := range []struct {
		name          string
		parent, child *types.Header
		ok            bool
	}{
		{"seconds after seconds", at(10, 0), at(11, 0), true},
		{"equal seconds without milliseconds", at(10, 0), at(10, 0), false},
		{"earlier seconds", at(10, 0), at(9, 0), false},
		{"same second, later milliseconds", at(10, 10_250), at(10, 10_500), true},
		{"same second after a parent without milliseconds", at(10, 0), at(10, 10_001), true},
		{"the parent's own millisecond", at(10, 10_500), at(10, 10_500), false},
		{"before the parent", at(10, 10_500), at(10, 10_400), false},
		{"milliseconds of another second", at(10, 10_500), at(10, 11_000), false},
		{"next second", at(10, 10_900), at(11, 11_000), true},
		{"seconds after a millisecond parent", at(10, 10_900), at(11, 0), true},
	} {
		err := (*Engine)(nil).CheckTime(tc.parent, tc.child)
		if (err == nil) != tc.ok || (err != nil && !errors.Is(err, chain.ErrBadTimestamp)) {
			t.Errorf("%s: %v, want ok %v", tc.name, err, tc.ok)
		}
	}
	if got := TimeMs(at(10, 10_250)); got != 10_250 {
		t.Errorf("TimeMs %d", got)
	}
	if got := TimeMs(at(10, 0)); got != 10_000 {
		t.Errorf("TimeMs of a block without it: %d", got)
	}
}

// Prepare orders the milliseconds after the parent's and keeps the
// header's seconds in step; a caller's own extra data gets seconds.
func TestPrepareTime(t *testing.T) {
	parent := &types.Header{Time: 10, Extra: (&ConsensusData{TimeMs: 10_700}).Encode()}
	for _, tc := range []struct {
		name            string
		a               chain.Attributes
		wantMs, wantSec uint64
	}{
		{"the clock", chain.Attributes{Time: 10, TimeMs: 10_900}, 10_900, 10},
		{"a clock behind the parent", chain.Attributes{Time: 10, TimeMs: 10_300}, 10_701, 10},
		{"seconds only", chain.Attributes{Time: 11}, 0, 11},
		{"own extra data", chain.Attributes{Time: 10, TimeMs: 10_900, Extra: []byte{}}, 0, 11},
	} {
		a := tc.a
		prepareTime(parent, &a)
		if a.TimeMs != tc.wantMs || a.Time != tc.wantSec {
			t.Errorf("%s: %d ms, %d s; want %d ms, %d s", tc.name, a.TimeMs, a.Time, tc.wantMs, tc.wantSec)
		}
	}
}
