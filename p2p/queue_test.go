package p2p

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/chacha20poly1305"
)

// A peer that does not read is dropped, with a log line, once what waits
// for it passes the byte cap, instead of the node queueing up to 1,024
// large frames for it.
func TestSlowPeerDropped(t *testing.T) {
	var mu sync.Mutex
	var logs []string
	logf := func(format string, args ...any) {
		mu.Lock()
		logs = append(logs, fmt.Sprintf(format, args...))
		mu.Unlock()
		t.Logf(format, args...)
	}
	h, _ := startHost(t, Config{MaxQueueBytes: 1 << 20, Keepalive: time.Minute, Logf: logf})
	key := newKey(t)
	rawPeer(t, h, key) // never reads
	waitFor(t, "peer registered", func() bool { return hasPeer(h, IDOf(key)) })
	payload := make([]byte, 64<<10)
	sent := 0
	for sent < queueLen && h.Send(IDOf(key), topicVote, payload) {
		sent++
	}
	if sent == queueLen {
		t.Fatalf("%d frames of 64 KiB queued for a peer that reads nothing", sent)
	}
	waitFor(t, "slow peer dropped", func() bool { return !hasPeer(h, IDOf(key)) })
	mu.Lock()
	defer mu.Unlock()
	for _, l := range logs {
		if strings.Contains(l, "dropping slow peer id="+IDOf(key).String()) && strings.Contains(l, ErrSlowPeer.Error()) {
			return
		}
	}
	t.Fatalf("no log line on dropping the slow peer; logs: %q", logs)
}

// The byte cap counts both queues and the announcements: whatever mix
// fills it, the peer is dropped when the next item would pass it, and
// the account returns to zero as the writer takes items off.
func TestQueueBytesAccounted(t *testing.T) {
	c1, c2 := net.Pipe() // nobody reads c2: the writer is never started
	defer c2.Close()
	p := newPeer(ID{1}, &secureConn{conn: c1}, false, ID{}, PeerAddr{})
	p.maxQueue = 1000
	var slowErr error
	p.slow = func(_ *peer, err error) { slowErr = err }
	if !p.send(High, make([]byte, 400)) || !p.send(Low, make([]byte, 400)) {
		t.Fatal("frames under the cap refused")
	}
	for range 6 { // 6 × 33 bytes: 998 in all
		if !p.announce(Low, announced{topicTx, [32]byte{1}}) {
			t.Fatal("announcement under the cap refused")
		}
	}
	if got := p.queued.Load(); got != 998 {
		t.Fatalf("queued %d bytes, want 998", got)
	}
	if p.send(Low, make([]byte, 3)) {
		t.Fatal("a frame past the byte cap was queued")
	}
	if !errors.Is(slowErr, ErrSlowPeer) || !errors.Is(p.err, ErrSlowPeer) {
		t.Fatalf("peer closed with %v, told %v; want ErrSlowPeer", p.err, slowErr)
	}
	p.uncharge(<-p.high)
	p.uncharge(<-p.low)
	p.takeAnnouncements()
	if got := p.queued.Load(); got != 0 {
		t.Fatalf("%d bytes still charged with the queues empty", got)
	}
}

// FuzzPeerQueue sends, announces and takes frames of fuzzed sizes against
// a small byte cap: the account always equals what waits, never passes
// the cap, and the peer is dropped exactly when an item would pass it.
func FuzzPeerQueue(f *testing.F) {
	f.Add([]byte{10, 200, 0x80, 50, 0xc0, 255, 255, 255})
	f.Add([]byte{0x40, 0x40, 0x41, 0xc1, 100})
	f.Fuzz(func(t *testing.T, ops []byte) {
		c1, c2 := net.Pipe()
		defer c2.Close()
		p := newPeer(ID{1}, &secureConn{conn: c1}, false, ID{}, PeerAddr{})
		p.maxQueue = 600
		waiting := 0
		for _, op := range ops {
			closedBefore := p.err != nil
			switch op >> 6 {
			case 0, 2: // a frame of 0..63 (high) or 0..252 (low) bytes
				n, prio := int(op&63), High
				if op>>6 == 2 {
					n, prio = int(op&63)*4, Low
				}
				ok := p.send(prio, make([]byte, n))
				fits := !closedBefore && waiting+n <= 600
				if ok != fits {
					t.Fatalf("send of %d with %d waiting: %v", n, waiting, ok)
				}
				if ok {
					waiting += n
				}
			case 1:
				ok := p.announce(Priority(op&1), announced{topicTx, [32]byte{op}})
				if ok != (!closedBefore && waiting+announcedBytes <= 600) {
					t.Fatalf("announcement with %d waiting: %v", waiting, ok)
				}
				if ok {
					waiting += announcedBytes
				}
			case 3: // the writer takes what waits
				for len(p.high) > 0 {
					waiting -= len(p.uncharge(<-p.high))
				}
				for len(p.low) > 0 {
					waiting -= len(p.uncharge(<-p.low))
				}
				for _, fr := range p.takeAnnouncements() {
					waiting -= announcedBytes * int(fr[1])
				}
			}
			if got := p.queued.Load(); got != int64(waiting) || got > 600 {
				t.Fatalf("account %d, waiting %d", got, waiting)
			}
		}
	})
}

// An authenticated peer announcing a 4 MiB frame and sending a little of
// it makes the reader hold about what it sent, not what it announced.
func TestReadBufferGrowsWithData(t *testing.T) {
	key := make([]byte, 32)
	aead, _ := chacha20poly1305.New(key)
	script := binary.BigEndian.AppendUint32(nil, MaxFrameSize+chacha20poly1305.Overhead)
	script = append(script, make([]byte, 1000)...)
	sc := &secureConn{r: bytes.NewReader(script), recv: aead}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := sc.readFrame()
	runtime.ReadMemStats(&after)
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("err %v, want unexpected EOF", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 1<<20 {
		t.Fatalf("reading 1,000 bytes of an announced 4 MiB frame allocated %d bytes", got)
	}
	// A whole large frame still reads.
	big := bytes.Repeat([]byte{7}, 300<<10)
	ct := aead.Seal(binary.BigEndian.AppendUint32(nil, uint32(len(big)+chacha20poly1305.Overhead)), nonce(0), big, nil)
	sc = &secureConn{r: bytes.NewReader(ct), recv: aead}
	if f, err := sc.readFrame(); err != nil || !bytes.Equal(f, big) {
		t.Fatalf("large frame: %d bytes, %v", len(f), err)
	}
}
