package pos

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rlp"
)

// Consensus data of a proof-of-stake block: what the chain's penalties
// need to know about consensus, carried in the header's extra data as
// rlp([[absent address, …], [evidence, …]]) (empty when both lists are).
//
// The extra data is the one header field whose content Ethereum leaves to
// the chain; using it keeps the header's fields, their order and the
// block hash rule exactly Ethereum's, so blocks, proofs and light clients
// work unchanged, and the data is hashed, stored and synced with the
// block. Only chains with the staking rules lift the 32-byte limit on it
// (Engine.MaxExtra); imported Ethereum chains never do.
//
// Absent are the validators of the parent's height whose precommit is not
// in the parent's certificate (which the block commits to through its
// ParentBeaconRoot), in validator-set order: they missed the parent. That
// certificate holds every precommit for the parent that reached the
// block's proposer before it built the block, not only the quorum that
// decided it (consensus.LastCommit), so a validator is absent only when
// none of its precommits for the parent arrived in that window.
// Evidence is double-sign evidence against validators of recent heights.
// Validators check both (Engine.VerifyHeader); execution (the staking end-of-block
// rule) takes them as given, since a certified block was validated by a
// quorum.
type ConsensusData struct {
	Absent   []types.Address
	Evidence []consensus.DuplicateVoteEvidence
	// TimeMs is the block's time in Unix milliseconds, 0 when the block
	// does not record it (see CheckTime). Encoded as a third element only
	// when set, so the data of blocks without it reads as before.
	TimeMs uint64
}

// MaxEvidencePerBlock bounds the evidence one block carries, and so the
// extra data: MaxExtra covers this much evidence and the absence of a
// thousand validators.
const MaxEvidencePerBlock = 16

// IsEmpty reports whether d has nothing to say.
func (d *ConsensusData) IsEmpty() bool {
	return len(d.Absent) == 0 && len(d.Evidence) == 0 && d.TimeMs == 0
}

// Encode returns the extra data carrying d: nil when d is empty.
func (d *ConsensusData) Encode() []byte {
	if d.IsEmpty() {
		return nil
	}
	var b rlp.Buffer
	l := b.List()
	al := b.List()
	for _, a := range d.Absent {
		b.WriteBytes(a[:])
	}
	b.ListEnd(al)
	el := b.List()
	for _, e := range d.Evidence {
		b.WriteRaw(e.Encode())
	}
	b.ListEnd(el)
	if d.TimeMs != 0 {
		b.WriteUint64(d.TimeMs)
	}
	b.ListEnd(l)
	return b.Bytes()
}

// ErrConsensusData wraps every reason a block's consensus data is refused.
var ErrConsensusData = errors.New("pos: invalid consensus data")

// DecodeConsensusData parses a header's extra data. Only the canonical
// encoding is accepted (empty for no data), so one block has one reading.
func DecodeConsensusData(extra []byte) (ConsensusData, error) {
	var d ConsensusData
	if len(extra) == 0 {
		return d, nil
	}
	content, rest, err := rlp.SplitList(extra)
	if err != nil || len(rest) != 0 {
		return d, fmt.Errorf("%w: not an RLP list", ErrConsensusData)
	}
	absent, content, err := rlp.SplitList(content)
	if err != nil {
		return d, fmt.Errorf("%w: absent list: %v", ErrConsensusData, err)
	}
	evidence, content, err := rlp.SplitList(content)
	if err != nil {
		return d, fmt.Errorf("%w: evidence list", ErrConsensusData)
	}
	if len(content) != 0 {
		var rest []byte
		if d.TimeMs, rest, err = rlp.SplitUint64(content); err != nil || len(rest) != 0 || d.TimeMs == 0 {
			return d, fmt.Errorf("%w: block time", ErrConsensusData)
		}
	}
	for len(absent) > 0 {
		var a []byte
		if a, absent, err = rlp.SplitString(absent); err != nil || len(a) != len(types.Address{}) {
			return d, fmt.Errorf("%w: absent address", ErrConsensusData)
		}
		d.Absent = append(d.Absent, types.Address(a))
	}
	for len(evidence) > 0 {
		var raw []byte
		if raw, evidence, err = rlp.SplitRaw(evidence); err != nil {
			return d, fmt.Errorf("%w: evidence: %v", ErrConsensusData, err)
		}
		ev, err := consensus.DecodeDuplicateVoteEvidence(raw)
		if err != nil {
			return d, fmt.Errorf("%w: %v", ErrConsensusData, err)
		}
		d.Evidence = append(d.Evidence, ev)
	}
	if len(d.Evidence) > MaxEvidencePerBlock {
		return d, fmt.Errorf("%w: %d pieces of evidence, at most %d", ErrConsensusData, len(d.Evidence), MaxEvidencePerBlock)
	}
	if !bytes.Equal(d.Encode(), extra) {
		return d, fmt.Errorf("%w: not in canonical form", ErrConsensusData)
	}
	return d, nil
}

// AbsentSigners lists the members of set (the validators of cert's
// height) whose precommit cert lacks, in set order.
func AbsentSigners(set *consensus.ValidatorSet, cert *consensus.Certificate) []types.Address {
	var out []types.Address
	for i := range set.Len() {
		if i/8 >= len(cert.Signers) || cert.Signers[i/8]&(1<<(i%8)) == 0 {
			out = append(out, set.Validator(i).Address)
		}
	}
	return out
}
