package consensus

import (
	"errors"
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

// Verified is a proposal, vote or status message off the wire whose form
// has been decoded and whose signature has been checked for one chain:
// the only values a node's driver hands the core (Deliver). Only this
// package makes one (VerifyMessage, Receive), so a message that skipped
// the check cannot be dressed up as one: the zero Verified is refused.
type Verified struct {
	ev      Event // ProposalEvent, VoteEvent or StatusEvent
	chainID uint64
}

// Event is the message's event: a ProposalEvent or VoteEvent whose
// signature recovered to the validator it names, or a StatusEvent
// attributed to the peer that sent it.
func (m Verified) Event() Event { return m.ev }

// VerifyMessage decodes a message off the wire from peer and checks that a
// proposal or vote is signed, for chainID, by the validator it names
// (which also rejects votes replayed from another chain, height, round or
// value); a status message is attributed to peer. It is the edge's half
// of Receive: a node checks each message once, where it arrives, and
// hands the core the result (Deliver). Errors wrap ErrMalformed or
// ErrBadSignature, for the caller to hold against the peer.
func VerifyMessage(chainID uint64, peer types.Address, msg []byte) (Verified, error) {
	return verifyMessage(nil, chainID, peer, msg, true)
}

// verifyMessage is VerifyMessage through a signature cache; with sigs
// false (ruleSignature switched off by a test) it checks the form only.
func verifyMessage(cache *SigCache, chainID uint64, peer types.Address, msg []byte, sigs bool) (Verified, error) {
	ev, err := DecodeMessage(msg)
	if err != nil {
		return Verified{}, err
	}
	switch e := ev.(type) {
	case ProposalEvent:
		if sigs {
			p := e.Proposal
			if err := cache.verify(ProposalDigest(chainID, p), p.Signature, p.Proposer); err != nil {
				return Verified{}, err
			}
		}
	case VoteEvent:
		if sigs {
			v := e.Vote
			if err := cache.verify(VoteDigest(chainID, v), v.Signature, v.Validator); err != nil {
				return Verified{}, err
			}
		}
	case StatusEvent:
		e.From = peer // only a hint; the transport knows who sent it
		ev = e
	}
	return Verified{ev: ev, chainID: chainID}, nil
}

// ErrUnverified is returned by Deliver for a message that was not checked
// by VerifyMessage, or was checked for another chain.
var ErrUnverified = errors.New("consensus: message not verified for this chain")

// Deliver steps the core with a message VerifyMessage checked. It does not
// decode or recover a signature again; it refuses (changing nothing) a
// Verified that no check made or one made for another chain.
func (s *State) Deliver(m Verified) ([]Effect, error) {
	if m.ev == nil || m.chainID != s.cfg.ChainID {
		return nil, ErrUnverified
	}
	return s.Step(m.ev), nil
}

// Receive is VerifyMessage and Deliver in one call, through
// Config.SigCache: for a process that runs many cores on one stream of
// messages (the simulator). A message that fails changes nothing and
// gives an error wrapping ErrMalformed or ErrBadSignature, for the caller
// to hold against the peer.
func (s *State) Receive(peer types.Address, msg []byte) ([]Effect, error) {
	m, err := verifyMessage(s.cfg.SigCache, s.cfg.ChainID, peer, msg, s.on(ruleSignature))
	if err != nil {
		return nil, err
	}
	return s.Deliver(m)
}
