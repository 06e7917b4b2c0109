package main

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/devload"
)

// wsSubscribe opens a WebSocket on addr by hand (a client library would
// cost the test process far more than the node it measures), subscribes
// to newHeads and returns the idle connection.
func wsSubscribe(addr string) (net.Conn, error) {
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return nil, err
	}
	c.SetDeadline(time.Now().Add(30 * time.Second))
	var key [16]byte
	rand.Read(key[:])
	fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n",
		addr, base64.StdEncoding.EncodeToString(key[:]))
	br := bufio.NewReaderSize(c, 512)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		c.Close()
		return nil, err
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		c.Close()
		return nil, fmt.Errorf("upgrade answered %s", resp.Status)
	}
	msg := []byte(`{"jsonrpc":"2.0","id":1,"method":"eth_subscribe","params":["newHeads"]}`)
	frame := []byte{0x81, 0x80 | byte(len(msg)), 1, 2, 3, 4}
	for i, b := range msg {
		frame = append(frame, b^frame[2+i%4])
	}
	if _, err := c.Write(frame); err != nil {
		c.Close()
		return nil, err
	}
	var hdr [2]byte
	if _, err := io.ReadFull(br, hdr[:]); err != nil {
		c.Close()
		return nil, err
	}
	reply := make([]byte, hdr[1]&0x7f)
	if _, err := io.ReadFull(br, reply); err != nil || !strings.Contains(string(reply), `"result":"0x`) {
		c.Close()
		return nil, fmt.Errorf("subscribe answered %q: %v", reply, err)
	}
	c.SetDeadline(time.Time{})
	return c, nil
}

// TestIdleSubscribersMemory holds 10,000 idle WebSocket connections, each
// subscribed to newHeads, on one node: together they may cost at most
// 200 MiB of resident memory over what the node held before they came.
// CHAIND_WS_SUBSCRIBERS changes the count (the bound then scales).
func TestIdleSubscribersMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 10,000 connections; skipped with -short")
	}
	n := 10_000
	if v, err := strconv.Atoi(os.Getenv("CHAIND_WS_SUBSCRIBERS")); err == nil && v > 0 {
		n = v
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	os.Setenv(asChaindEnv, "1")
	// --gc.headroom 0: measure what the connections hold, not the garbage
	// the default headroom lets the heap keep between collections.
	p, err := devload.Start(exe, "--dev", "--block-time", "1h", "--http.port", "0", "--ws.port", "-1", "--rest.port", "-1", "--grpc.port", "-1", "--cometrpc.port", "-1", "--explorer.port", "-1", "--gc.headroom", "0", "--pprof", "127.0.0.1:0")
	os.Unsetenv(asChaindEnv)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Stop(10 * time.Second)
	addr := strings.TrimPrefix(p.URL, "http://")
	before, _ := p.RSS()
	conns := make([]net.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for i := 0; i < n; i++ {
		c, err := wsSubscribe(addr)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		conns = append(conns, c)
	}
	// Measure what the connections hold, not the garbage their handshakes
	// left: have the node collect (through its --pprof port) and give the
	// runtime a moment to return freed pages.
	if m := regexp.MustCompile(`listening kind=pprof addr=(\S+)`).FindStringSubmatch(p.Log()); m != nil {
		if r, err := http.Get("http://" + m[1] + "/debug/pprof/heap?gc=1"); err == nil {
			io.Copy(io.Discard, r.Body)
			r.Body.Close()
		}
	} else {
		t.Fatalf("no pprof listener logged:\n%s", p.Log())
	}
	time.Sleep(3 * time.Second)
	rss, err := p.RSS()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d idle subscribers: node RSS %d MiB (%d MiB before), %d KiB per connection", n, rss>>20, before>>20, (rss-before)/uint64(n)>>10)
	if limit := uint64(200<<20) * uint64(n) / 10_000; rss-before > limit {
		t.Fatalf("%d idle subscribers cost %d MiB of RSS, want ≤ %d MiB", n, (rss-before)>>20, limit>>20)
	}
}
