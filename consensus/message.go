package consensus

import (
	"fmt"
	"math"

	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/rlp"
)

// Wire message kinds: the first byte of an encoded message.
const (
	kindProposal = 1
	kindVote     = 2
	kindStatus   = 3
)

// EncodeMessage returns the wire form of a proposal, vote or status event:
// a kind byte followed by the RLP of the message. Other events have no
// wire form and give nil.
func EncodeMessage(ev Event) []byte {
	switch e := ev.(type) {
	case ProposalEvent:
		return append([]byte{kindProposal}, EncodeProposal(e.Proposal)...)
	case VoteEvent:
		return append([]byte{kindVote}, EncodeVote(e.Vote)...)
	case StatusEvent:
		var b rlp.Buffer
		l := b.List()
		b.WriteUint64(e.Height)
		b.WriteUint64(uint64(e.Round))
		b.ListEnd(l)
		return append([]byte{kindStatus}, b.Bytes()...)
	}
	return nil
}

// DecodeMessage parses EncodeMessage output. It checks the form only, not
// signatures (Receive does both). A status message's sender is not on the
// wire: StatusEvent.From is left zero for the caller to fill in.
func DecodeMessage(msg []byte) (Event, error) {
	if len(msg) == 0 {
		return nil, fmt.Errorf("%w: empty message", ErrMalformed)
	}
	switch msg[0] {
	case kindProposal:
		p, err := DecodeProposal(msg[1:])
		if err != nil {
			return nil, err
		}
		return ProposalEvent{Proposal: p}, nil
	case kindVote:
		v, err := DecodeVote(msg[1:])
		if err != nil {
			return nil, err
		}
		return VoteEvent{Vote: v}, nil
	case kindStatus:
		d := newDecoder(msg[1:])
		h := d.uint64()
		r := d.uint64()
		if err := d.finish(); err != nil {
			return nil, fmt.Errorf("consensus: status: %w", err)
		}
		if r > math.MaxInt32 {
			return nil, fmt.Errorf("%w: status round %d", ErrMalformed, r)
		}
		return StatusEvent{Height: h, Round: int32(r)}, nil
	}
	return nil, fmt.Errorf("%w: message kind %d", ErrMalformed, msg[0])
}

// Receive is Step for a message off the wire from peer: it decodes msg,
// checks that a proposal or vote is signed, for Config.ChainID, by the
// validator it names (which also rejects votes replayed from another
// chain, height, round or value), attributes a status message to peer,
// and steps the core with the result. A message that fails changes
// nothing and gives an error wrapping ErrMalformed or ErrBadSignature, for
// the caller to hold against the peer.
func (s *State) Receive(peer types.Address, msg []byte) ([]Effect, error) {
	ev, err := DecodeMessage(msg)
	if err != nil {
		return nil, err
	}
	switch e := ev.(type) {
	case ProposalEvent:
		if s.on(ruleSignature) {
			p := e.Proposal
			if err := s.cfg.SigCache.verify(ProposalDigest(s.cfg.ChainID, p), p.Signature, p.Proposer); err != nil {
				return nil, err
			}
		}
	case VoteEvent:
		if s.on(ruleSignature) {
			v := e.Vote
			if err := s.cfg.SigCache.verify(VoteDigest(s.cfg.ChainID, v), v.Signature, v.Validator); err != nil {
				return nil, err
			}
		}
	case StatusEvent:
		e.From = peer // only a hint; the transport knows who sent it
		ev = e
	}
	return s.Step(ev), nil
}
