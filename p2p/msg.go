package p2p

import (
	"errors"
	"fmt"
)

// Frame kinds: the first byte of every frame's plaintext after the hello.
const (
	kindPing     byte = 1
	kindPong     byte = 2
	kindMsg      byte = 3 // topic byte, then the payload
	kindGetPeers byte = 4
	kindPeers    byte = 5 // count (1 byte), then per peer: ID, address length (1 byte), address
	kindHave     byte = 6 // count (1 byte), then per message: topic byte, 32-byte hash (see announce.go)
	kindWant     byte = 7 // count (1 byte), then 32-byte hashes
)

// maxPeersShared caps the peers one exchange carries.
const maxPeersShared = 32

// ErrBadMessage reports a frame that is not a message of this protocol.
var ErrBadMessage = errors.New("p2p: malformed message")

// message is one decoded frame.
type message struct {
	kind    byte
	topic   Topic
	payload []byte      // kindMsg
	peers   []PeerAddr  // kindPeers
	haves   []announced // kindHave
	wants   [][32]byte  // kindWant
}

// decodeMessage parses a frame's plaintext. The payload aliases b.
func decodeMessage(b []byte) (message, error) {
	if len(b) == 0 {
		return message{}, fmt.Errorf("%w: empty frame", ErrBadMessage)
	}
	m := message{kind: b[0]}
	switch m.kind {
	case kindPing, kindPong, kindGetPeers:
		if len(b) != 1 {
			return m, fmt.Errorf("%w: %d trailing bytes", ErrBadMessage, len(b)-1)
		}
	case kindMsg:
		if len(b) < 2 {
			return m, fmt.Errorf("%w: no topic", ErrBadMessage)
		}
		m.topic, m.payload = Topic(b[1]), b[2:]
	case kindPeers:
		peers, err := decodePeers(b[1:])
		if err != nil {
			return m, err
		}
		m.peers = peers
	case kindHave:
		haves, err := decodeHave(b[1:])
		if err != nil {
			return m, err
		}
		m.haves = haves
	case kindWant:
		wants, err := decodeWant(b[1:])
		if err != nil {
			return m, err
		}
		m.wants = wants
	default:
		return m, fmt.Errorf("%w: kind %d", ErrBadMessage, m.kind)
	}
	return m, nil
}

func encodeMsg(t Topic, payload []byte) []byte {
	return append([]byte{kindMsg, byte(t)}, payload...)
}

func encodePeers(peers []PeerAddr) []byte {
	if len(peers) > maxPeersShared {
		peers = peers[:maxPeersShared]
	}
	b := []byte{kindPeers, byte(len(peers))}
	for _, p := range peers {
		if len(p.Addr) > 255 {
			continue
		}
		b = append(b, p.ID[:]...)
		b = append(b, byte(len(p.Addr)))
		b = append(b, p.Addr...)
	}
	return b
}

func decodePeers(b []byte) ([]PeerAddr, error) {
	if len(b) < 1 || b[0] > maxPeersShared {
		return nil, fmt.Errorf("%w: peer count", ErrBadMessage)
	}
	n := int(b[0])
	b = b[1:]
	peers := make([]PeerAddr, 0, n)
	for range n {
		if len(b) < 21 {
			return nil, fmt.Errorf("%w: short peer entry", ErrBadMessage)
		}
		var p PeerAddr
		copy(p.ID[:], b)
		l := int(b[20])
		b = b[21:]
		if len(b) < l {
			return nil, fmt.Errorf("%w: short peer address", ErrBadMessage)
		}
		a, err := ParsePeerAddr(string(b[:l]))
		if err != nil || a.ID != (ID{}) {
			return nil, fmt.Errorf("%w: peer address %q", ErrBadMessage, b[:l])
		}
		p.Addr = a.Addr
		b = b[l:]
		peers = append(peers, p)
	}
	if len(b) != 0 {
		return nil, fmt.Errorf("%w: %d trailing bytes", ErrBadMessage, len(b))
	}
	return peers, nil
}
