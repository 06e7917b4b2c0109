package p2p

import (
	"bytes"
	"testing"

	"golang.org/x/crypto/chacha20poly1305"
)

func FuzzDecodeHello(f *testing.F) {
	h := Hello{Version: 1, ChainID: 8118, ListenPort: 26656}
	f.Add(h.encode())
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		h, err := DecodeHello(b)
		if err != nil {
			return
		}
		if !bytes.Equal(h.encode(), b) {
			t.Fatalf("hello does not round-trip")
		}
	})
}

func FuzzDecodeMessage(f *testing.F) {
	f.Add([]byte{kindPing})
	f.Add(encodeMsg(3, []byte("payload")))
	f.Add(encodePeers([]PeerAddr{{ID: ID{1}, Addr: "127.0.0.1:26656"}}))
	f.Add([]byte{kindPeers, 1, 0})
	f.Add(encodeHave([]announced{{3, [32]byte{1}}}))
	f.Add(encodeWant([][32]byte{{2}}))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := decodeMessage(b)
		if err != nil || m.kind != kindPeers {
			return
		}
		if got := encodePeers(m.peers); !bytes.Equal(got, b) {
			t.Fatalf("peers do not round-trip: %x vs %x", got, b)
		}
	})
}

// FuzzReadFrame feeds arbitrary bytes to the frame reader of an
// established session: it must return frames or an error, never panic or
// allocate beyond the cap.
func FuzzReadFrame(f *testing.F) {
	key := make([]byte, 32)
	aead, _ := chacha20poly1305.New(key)
	good := aead.Seal([]byte{0, 0, 0, 0}, nonce(0), []byte{kindPing}, nil)
	good[3] = byte(len(good) - 4)
	f.Add(good)
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0, 0, 0, 1, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		sc := &secureConn{r: bytes.NewReader(b), recv: aead}
		for range 4 {
			p, err := sc.readFrame()
			if err != nil {
				return
			}
			if len(p) > MaxFrameSize {
				t.Fatalf("frame of %d bytes", len(p))
			}
		}
	})
}
