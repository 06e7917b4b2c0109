package bft

import (
	"errors"
	"fmt"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/rlp"
)

// Wire message kinds: the first byte of an encoded message.
const (
	kindProposal = 1
	kindVote     = 2
	kindStatus   = 3
)

// ErrMessage is returned for undecodable wire messages.
var ErrMessage = errors.New("bft: malformed message")

// EncodeMessage returns the wire form of a proposal, vote or status event:
// a kind byte followed by the RLP of the message.
func EncodeMessage(ev consensus.Event) []byte {
	switch e := ev.(type) {
	case consensus.ProposalEvent:
		return append([]byte{kindProposal}, consensus.EncodeProposal(e.Proposal)...)
	case consensus.VoteEvent:
		return append([]byte{kindVote}, consensus.EncodeVote(e.Vote)...)
	case consensus.StatusEvent:
		var b rlp.Buffer
		l := b.List()
		b.WriteUint64(e.Height)
		b.WriteUint64(uint64(e.Round))
		b.ListEnd(l)
		return append([]byte{kindStatus}, b.Bytes()...)
	}
	return nil
}

// DecodeMessage parses EncodeMessage output. Signatures are not checked.
func DecodeMessage(msg []byte) (consensus.Event, error) {
	if len(msg) == 0 {
		return nil, ErrMessage
	}
	switch msg[0] {
	case kindProposal:
		p, err := consensus.DecodeProposal(msg[1:])
		return consensus.ProposalEvent{Proposal: p}, err
	case kindVote:
		v, err := consensus.DecodeVote(msg[1:])
		return consensus.VoteEvent{Vote: v}, err
	case kindStatus:
		content, rest, err := rlp.SplitList(msg[1:])
		if err != nil || len(rest) != 0 {
			return nil, fmt.Errorf("%w: status", ErrMessage)
		}
		h, content, err := rlp.SplitUint64(content)
		if err != nil {
			return nil, fmt.Errorf("%w: status height", ErrMessage)
		}
		r, content, err := rlp.SplitUint64(content)
		if err != nil || len(content) != 0 || r > 1<<31-1 {
			return nil, fmt.Errorf("%w: status round", ErrMessage)
		}
		return consensus.StatusEvent{Height: h, Round: int32(r)}, nil
	}
	return nil, fmt.Errorf("%w: kind %d", ErrMessage, msg[0])
}
