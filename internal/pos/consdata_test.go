package pos

import (
	"bytes"
	"errors"
	"testing"

	"github.com/chaind/chaind/consensus"
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
