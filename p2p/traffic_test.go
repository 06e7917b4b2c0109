package p2p

import (
	"bytes"
	"testing"
)

// A message's wire bytes are counted under its topic on both ends; the
// protocol's own frames under their names.
func TestTraffic(t *testing.T) {
	b, inB := startHost(t, Config{})
	a, _ := startHost(t, Config{StaticPeers: []PeerAddr{addrOf(b)}})
	waitFor(t, "connection", connected(a, b))
	payload := bytes.Repeat([]byte{'x'}, 1000)
	if !a.Send(b.ID(), topicVote, payload) {
		t.Fatal("send failed")
	}
	inB.want(t, string(payload))
	want := uint64(2 + len(payload) + frameOverhead) // kind, topic, payload; prefix and tag
	find := func(h *Host, topic Topic) Traffic {
		for _, tr := range h.Traffic() {
			if tr.Control == "" && tr.Topic == topic {
				return tr
			}
		}
		return Traffic{}
	}
	if got := find(a, topicVote); got.Sent != want || got.Received != 0 {
		t.Errorf("sender's topic %d: %+v, want %d sent", topicVote, got, want)
	}
	if got := find(b, topicVote); got.Received != want || got.Sent != 0 {
		t.Errorf("receiver's topic %d: %+v, want %d received", topicVote, got, want)
	}
	// Each side asked the other for peers: a one-byte frame each way.
	waitFor(t, "getpeers counted", func() bool {
		for _, tr := range a.Traffic() {
			if tr.Control == "getpeers" && tr.Sent == 1+frameOverhead {
				return true
			}
		}
		return false
	})
}

func TestTrafficSlot(t *testing.T) {
	for _, tc := range []struct {
		frame []byte
		want  int
	}{
		{[]byte{kindMsg, 7, 1, 2}, 7},
		{[]byte{kindMsg, 255}, 255},
		{[]byte{kindPing}, 256 + int(kindPing)},
		{[]byte{kindWant, 0}, 256 + int(kindWant)},
		{[]byte{kindMsg}, 256}, // no topic: malformed
		{[]byte{99}, 256},
		{nil, 256},
	} {
		if got := trafficSlot(tc.frame); got != tc.want {
			t.Errorf("%x: slot %d, want %d", tc.frame, got, tc.want)
		}
	}
}
