package p2p

import (
	"sync/atomic"

	"golang.org/x/crypto/chacha20poly1305"
)

// frameOverhead is what a frame takes on the wire beyond its plaintext:
// the length prefix and the AEAD tag.
const frameOverhead = 4 + chacha20poly1305.Overhead

// traffic counts the wire bytes of the frames a host's peers sent and
// received, by what each carried: slots 0-255 are the message topics,
// 256+kind the protocol's own frames (slot 256 those of no known kind).
type traffic struct {
	sent, recv [256 + 8]atomic.Uint64
}

func trafficSlot(frame []byte) int {
	switch {
	case len(frame) >= 2 && frame[0] == kindMsg:
		return int(frame[1])
	case len(frame) >= 1 && frame[0] >= kindPing && frame[0] <= kindWant && frame[0] != kindMsg:
		return 256 + int(frame[0])
	}
	return 256
}

// controlNames name the protocol's own frames in Traffic.
// (slot 256+kindMsg stays empty: a message without its topic byte is
// invalid).
var controlNames = [8]string{"invalid", "ping", "pong", "", "getpeers", "peers", "have", "want"}

// Traffic is the wire bytes of frames (the length prefix and tag
// included, the handshake not) sent to and received from all peers since
// the host started, for one kind of frame.
type Traffic struct {
	// Control names a frame of the protocol's own: ping, pong, getpeers,
	// peers, have, want, or invalid (a frame of no known kind). It is
	// empty for a message of Topic.
	Control        string
	Topic          Topic
	Sent, Received uint64
}

// Traffic lists the kinds of frame that moved, topics first.
func (h *Host) Traffic() []Traffic {
	var out []Traffic
	for i := range h.traffic.sent {
		s, r := h.traffic.sent[i].Load(), h.traffic.recv[i].Load()
		if s == 0 && r == 0 {
			continue
		}
		t := Traffic{Sent: s, Received: r}
		if i < 256 {
			t.Topic = Topic(i)
		} else {
			t.Control = controlNames[i-256]
		}
		out = append(out, t)
	}
	return out
}
