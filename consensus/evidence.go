package consensus

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/chaind/chaind/rlp"
)

// ErrEvidence wraps every reason double-sign evidence is rejected.
var ErrEvidence = errors.New("consensus: invalid evidence")

// DuplicateVoteEvidence is proof that a validator signed two different
// votes of the same type for the same height and round (one may be nil).
// Anyone holding the validator set of that height can check it.
type DuplicateVoteEvidence struct {
	A, B Vote
}

// EvidenceSink receives verified double-sign evidence: the staking layer,
// which slashes and jails at the next cycle boundary.
type EvidenceSink interface {
	ReportDoubleSign(ev DuplicateVoteEvidence)
}

// NewDuplicateVoteEvidence orders the two votes canonically (by value
// hash), so the same offence always yields the same evidence bytes.
func NewDuplicateVoteEvidence(a, b Vote) DuplicateVoteEvidence {
	if bytes.Compare(a.ID[:], b.ID[:]) > 0 {
		a, b = b, a
	}
	return DuplicateVoteEvidence{A: a, B: b}
}

// Verify checks the evidence against the validator set of its height.
func (e DuplicateVoteEvidence) Verify(chainID uint64, vals *ValidatorSet) error {
	a, b := e.A, e.B
	switch {
	case a.Validator != b.Validator:
		return fmt.Errorf("%w: votes of two validators", ErrEvidence)
	case a.Type != b.Type || a.Height != b.Height || a.Round != b.Round:
		return fmt.Errorf("%w: votes for different steps", ErrEvidence)
	case a.ID == b.ID:
		return fmt.Errorf("%w: votes agree", ErrEvidence)
	case bytes.Compare(a.ID[:], b.ID[:]) > 0:
		return fmt.Errorf("%w: votes not in canonical order", ErrEvidence)
	}
	if _, ok := vals.Index(a.Validator); !ok {
		return fmt.Errorf("%w: %x is not a validator at height %d", ErrEvidence, a.Validator, a.Height)
	}
	if err := VerifyVote(chainID, a); err != nil {
		return fmt.Errorf("%w: first vote: %v", ErrEvidence, err)
	}
	if err := VerifyVote(chainID, b); err != nil {
		return fmt.Errorf("%w: second vote: %v", ErrEvidence, err)
	}
	return nil
}

// Encode returns rlp([voteA, voteB]).
func (e DuplicateVoteEvidence) Encode() []byte {
	var b rlp.Buffer
	l := b.List()
	b.WriteRaw(EncodeVote(e.A))
	b.WriteRaw(EncodeVote(e.B))
	b.ListEnd(l)
	return b.Bytes()
}

// DecodeDuplicateVoteEvidence parses Encode output (shape only; Verify
// checks the content).
func DecodeDuplicateVoteEvidence(enc []byte) (DuplicateVoteEvidence, error) {
	content, rest, err := rlp.SplitList(enc)
	if err != nil || len(rest) != 0 {
		return DuplicateVoteEvidence{}, fmt.Errorf("%w: evidence", ErrMalformed)
	}
	var votes [2]Vote
	for i := range votes {
		_, _, r, err := rlp.Split(content)
		if err != nil {
			return DuplicateVoteEvidence{}, fmt.Errorf("%w: evidence: %v", ErrMalformed, err)
		}
		if votes[i], err = DecodeVote(content[:len(content)-len(r)]); err != nil {
			return DuplicateVoteEvidence{}, err
		}
		content = r
	}
	if len(content) != 0 {
		return DuplicateVoteEvidence{}, fmt.Errorf("%w: evidence has extra items", ErrMalformed)
	}
	return DuplicateVoteEvidence{A: votes[0], B: votes[1]}, nil
}
