package p2p

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"golang.org/x/crypto/curve25519"
)

// dialFrom opens a TCP connection to h from the loopback address ip
// (127.0.0.0/8 is all loopback on Linux), so a test can play several
// clients on one machine.
func dialFrom(t *testing.T, h *Host, ip string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	c, err := d.Dial("tcp", h.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// held reports whether the host kept c for a handshake (it sends its
// ephemeral key, 32 bytes) rather than closing it before any read (EOF
// with no byte). A connection the host neither answers nor closes within
// five seconds fails the test.
func held(t *testing.T, c net.Conn) bool {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	var key [32]byte
	n, err := io.ReadFull(c, key[:])
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		t.Fatalf("connection from %s neither answered nor closed", c.LocalAddr())
	}
	if n != 0 && n != 32 {
		t.Fatalf("host sent %d bytes of its key", n)
	}
	return n == 32
}

// Connections past the per-IP and the global handshake caps are closed
// before any read; slots come back when a handshake ends; an honest peer
// gets in once the silent sockets are gone.
func TestPendingHandshakesCapped(t *testing.T) {
	h, in := startHost(t, Config{MaxPendingHandshakes: 5, MaxPendingPerIP: 3, HandshakeTimeout: time.Minute})
	var silent []net.Conn
	for i := range 5 {
		c := dialFrom(t, h, "127.0.0.2")
		if got, want := held(t, c), i < 3; got != want {
			t.Fatalf("connection %d from one IP held %v, want %v", i, got, want)
		}
		if i < 3 {
			silent = append(silent, c)
		}
	}
	for i, ip := range []string{"127.0.0.3", "127.0.0.3", "127.0.0.4"} {
		c := dialFrom(t, h, ip)
		if got, want := held(t, c), i < 2; got != want {
			t.Fatalf("connection from %s with %d in progress held %v, want %v", ip, 3+i, got, want)
		}
		if i < 2 {
			silent = append(silent, c)
		}
	}
	if total, fromIP := h.pending.counts("127.0.0.2"); total != 5 || fromIP != 3 {
		t.Fatalf("pending %d in all, %d from 127.0.0.2; want 5 and 3", total, fromIP)
	}
	silent[0].Close()
	waitFor(t, "slot released", func() bool { total, _ := h.pending.counts(""); return total == 4 })
	if c := dialFrom(t, h, "127.0.0.2"); !held(t, c) {
		t.Fatal("a freed slot was not given to the next connection")
	} else {
		c.Close()
	}
	for _, c := range silent[1:] {
		c.Close()
	}
	a, _ := startHost(t, Config{StaticPeers: []PeerAddr{addrOf(h)}})
	waitFor(t, "honest peer connected", connected(a, h))
	a.Send(h.ID(), topicVote, []byte("in"))
	in.want(t, "in")
	if total, _ := h.pending.counts(""); total != 0 {
		t.Fatalf("%d handshakes still counted after all ended", total)
	}
}

// Before the handshake is done the host reads no frame larger than the
// greeting: a 4 MiB frame header gets the connection closed at once,
// before its body is read or a buffer for it made.
func TestPreHandshakeFrameBounded(t *testing.T) {
	h, _ := startHost(t, Config{HandshakeTimeout: time.Minute})
	for _, size := range []uint32{MaxFrameSize + 16, helloFrameSize + 1, 1 << 16} {
		c := dialFrom(t, h, "127.0.0.1")
		if !held(t, c) {
			t.Fatal("host refused a first connection")
		}
		var priv [32]byte
		rand.Read(priv[:])
		pub, _ := curve25519.X25519(priv[:], curve25519.Basepoint)
		hdr := binary.BigEndian.AppendUint32(nil, size)
		if _, err := c.Write(append(pub, hdr...)); err != nil {
			t.Fatal(err)
		}
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		_, err := io.Copy(io.Discard, c) // the host's hello, then its close
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("frame of %d bytes announced before the handshake: connection kept open", size)
		}
	}
}

