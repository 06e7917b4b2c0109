// Package wire is the node's protocol on the p2p network: the topics its
// reactors (internal/protocol/...) speak and the encoding of each message
// that is not a consensus message (those are consensus.EncodeMessage's) or
// a transaction (types.Transaction's binary form). Every decoder bounds
// what it accepts and fails with ErrMalformed, which a reactor holds
// against the peer that sent it.
package wire

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/p2p"
)

// The node's topics on the p2p network.
const (
	TopicConsensus p2p.Topic = 1 // encoded consensus messages (consensus.EncodeMessage), to one validator
	TopicTx        p2p.Topic = 2 // a signed transaction's binary encoding, gossiped
	TopicStatus    p2p.Topic = 3 // Status: the sender's head
	TopicGetBlocks p2p.Topic = 4 // GetBlocks
	TopicBlocks    p2p.Topic = 5 // blocks with their commit certificates
	TopicVote      p2p.Topic = 6 // signed proposals and votes (consensus.EncodeMessage), gossiped
	TopicCert      p2p.Topic = 7 // Cert: a decided block's commit certificate, gossiped
	TopicEvidence  p2p.Topic = 8 // double-sign evidence (consensus.DuplicateVoteEvidence), gossiped
	TopicNode      p2p.Topic = 9 // NodeAnnouncement: a full or RPC node says it is there, gossiped
)

// TopicNames name the topics in metrics and logs.
var TopicNames = map[p2p.Topic]string{
	TopicConsensus: "consensus", TopicTx: "tx", TopicStatus: "status", TopicGetBlocks: "getblocks",
	TopicBlocks: "blocks", TopicVote: "vote", TopicCert: "cert", TopicEvidence: "evidence", TopicNode: "node",
}

// MaxBlocksPerRequest bounds one sync request; MaxBlocksBytes bounds the
// answer, well under the frame cap.
const (
	MaxBlocksPerRequest = 128
	MaxBlocksBytes      = 2 << 20
)

// ErrMalformed wraps every decoding error of this package.
var ErrMalformed = errors.New("wire: malformed message")

// Status is a node's head and whether it is catching up, sent to each
// new peer, after every new block and when syncing starts or ends.
type Status struct {
	Height  uint64
	Head    types.Hash
	Syncing bool
}

// Encode returns the wire form of s.
func (s Status) Encode() []byte {
	b := binary.BigEndian.AppendUint64(nil, s.Height)
	b = append(b, s.Head[:]...)
	if s.Syncing {
		return append(b, 1)
	}
	return append(b, 0)
}

// DecodeStatus parses Status.Encode output.
func DecodeStatus(b []byte) (Status, error) {
	var s Status
	if len(b) != 41 || b[40] > 1 {
		return s, fmt.Errorf("%w: status of %d bytes", ErrMalformed, len(b))
	}
	s.Height = binary.BigEndian.Uint64(b)
	copy(s.Head[:], b[8:])
	s.Syncing = b[40] == 1
	return s, nil
}

// GetBlocks asks for Count blocks from From on.
type GetBlocks struct {
	From  uint64
	Count uint16
}

// Encode returns the wire form of g.
func (g GetBlocks) Encode() []byte {
	b := binary.BigEndian.AppendUint64(nil, g.From)
	return binary.BigEndian.AppendUint16(b, g.Count)
}

// DecodeGetBlocks parses GetBlocks.Encode output, refusing a request for
// none or more than MaxBlocksPerRequest blocks.
func DecodeGetBlocks(b []byte) (GetBlocks, error) {
	var g GetBlocks
	if len(b) != 10 {
		return g, fmt.Errorf("%w: request of %d bytes", ErrMalformed, len(b))
	}
	g.From, g.Count = binary.BigEndian.Uint64(b), binary.BigEndian.Uint16(b[8:])
	if g.Count == 0 || g.Count > MaxBlocksPerRequest {
		return g, fmt.Errorf("%w: %d blocks requested", ErrMalformed, g.Count)
	}
	return g, nil
}

// CertifiedBlock is a block with the certificate that decided it.
type CertifiedBlock struct {
	Block *types.Block
	Cert  []byte
}

// EncodeBlocks writes each block's RLP and certificate, each with a 4-byte
// length.
func EncodeBlocks(blocks []CertifiedBlock) []byte {
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

// DecodeBlocks parses EncodeBlocks output of at most MaxBlocksPerRequest
// blocks.
func DecodeBlocks(b []byte) ([]CertifiedBlock, error) {
	var out []CertifiedBlock
	next := func() ([]byte, error) {
		if len(b) < 4 {
			return nil, fmt.Errorf("%w: truncated", ErrMalformed)
		}
		n := binary.BigEndian.Uint32(b)
		if uint64(len(b)-4) < uint64(n) {
			return nil, fmt.Errorf("%w: truncated", ErrMalformed)
		}
		item := b[4 : 4+n]
		b = b[4+n:]
		return item, nil
	}
	for len(b) > 0 {
		if len(out) >= MaxBlocksPerRequest {
			return nil, fmt.Errorf("%w: too many blocks", ErrMalformed)
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
			return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
		}
		out = append(out, CertifiedBlock{Block: blk, Cert: append([]byte(nil), cert...)})
	}
	return out, nil
}

// Cert announces a decided block: its height, hash and commit
// certificate.
type Cert struct {
	Height uint64
	Hash   types.Hash
	Cert   []byte
}

// Encode returns the wire form of c.
func (c Cert) Encode() []byte {
	b := binary.BigEndian.AppendUint64(nil, c.Height)
	b = append(b, c.Hash[:]...)
	return append(b, c.Cert...)
}

// DecodeCert parses Cert.Encode output; the certificate must not be empty.
// Cert aliases b.
func DecodeCert(b []byte) (Cert, error) {
	var c Cert
	if len(b) <= 40 {
		return c, fmt.Errorf("%w: certificate of %d bytes", ErrMalformed, len(b))
	}
	c.Height = binary.BigEndian.Uint64(b)
	copy(c.Hash[:], b[8:40])
	c.Cert = b[40:]
	return c, nil
}
