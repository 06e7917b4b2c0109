package node

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/p2p"
)

// The node's topics on the p2p network.
const (
	topicConsensus p2p.Topic = 1 // encoded consensus messages (bft.EncodeMessage)
	topicTx        p2p.Topic = 2 // a signed transaction's binary encoding, gossiped
	topicStatus    p2p.Topic = 3 // statusMsg: the sender's head
	topicGetBlocks p2p.Topic = 4 // getBlocksMsg
	topicBlocks    p2p.Topic = 5 // blocks with their commit certificates
	topicVote      p2p.Topic = 6 // signed proposals and votes (bft.EncodeMessage), gossiped
	topicCert      p2p.Topic = 7 // certMsg: a decided block's commit certificate, gossiped
	topicEvidence  p2p.Topic = 8 // double-sign evidence (consensus.DuplicateVoteEvidence), gossiped
)

// maxBlocksPerRequest bounds one sync request; maxBlocksBytes bounds the
// answer, well under the frame cap.
const (
	maxBlocksPerRequest = 128
	maxBlocksBytes      = 2 << 20
)

var errBadSyncMessage = errors.New("node: malformed sync message")

// statusMsg is a node's head and whether it is catching up, sent to each
// new peer, after every new block and when syncing starts or ends.
type statusMsg struct {
	Height  uint64
	Head    types.Hash
	Syncing bool
}

func (s statusMsg) encode() []byte {
	b := binary.BigEndian.AppendUint64(nil, s.Height)
	b = append(b, s.Head[:]...)
	if s.Syncing {
		return append(b, 1)
	}
	return append(b, 0)
}

func decodeStatus(b []byte) (statusMsg, error) {
	var s statusMsg
	if len(b) != 41 || b[40] > 1 {
		return s, fmt.Errorf("%w: status of %d bytes", errBadSyncMessage, len(b))
	}
	s.Height = binary.BigEndian.Uint64(b)
	copy(s.Head[:], b[8:])
	s.Syncing = b[40] == 1
	return s, nil
}

// getBlocksMsg asks for Count blocks from From on.
type getBlocksMsg struct {
	From  uint64
	Count uint16
}

func (g getBlocksMsg) encode() []byte {
	b := binary.BigEndian.AppendUint64(nil, g.From)
	return binary.BigEndian.AppendUint16(b, g.Count)
}

func decodeGetBlocks(b []byte) (getBlocksMsg, error) {
	var g getBlocksMsg
	if len(b) != 10 {
		return g, fmt.Errorf("%w: request of %d bytes", errBadSyncMessage, len(b))
	}
	g.From, g.Count = binary.BigEndian.Uint64(b), binary.BigEndian.Uint16(b[8:])
	if g.Count == 0 || g.Count > maxBlocksPerRequest {
		return g, fmt.Errorf("%w: %d blocks requested", errBadSyncMessage, g.Count)
	}
	return g, nil
}

// certifiedBlock is a block with the certificate that decided it.
type certifiedBlock struct {
	Block *types.Block
	Cert  []byte
}

// encodeBlocks writes each block's RLP and certificate, each with a 4-byte
// length.
func encodeBlocks(blocks []certifiedBlock) []byte {
	var b []byte
	for _, cb := range blocks {
		enc := cb.Block.EncodeRLP()
		b = binary.BigEndian.AppendUint32(b, uint32(len(enc)))
		b = append(b, enc...)
		b = binary.BigEndian.AppendUint32(b, uint32(len(cb.Cert)))
		b = append(b, cb.Cert...)
	}
	return b
}

func decodeBlocks(b []byte) ([]certifiedBlock, error) {
	var out []certifiedBlock
	next := func() ([]byte, error) {
		if len(b) < 4 {
			return nil, fmt.Errorf("%w: truncated", errBadSyncMessage)
		}
		n := binary.BigEndian.Uint32(b)
		if uint64(len(b)-4) < uint64(n) {
			return nil, fmt.Errorf("%w: truncated", errBadSyncMessage)
		}
		item := b[4 : 4+n]
		b = b[4+n:]
		return item, nil
	}
	for len(b) > 0 {
		if len(out) >= maxBlocksPerRequest {
			return nil, fmt.Errorf("%w: too many blocks", errBadSyncMessage)
		}
		enc, err := next()
		if err != nil {
			return nil, err
		}
		cert, err := next()
		if err != nil {
			return nil, err
		}
		blk, err := types.DecodeBlock(enc)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", errBadSyncMessage, err)
		}
		out = append(out, certifiedBlock{Block: blk, Cert: append([]byte(nil), cert...)})
	}
	return out, nil
}
