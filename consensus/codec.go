package consensus

import (
	"errors"
	"fmt"
	"math"

	"github.com/chaind/chaind/rlp"
)

// ErrMalformed wraps every decoding error of this package.
var ErrMalformed = errors.New("consensus: malformed encoding")

// EncodeProposal returns the wire form of p:
// rlp([height, round, validRound+1, [id, data], proposer, signature]).
func EncodeProposal(p Proposal) []byte {
	var b rlp.Buffer
	l := b.List()
	b.WriteUint64(p.Height)
	b.WriteUint64(uint64(p.Round))
	b.WriteUint64(uint64(int64(p.ValidRound) + 1))
	writeValue(&b, p.Value)
	b.WriteBytes(p.Proposer[:])
	b.WriteBytes(p.Signature)
	b.ListEnd(l)
	return b.Bytes()
}

// DecodeProposal parses EncodeProposal output.
func DecodeProposal(enc []byte) (Proposal, error) {
	var p Proposal
	d := newDecoder(enc)
	p.Height = d.uint64()
	p.Round = d.round0()
	p.ValidRound = d.round()
	p.Value = d.value()
	d.fixed(p.Proposer[:])
	p.Signature = d.bytes()
	if err := d.finish(); err != nil {
		return Proposal{}, fmt.Errorf("consensus: proposal: %w", err)
	}
	return p, nil
}

// EncodeVote returns the wire form of v:
// rlp([type, height, round, id, validator, signature]).
func EncodeVote(v Vote) []byte {
	var b rlp.Buffer
	l := b.List()
	b.WriteUint64(uint64(v.Type))
	b.WriteUint64(v.Height)
	b.WriteUint64(uint64(v.Round))
	b.WriteBytes(v.ID[:])
	b.WriteBytes(v.Validator[:])
	b.WriteBytes(v.Signature)
	b.ListEnd(l)
	return b.Bytes()
}

// DecodeVote parses EncodeVote output.
func DecodeVote(enc []byte) (Vote, error) {
	var v Vote
	d := newDecoder(enc)
	v.Type = VoteType(d.uint64())
	v.Height = d.uint64()
	v.Round = d.round0()
	d.fixed(v.ID[:])
	d.fixed(v.Validator[:])
	v.Signature = d.bytes()
	if err := d.finish(); err != nil {
		return Vote{}, fmt.Errorf("consensus: vote: %w", err)
	}
	if v.Type != Prevote && v.Type != Precommit {
		return Vote{}, fmt.Errorf("%w: vote type %d", ErrMalformed, v.Type)
	}
	return v, nil
}

// decoder reads the items of one RLP list, remembering the first error.
type decoder struct {
	b   []byte
	err error
}

func newDecoder(enc []byte) *decoder {
	content, rest, err := rlp.SplitList(enc)
	if err == nil && len(rest) != 0 {
		err = errors.New("trailing bytes")
	}
	return &decoder{b: content, err: err}
}

func (d *decoder) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

func (d *decoder) uint64() uint64 {
	if d.err != nil {
		return 0
	}
	x, rest, err := rlp.SplitUint64(d.b)
	d.fail(err)
	d.b = rest
	return x
}

// round reads a round stored as round+1 (so that -1 is 0).
func (d *decoder) round() int32 {
	x := d.uint64()
	if x > math.MaxInt32 {
		d.fail(errors.New("round out of range"))
		return 0
	}
	return int32(x) - 1
}

// round0 reads a non-negative round stored as is.
func (d *decoder) round0() int32 {
	x := d.uint64()
	if x > math.MaxInt32 {
		d.fail(errors.New("round out of range"))
		return 0
	}
	return int32(x)
}

func (d *decoder) bytes() []byte {
	if d.err != nil {
		return nil
	}
	s, rest, err := rlp.SplitString(d.b)
	d.fail(err)
	d.b = rest
	if len(s) == 0 {
		return nil
	}
	return append([]byte(nil), s...)
}

func (d *decoder) fixed(out []byte) {
	s := d.bytes()
	if d.err == nil && len(s) != len(out) {
		d.fail(fmt.Errorf("want %d bytes, have %d", len(out), len(s)))
	}
	copy(out, s)
}

func (d *decoder) list() []byte {
	if d.err != nil {
		return nil
	}
	content, rest, err := rlp.SplitList(d.b)
	d.fail(err)
	d.b = rest
	return content
}

// items returns the raw encodings of the items of the next list.
func (d *decoder) items() [][]byte {
	content := d.list()
	var out [][]byte
	for d.err == nil && len(content) > 0 {
		_, _, rest, err := rlp.Split(content)
		if err != nil {
			d.fail(err)
			return nil
		}
		out = append(out, content[:len(content)-len(rest)])
		content = rest
	}
	return out
}

func (d *decoder) value() Value {
	sub := &decoder{b: d.list(), err: d.err}
	var v Value
	sub.fixed(v.ID[:])
	v.Data = sub.bytes()
	d.fail(sub.finish())
	return v
}

func (d *decoder) finish() error {
	if d.err == nil && len(d.b) != 0 {
		d.err = errors.New("unexpected extra items")
	}
	if d.err != nil {
		return fmt.Errorf("%w: %v", ErrMalformed, d.err)
	}
	return nil
}
