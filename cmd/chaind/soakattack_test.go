package main

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/p2p"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// soakRSSBound is the resident memory a --public validator stays under
// while TestSoakAttacks runs every attack of issue 26 at it together.
// How it was chosen: on the 2-core development box, shared with other
// builds and tests (load average 10-30), four runs of 60 s peaked at
// 139-144 MiB. The bound is about 1.8 times the highest peak, so a loaded
// CI box has room, and it is far below what one unbounded attack alone
// cost before the fixes: a never-reading WebSocket reader +1,079 MB in
// 10 s, 150 oversized p2p greetings +540 MB. Each fixed queue is bounded
// by its own test; this bound is of them all at once.
const soakRSSBound = 256 << 20

// soak is what the attackers and honest clients of TestSoakAttacks share:
// the run's context and its goroutines.
type soak struct {
	ctx context.Context
	wg  sync.WaitGroup
}

// run starts f as one of the soak's clients.
func (s *soak) run(f func()) {
	s.wg.Add(1)
	go func() { defer s.wg.Done(); f() }()
}

// sleep waits d and reports whether the soak is still on.
func (s *soak) sleep(d time.Duration) bool {
	select {
	case <-s.ctx.Done():
		return false
	case <-time.After(d):
		return true
	}
}

// TestSoakAttacks runs honest clients beside the attacks issue 26 found
// against one --public validator making its own blocks. Honest: five
// JSON-RPC clients at 5 calls a second each, and a p2p peer. Attacks:
// silent connections far past the per-client cap on the JSON-RPC,
// WebSocket, gRPC and p2p ports; a WebSocket client asking for 1 MiB
// eth_call answers and reading none; a flood of malformed, empty and
// oversized batches; HTTP/2 rapid reset on the gRPC port; concurrent
// wrong passphrases; 4 MiB p2p greetings from 8 IPs; and fresh p2p keys
// from one IP each feeding the validator an address to dial. Honest
// clients are never refused, the honest peer is never dropped, blocks
// keep coming, connections past a cap are each closed within a second
// (a p2p handshake slot within its timeout), bad batches are held to the
// rate limit, few passphrases are checked, the fed addresses are capped
// and dialed with back-off, and resident memory stays under soakRSSBound.
// It runs when CHAIND_SOAK_ATTACKS is a duration (make soak-attacks, which
// make test runs, sets 60s); it is skipped otherwise, as it takes that
// long and loads the machine.
func TestSoakAttacks(t *testing.T) {
	dur, err := time.ParseDuration(os.Getenv("CHAIND_SOAK_ATTACKS"))
	if err != nil {
		t.Skip("set CHAIND_SOAK_ATTACKS to a duration (make soak-attacks: 60s) to run the attack soak")
	}
	// A validator alone with a full node: the full node is an honest peer
	// following the chain (and a node of one has no p2p port). The honest
	// peers exchange no addresses, so that every dial of an address the
	// attackers fed is the validator's.
	pn := startProcNet(t, 1, 1, time.Second)
	os.Setenv(asChaindEnv, "1")
	full, err := startNodeProc(pn.exe, pn.nodes[1], nil, "--log-level", "info", "--p2p.pex=false")
	if err != nil {
		t.Fatal(err)
	}
	pn.procs[1] = full
	os.Setenv(asChaindEnv, "1")
	os.Setenv(passphraseEnv, "operator passphrase")
	p, err := startNodeProc(pn.exe, pn.nodes[0], nil, "--log-level", "info", "--public", "--metrics", "--metrics.port", "0",
		"--explorer.port", "-1", "--rest.port", "-1", "--grpc.port", "0", "--cometrpc.port", "0")
	os.Unsetenv(asChaindEnv)
	os.Unsetenv(passphraseEnv)
	if err != nil {
		t.Fatal(err)
	}
	pn.procs[0] = p
	url := "http://" + p.http
	addrs := map[string]string{}
	re := regexp.MustCompile(`listening kind=(\w+) addr=(\S+)`)
	for i := 0; i < 200 && (addrs["ws"] == "" || addrs["grpc"] == ""); i++ {
		log, _ := os.ReadFile(filepath.Join(pn.nodes[0].Dir, "chaind.log"))
		for _, m := range re.FindAllStringSubmatch(string(log), -1) {
			addrs[m[1]] = m[2]
		}
		time.Sleep(20 * time.Millisecond)
	}
	if addrs["ws"] == "" || addrs["grpc"] == "" {
		t.Fatal("the WebSocket and gRPC listeners were not logged")
	}
	g, err := pn.client(0).Block(0)
	if err != nil {
		t.Fatal(err)
	}
	p2pChain := p2p.Chain{ChainID: chain.TestChainID, Genesis: g.Hash}
	validator := p2p.PeerAddr{ID: pn.nodes[0].ID, Addr: pn.nodes[0].P2P}

	// A second honest peer, a stranger to the validator, joins before the
	// attacks start.
	var peerUp, peerDrops atomic.Int64
	key, err := secp256k1.GeneratePrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	honestPeer, err := p2p.New(p2p.Config{Key: key, Chain: p2pChain, StaticPeers: []p2p.PeerAddr{validator}, NoPeerExchange: true,
		Connected: func(p2p.ID) { peerUp.Add(1) }, Disconnected: func(p2p.ID) { peerDrops.Add(1) }})
	if err != nil {
		t.Fatal(err)
	}
	if err := honestPeer.Start(); err != nil {
		t.Fatal(err)
	}
	defer honestPeer.Close()
	waitUntil(t, "the honest peer connected", 30*time.Second, func() bool { return peerUp.Load() > 0 })

	ctx, cancel := context.WithTimeout(context.Background(), dur)
	defer cancel()
	s := &soak{ctx: ctx}
	var (
		honestOK, honestBad         atomic.Int64
		firstHonestBad              atomic.Value
		refusedConns, slowRefusals  atomic.Int64
		mostAdmitted                atomic.Int64 // of one round of 100 sockets to one port
		wsCuts                      atomic.Int64
		badAnswered, badRefused     atomic.Int64
		goaways                     atomic.Int64
		loginsChecked, loginsRefuse atomic.Int64
		maxRSS                      atomic.Uint64
		flood                       p2pFloodStats
		greetings                   p2pGreetingStats
		pex                         = pexStats{dialed: map[int]int{}}
	)
	defer pex.close()
	sleep := s.sleep

	// Honest: 5 clients at 5 calls a second, each from its own address.
	for i := range 5 {
		s.run(func() {
			c := clientFrom(fmt.Sprintf("127.0.0.%d", 10+i))
			defer c.CloseIdleConnections()
			for n := 0; sleep(200 * time.Millisecond); n++ {
				resp, err := c.Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}`))
				if err != nil {
					if ctx.Err() == nil {
						honestBad.Add(1)
						firstHonestBad.CompareAndSwap(nil, err.Error())
					}
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					honestBad.Add(1)
					firstHonestBad.CompareAndSwap(nil, fmt.Sprintf("client %d call %d: HTTP %d", i, n, resp.StatusCode))
					continue
				}
				honestOK.Add(1)
			}
		})
	}
	startHead := soakHead(t, url)

	// Silent connections past the cap, 100 at a time on each port.
	for _, addr := range []string{p.http, addrs["ws"], addrs["grpc"]} {
		s.run(func() {
			var admitted atomic.Int64
			for sleep(100 * time.Millisecond) {
				var round sync.WaitGroup
				for range 100 {
					round.Add(1)
					go func() {
						defer round.Done()
						_, took, closed, err := silentSocket("127.0.0.100", addr)
						switch {
						case err != nil:
						case !closed:
							// One of the five the cap admits, served
							// and held like any silent connection.
							admitted.Add(1)
						case took > time.Second:
							slowRefusals.Add(1)
						default:
							refusedConns.Add(1)
						}
					}()
				}
				round.Wait()
				if n := admitted.Swap(0); n > mostAdmitted.Load() {
					mostAdmitted.Store(n)
				}
			}
		})
	}
	s.run(func() { s.p2pFlood("127.0.0.105", validator.Addr, &flood) })
	s.run(func() {
		s.p2pGreetings([]string{"127.0.0.110", "127.0.0.111", "127.0.0.112", "127.0.0.113",
			"127.0.0.114", "127.0.0.115", "127.0.0.116", "127.0.0.117"}, validator.Addr, &greetings)
	})
	s.run(func() { s.pexPoison(p2pChain, validator, &pex) })

	// A WebSocket client asking for 1 MiB answers at its rate limit and
	// reading none; it dials again each time it is cut.
	s.run(func() {
		call := `{"jsonrpc":"2.0","id":1,"method":"eth_call","params":[{"to":"0x00000000000000000000000000000000000000aa","gas":"0x1000000"},"latest",{"0x00000000000000000000000000000000000000aa":{"code":"0x621000006000f3"}}]}`
		for ctx.Err() == nil {
			c, err := wsOpen("127.0.0.101", addrs["ws"])
			if err != nil {
				sleep(100 * time.Millisecond)
				continue
			}
			for sleep(100 * time.Millisecond) {
				c.SetWriteDeadline(time.Now().Add(2 * time.Second))
				if _, err := c.Write(wsFrame([]byte(call))); err != nil {
					wsCuts.Add(1)
					break
				}
			}
			c.Close()
		}
	})

	// Bad batches as fast as answers come.
	s.run(func() {
		c := clientFrom("127.0.0.102")
		defer c.CloseIdleConnections()
		over := "[" + strings.Repeat(`1,`, 1000) + "1]"
		bad := []string{`[]`, `[`, `[{"jsonrpc":"2.0"`, over}
		for n := 0; ctx.Err() == nil; n++ {
			resp, err := c.Post(url, "application/json", strings.NewReader(bad[n%len(bad)]))
			if err != nil {
				continue
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusTooManyRequests {
				badRefused.Add(1)
			} else {
				badAnswered.Add(1)
			}
		}
	})

	// HTTP/2 rapid reset on the gRPC port.
	s.run(func() {
		d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.103")}, Timeout: 5 * time.Second}
		for ctx.Err() == nil {
			c, err := d.Dial("tcp", addrs["grpc"])
			if err != nil {
				sleep(100 * time.Millisecond)
				continue
			}
			if rapidReset(ctx, c) {
				goaways.Add(1)
			}
			c.Close()
		}
	})

	// Wrong passphrases, 20 at a time.
	s.run(func() {
		// Within the connection cap: Go's client reports a refusal
		// written before its request as an unsolicited response.
		c := clientFrom("127.0.0.104")
		c.Transport.(*http.Transport).MaxConnsPerHost = 5
		c.Transport.(*http.Transport).MaxIdleConnsPerHost = 5
		defer c.CloseIdleConnections()
		for sleep(50 * time.Millisecond) {
			var round sync.WaitGroup
			for range 20 {
				round.Add(1)
				go func() {
					defer round.Done()
					resp, err := c.Post(url+"/authenticate", "application/json", strings.NewReader(`{"passphrase":"a wrong guess"}`))
					if err != nil {
						return
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					switch resp.StatusCode {
					case http.StatusUnauthorized:
						loginsChecked.Add(1)
					case http.StatusTooManyRequests:
						loginsRefuse.Add(1)
					}
				}()
			}
			round.Wait()
		}
	})

	s.run(func() {
		for sleep(250 * time.Millisecond) {
			if rss, err := devload.RSS(p.cmd.Process.Pid); err == nil && rss > maxRSS.Load() {
				maxRSS.Store(rss)
			}
		}
	})
	s.wg.Wait()
	endHead := soakHead(t, url)
	fullHead := pn.head(1)
	fed, pexAddrs, pexDials, pexMost := pex.totals()

	t.Logf("%v: honest %d ok, %d refused or failed; honest peer dropped %d times; heads %d..%d (full node %d); "+
		"%d connections past the cap closed at once, %d after more than 1s, at most %d of 100 admitted; "+
		"p2p: %d sockets closed at once, %d closed at the handshake timeout, %d held longer; %d 4 MiB greetings cut within 1s, %d held longer; "+
		"%d fresh keys fed an address, %d of them dialed back, %d dials in all, at most %d of one; "+
		"%d WebSocket cuts; bad batches %d answered, %d refused; %d GOAWAYs to rapid reset; logins %d checked, %d refused; peak RSS %d MiB",
		dur, honestOK.Load(), honestBad.Load(), peerDrops.Load(), startHead, endHead, fullHead, refusedConns.Load(), slowRefusals.Load(), mostAdmitted.Load(),
		flood.closedAtOnce.Load(), flood.handshakes.Load(), flood.held.Load(), greetings.cutAtOnce.Load(), greetings.held.Load(),
		fed, pexAddrs, pexDials, pexMost,
		wsCuts.Load(), badAnswered.Load(), badRefused.Load(), goaways.Load(), loginsChecked.Load(), loginsRefuse.Load(), maxRSS.Load()>>20)
	if honestBad.Load() > 0 || honestOK.Load() == 0 {
		t.Errorf("honest clients: %d answered, %d refused or failed (first: %v)", honestOK.Load(), honestBad.Load(), firstHonestBad.Load())
	}
	if fullHead+3 < endHead {
		t.Errorf("the full node is at block %d, the validator at %d", fullHead, endHead)
	}
	if peerDrops.Load() > 0 {
		t.Errorf("the honest peer was dropped %d times", peerDrops.Load())
	}
	if want := startHead + uint64(dur/time.Second)/2; endHead < want {
		t.Errorf("head went from %d to %d in %v, want at least %d (1 s blocks)", startHead, endHead, dur, want)
	}
	if slowRefusals.Load() > 0 || refusedConns.Load() == 0 || mostAdmitted.Load() > 5 {
		t.Errorf("connections past the cap: %d closed at once, %d held more than a second, at most %d of 100 admitted at once (cap 5)",
			refusedConns.Load(), slowRefusals.Load(), mostAdmitted.Load())
	}
	if flood.held.Load() > 0 || flood.closedAtOnce.Load() == 0 {
		t.Errorf("p2p sockets: %d closed at once, %d at the handshake timeout, %d held longer", flood.closedAtOnce.Load(), flood.handshakes.Load(), flood.held.Load())
	}
	if greetings.held.Load() > 0 || greetings.cutAtOnce.Load() == 0 {
		t.Errorf("4 MiB greetings: %d cut within 1s, %d held longer", greetings.cutAtOnce.Load(), greetings.held.Load())
	}
	// One IP's addresses are capped at 32 in the book (p2p's
	// MaxAddrsPerSource default; none leaves it within a minute, as eight
	// failed dials take minutes), and each is dialed with back-off from
	// 1 s doubling, in discovery rounds of 2 s: about 7 dials a minute at
	// most, where the poisoned node dialed 20 in 15 s.
	if perAddr := 4 + int(dur/(10*time.Second)); fed == 0 || pexAddrs > 32 || pexMost > perAddr {
		t.Errorf("fresh keys fed %d addresses; the node dialed %d of them (want at most 32), %d times the most (want at most %d)", fed, pexAddrs, pexMost, perAddr)
	}
	// 10 a second, the burst of 10 included, and two seconds' slack for
	// the calls in flight as the run starts and ends.
	if limit := int64(dur/time.Second+2)*10 + 10; badAnswered.Load() > limit || badRefused.Load() == 0 {
		t.Errorf("bad batches: %d answered (limit %d), %d refused", badAnswered.Load(), limit, badRefused.Load())
	}
	if goaways.Load() == 0 {
		t.Error("rapid reset never sent away")
	}
	// 5 free, then one after each lock-out (1, 2, 4 minutes ...).
	if limit := int64(5 + 1 + int(dur/time.Minute)); loginsChecked.Load() > limit {
		t.Errorf("%d wrong passphrases checked, want at most %d", loginsChecked.Load(), limit)
	}
	if maxRSS.Load() > soakRSSBound {
		t.Errorf("peak RSS %d MiB, want at most %d MiB", maxRSS.Load()>>20, soakRSSBound>>20)
	}
}

// soakHead is the node's head number.
func soakHead(t *testing.T, url string) uint64 {
	t.Helper()
	resp, err := clientFrom("127.0.0.9").Post(url, "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	m := regexp.MustCompile(`"result":"0x([0-9a-f]+)"`).FindSubmatch(b)
	if m == nil {
		t.Fatalf("eth_blockNumber: %s", b)
	}
	n, _ := strconv.ParseUint(string(m[1]), 16, 64)
	return n
}

// wsOpen upgrades a connection from local address ip by hand.
func wsOpen(ip, addr string) (net.Conn, error) {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 5 * time.Second}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	c.SetDeadline(time.Now().Add(5 * time.Second))
	var key [16]byte
	rand.Read(key[:])
	fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n",
		addr, base64.StdEncoding.EncodeToString(key[:]))
	resp, err := http.ReadResponse(bufio.NewReaderSize(c, 512), nil)
	if err == nil && resp.StatusCode != http.StatusSwitchingProtocols {
		err = fmt.Errorf("upgrade answered %s", resp.Status)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	c.SetDeadline(time.Time{})
	return c, nil
}

// wsFrame is msg as one masked text frame.
func wsFrame(msg []byte) []byte {
	f := []byte{0x81}
	if len(msg) < 126 {
		f = append(f, 0x80|byte(len(msg)))
	} else {
		f = append(f, 0x80|126, byte(len(msg)>>8), byte(len(msg)))
	}
	mask := [4]byte{1, 2, 3, 4}
	f = append(f, mask[:]...)
	for i, b := range msg {
		f = append(f, b^mask[i%4])
	}
	return f
}

// rapidReset opens and resets streams on an HTTP/2 connection as fast as
// it can, reading what the server sends, and reports whether the server
// sent GOAWAY ENHANCE_YOUR_CALM.
func rapidReset(ctx context.Context, c net.Conn) bool {
	lit := func(b []byte, name, value string) []byte { // literal, new name, no indexing
		b = append(b, 0, byte(len(name)))
		b = append(b, name...)
		b = append(b, byte(len(value)))
		return append(b, value...)
	}
	hdrs := lit(lit(lit(lit(nil, ":method", "POST"), ":scheme", "http"), ":path", "/cosmos.bank.v1beta1.Query/TotalSupply"), ":authority", "x")
	frame := func(typ, flags byte, id uint32, p []byte) []byte {
		f := []byte{byte(len(p) >> 16), byte(len(p) >> 8), byte(len(p)), typ, flags}
		f = binary.BigEndian.AppendUint32(f, id)
		return append(f, p...)
	}
	goaway := make(chan bool, 1)
	go func() {
		br := bufio.NewReader(c)
		var h [9]byte
		for {
			if _, err := io.ReadFull(br, h[:]); err != nil {
				goaway <- false
				return
			}
			n := int(h[0])<<16 | int(h[1])<<8 | int(h[2])
			p := make([]byte, n)
			if _, err := io.ReadFull(br, p); err != nil {
				goaway <- false
				return
			}
			if h[3] == 0x7 && n >= 8 && binary.BigEndian.Uint32(p[4:]) == 0xb {
				goaway <- true
				return
			}
		}
	}()
	c.SetWriteDeadline(time.Now().Add(5 * time.Second))
	c.Write([]byte("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"))
	c.Write(frame(0x4, 0, 0, nil))
	for id := uint32(1); ctx.Err() == nil; id += 2 {
		batch := append(frame(0x1, 0x4, id, hdrs), frame(0x3, 0, id, []byte{0, 0, 0, 8})...)
		if _, err := c.Write(batch); err != nil {
			break
		}
		select {
		case ok := <-goaway:
			return ok
		default:
		}
	}
	c.SetReadDeadline(time.Now().Add(time.Second))
	return errors.Is(ctx.Err(), context.DeadlineExceeded) && <-goaway
}
