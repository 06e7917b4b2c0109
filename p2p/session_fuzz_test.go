package p2p

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"testing"

	"golang.org/x/crypto/chacha20poly1305"
)

// sessionScript seals plaintext frames as an established session's peer
// sends them, nonces from 0.
func sessionScript(frames ...[]byte) []byte {
	aead, _ := chacha20poly1305.New(make([]byte, 32))
	var out []byte
	for i, f := range frames {
		start := len(out)
		out = aead.Seal(append(out, 0, 0, 0, 0), nonce(uint64(i)), f, nil)
		binary.BigEndian.PutUint32(out[start:], uint32(len(out)-start-4))
	}
	return out
}

// FuzzPeerFrames feeds the frames of an authenticated peer, each one's
// plaintext a fuzz input, to a host's reading loop over an in-memory
// connection: every message kind reaches its handler (pings, peer lists
// asked for, announcements, requests, topic messages). The loop ends on
// the end of input or on an offence, never otherwise; and whatever the
// peer sends, the host learns no more addresses from it than its source
// cap and queues no more for it than its byte cap.
func FuzzPeerFrames(f *testing.F) {
	split := func(frames ...[]byte) []byte {
		var in []byte
		for _, fr := range frames {
			in = binary.BigEndian.AppendUint16(in, uint16(len(fr)))
			in = append(in, fr...)
		}
		return in
	}
	hash := gossipHash(topicTx, []byte("tx"))
	f.Add(split([]byte{kindPing}, []byte{kindGetPeers}, encodePeers(addrsAt("10.0.0.1", 1, 8))))
	f.Add(split(encodeMsg(topicTx, []byte("tx")), encodeWant([][32]byte{hash}), encodeWant([][32]byte{hash})))
	f.Add(split(encodeHave([]announced{{topicTx, hash}, {topicVote, hash}}), encodeMsg(topicVote, []byte("bad"))))
	f.Add(split([]byte{kindPeers, 1}, []byte{}))
	f.Fuzz(func(t *testing.T, in []byte) {
		h, err := New(Config{Key: fuzzLocalKey, Chain: testChain, MaxAddrsPerSource: 4, MaxQueueBytes: 4096})
		if err != nil {
			t.Fatal(err)
		}
		ok := func(ID, []byte) error { return nil }
		h.Handle(topicVote, TopicConfig{Priority: High}, func(_ ID, p []byte) error {
			if bytes.Equal(p, []byte("bad")) {
				return errors.New("bad vote")
			}
			return nil
		})
		h.Handle(topicTx, TopicConfig{Priority: Low, Gossip: true}, ok)
		var frames [][]byte
		for len(in) >= 2 {
			n := min(int(binary.BigEndian.Uint16(in)), len(in)-2)
			frames = append(frames, in[2:2+n])
			in = in[2+n:]
		}
		c := newMemConn(sessionScript(frames...))
		aead, _ := chacha20poly1305.New(make([]byte, 32))
		p := newPeer(ID{9}, &secureConn{conn: c, r: c, recv: aead, send: aead}, true, ID{9}, PeerAddr{})
		p.maxQueue = int64(h.cfg.MaxQueueBytes)
		h.askPeers(p)
		h.peers[p.id] = p
		err = h.read(p)
		if !errors.Is(err, io.EOF) && !invalid(err) {
			t.Fatalf("reading loop ended on %v, neither the end of input nor an offence", err)
		}
		h.mu.Lock()
		learned := len(h.book.addrs)
		h.mu.Unlock()
		if learned > 4 {
			t.Fatalf("learned %d addresses from one source, cap 4", learned)
		}
		if q := p.queued.Load(); q > p.maxQueue {
			t.Fatalf("%d bytes queued for the peer, cap %d", q, p.maxQueue)
		}
	})
}
