package main

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chaind/chaind/p2p"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// The p2p attacks of TestSoakAttacks against the validator's p2p port.

// p2pHandshakeTimeout is how long the node under attack holds a silent
// socket it admitted to a handshake (p2p.Config.HandshakeTimeout's
// default, which the node does not change).
const p2pHandshakeTimeout = 2 * time.Second

// silentSocket dials addr from ip and reads until the node closes it (at
// most 1 KiB, for at most 5 s). It returns how many bytes it was sent,
// how long the node kept the socket and whether the node closed it (if
// not, the node was still holding it after 5 s).
func silentSocket(ip, addr string) (sent int, held time.Duration, closed bool, err error) {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		return 0, 0, false, err
	}
	defer c.Close()
	opened := time.Now()
	c.SetReadDeadline(opened.Add(5 * time.Second))
	b, err := io.ReadAll(io.LimitReader(c, 1024))
	var ne net.Error
	timedOut := errors.As(err, &ne) && ne.Timeout()
	return len(b), time.Since(opened), !timedOut, nil
}

// p2pFloodStats counts what became of sockets opened to the p2p port.
type p2pFloodStats struct {
	closedAtOnce atomic.Int64 // closed before the node sent a byte, within 1 s
	handshakes   atomic.Int64 // admitted to a handshake and closed within its timeout
	held         atomic.Int64 // kept longer than either allows
}

// p2pFlood opens 100 silent sockets at a time from ip to the p2p port
// until s ends. The node admits a few to a handshake (it sends them its
// 32-byte key and closes them after p2pHandshakeTimeout) and closes the
// rest at once.
func (s *soak) p2pFlood(ip, addr string, st *p2pFloodStats) {
	for s.sleep(100 * time.Millisecond) {
		var round sync.WaitGroup
		for range 100 {
			round.Add(1)
			go func() {
				defer round.Done()
				sent, held, closed, err := silentSocket(ip, addr)
				switch {
				case err != nil:
				case closed && sent == 0 && held <= time.Second:
					st.closedAtOnce.Add(1)
				case closed && sent > 0 && held <= p2pHandshakeTimeout+time.Second:
					st.handshakes.Add(1)
				default:
					st.held.Add(1)
				}
			}()
		}
		round.Wait()
	}
}

// p2pGreetingStats counts the oversized greetings sent and how soon the
// node dropped them.
type p2pGreetingStats struct {
	cutAtOnce atomic.Int64 // closed within 1 s of the frame's header
	held      atomic.Int64
}

// p2pGreetings sends, 8 connections at a time from each of ips, a key
// exchange and then a 4 MiB greeting frame (the largest frame of an
// established session; a real greeting is 127 bytes), as the attack that
// made 150 connections cost the node 540 MB did.
func (s *soak) p2pGreetings(ips []string, addr string, st *p2pGreetingStats) {
	junk := make([]byte, p2p.MaxFrameSize+16)
	for s.sleep(100 * time.Millisecond) {
		var round sync.WaitGroup
		for _, ip := range ips {
			for range 8 {
				round.Add(1)
				go func() {
					defer round.Done()
					d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
					c, err := d.Dial("tcp", addr)
					if err != nil {
						return
					}
					defer c.Close()
					var hello [36]byte
					rand.Read(hello[:32]) // an X25519 public key
					binary.BigEndian.PutUint32(hello[32:], uint32(len(junk)))
					c.SetDeadline(time.Now().Add(5 * time.Second))
					if _, err := c.Write(hello[:]); err != nil {
						return
					}
					sent := time.Now()
					go c.Write(junk) // cut short when the node closes
					io.Copy(io.Discard, c)
					if time.Since(sent) <= time.Second {
						st.cutAtOnce.Add(1)
					} else {
						st.held.Add(1)
					}
				}()
			}
		}
		round.Wait()
	}
}

// pexStats counts the addresses fresh keys fed the node and the node's
// dials of them.
type pexStats struct {
	mu     sync.Mutex
	fed    int            // fresh keys that connected, each naming its own address
	dialed map[int]int    // port fed -> dials the node made to it once it was junk
	lns    []net.Listener // what answers at the junk addresses
}

// pexPoison connects a fresh key every half second, each stating a
// listening address of its own in its hello, which the node learns from
// the IP it came from and may dial later; the key then leaves and its
// address is junk: the test listens there to count the node's dials.
// Fresh keys from one IP are the poisoning issue 26 found: the node
// dialed such addresses 20 times in 15 s and a new key was straight back
// in.
func (s *soak) pexPoison(chain p2p.Chain, target p2p.PeerAddr, st *pexStats) {
	for s.sleep(500 * time.Millisecond) {
		key, err := secp256k1.GeneratePrivateKey()
		if err != nil {
			continue
		}
		h, err := p2p.New(p2p.Config{Key: key, Chain: chain, ListenAddr: "127.0.0.1:0", StaticPeers: []p2p.PeerAddr{target}})
		if err != nil || h.Start() != nil {
			continue
		}
		for i := 0; i < 40 && h.PeerCount() == 0 && s.ctx.Err() == nil; i++ {
			time.Sleep(50 * time.Millisecond)
		}
		connected := h.PeerCount() > 0
		port := h.Addr().(*net.TCPAddr).Port
		h.Close()
		if !connected {
			continue
		}
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		st.mu.Lock()
		st.fed++
		st.mu.Unlock()
		if err != nil {
			continue // the port was taken meanwhile; its dials go uncounted
		}
		st.mu.Lock()
		st.lns = append(st.lns, ln)
		st.mu.Unlock()
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				c.Close()
				st.mu.Lock()
				st.dialed[port]++
				st.mu.Unlock()
			}
		}()
	}
}

// close stops listening at the junk addresses.
func (st *pexStats) close() {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, ln := range st.lns {
		ln.Close()
	}
}

// totals returns the keys that fed an address, the junk addresses the
// node dialed, its dials of them in all and the most of one.
func (st *pexStats) totals() (fed, addrs, dials, most int) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, n := range st.dialed {
		addrs++
		dials += n
		most = max(most, n)
	}
	return st.fed, addrs, dials, most
}