func TestFDBudget(t *testing.T) {
	for _, tc := range []struct {
		name           string
		cfg            Config
		ok             bool
		pending, perIP int
	}{
		{"defaults", Config{}, true, defaultMaxPending, defaultMaxPendingPerIP},
		{"roomy budget", Config{FDBudget: 1000}, true, defaultMaxPending, defaultMaxPendingPerIP},
		{"tight budget", Config{FDBudget: 50 + 2 + 6, StaticPeers: make([]PeerAddr, 2)}, true, 6, 6},
		{"too small", Config{FDBudget: 50 + 2 + 3, StaticPeers: make([]PeerAddr, 2)}, false, 0, 0},
		{"explicit caps", Config{MaxPendingHandshakes: 10, MaxPendingPerIP: 20}, true, 10, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.cfg.Key = newKey(t)
			h, err := New(tc.cfg)
			if (err == nil) != tc.ok {
				t.Fatalf("New: %v, want ok %v", err, tc.ok)
			}
			if err != nil {
				return
			}
			if h.cfg.MaxPendingHandshakes != tc.pending || h.cfg.MaxPendingPerIP != tc.perIP {
				t.Fatalf("caps %d in all, %d per IP; want %d and %d", h.cfg.MaxPendingHandshakes, h.cfg.MaxPendingPerIP, tc.pending, tc.perIP)
			}
		})
	}
}

// FuzzPendingSet runs a sequence of handshakes starting and ending from a
// few IPs against a model: a slot is given exactly when neither cap is
// reached, counts never pass the caps, and the per-IP map forgets IPs
// with nothing in progress.
func FuzzPendingSet(f *testing.F) {
	f.Add(uint8(3), uint8(2), []byte{0, 0, 0, 1, 0x80, 0, 2, 3})
	f.Add(uint8(1), uint8(1), []byte{0, 1, 0x80, 0x81, 1})
	f.Fuzz(func(t *testing.T, maxTotal, maxPerIP uint8, ops []byte) {
		s := newPendingSet(int(maxTotal%16)+1, int(maxPerIP%8)+1)
		model := map[string]int{}
		total := 0
		for _, op := range ops {
			ip := net.IPv4(127, 0, 0, op&3).String()
			if op&0x80 != 0 { // a handshake from ip ends
				if model[ip] == 0 {
					continue // release only what was acquired, as setup does
				}
				s.release(ip)
				model[ip]--
				total--
				continue
			}
			want := total < s.maxTotal && model[ip] < s.maxPerIP
			err := s.acquire(ip)
			if (err == nil) != want {
				t.Fatalf("acquire from %s with %d/%d in all, %d/%d from it: %v", ip, total, s.maxTotal, model[ip], s.maxPerIP, err)
			}
			if err != nil && !errors.Is(err, ErrTooManyHandshakes) {
				t.Fatalf("refusal %v is not ErrTooManyHandshakes", err)
			}
			if err == nil {
				model[ip]++
				total++
			}
		}
		for ip, n := range model {
			if gotTotal, got := s.counts(ip); got != n || gotTotal != total {
				t.Fatalf("%s: %d of %d, model %d of %d", ip, got, gotTotal, n, total)
			}
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		for ip, n := range s.perIP {
			if n <= 0 {
				t.Fatalf("%s kept with %d in progress", ip, n)
			}
		}
	})
}

// A flood of silent sockets from one client holds only its per-IP share
// of handshake slots: the rest are closed before any read, and an honest
// peer connects while the flood is still open.
func TestSocketFloodFromOneIP(t *testing.T) {
	h, in := startHost(t, Config{HandshakeTimeout: time.Minute})
	heldN := 0
	for range 300 {
		if held(t, dialFrom(t, h, "127.0.0.2")) {
			heldN++
		}
	}
	if heldN != defaultMaxPendingPerIP {
		t.Fatalf("%d of 300 sockets from one IP held, want the per-IP cap of %d", heldN, defaultMaxPendingPerIP)
	}
	a, _ := startHost(t, Config{StaticPeers: []PeerAddr{addrOf(h)}})
	waitFor(t, "honest peer connected during the flood", connected(a, h))
	a.Send(h.ID(), topicVote, []byte("through"))
	in.want(t, "through")
}
