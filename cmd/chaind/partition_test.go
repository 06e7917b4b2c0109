package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/types"
	"golang.org/x/sys/unix"
)

// The partition tests run each validator in its own network namespace,
// linked by veth pairs to bridges in a hub namespace; moving a node's
// link from one bridge to the other cuts the network in two. They need
// root and iproute2, so they run only with CHAIND_E2E_NET=1 (make e2e-net).
const e2eNetEnv = "CHAIND_E2E_NET"

// netnsLab is a set of namespaces the test created and removes.
type netnsLab struct {
	t      *testing.T
	prefix string
	hub    string
	nodes  []string // namespace of node i
}

func (l *netnsLab) ip(args ...string) {
	l.t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		l.t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
	}
}

func nodeAddr(i int) string { return fmt.Sprintf("10.231.0.%d", i+1) }

func newNetnsLab(t *testing.T, n int) *netnsLab {
	l := &netnsLab{t: t, prefix: fmt.Sprintf("c%d", os.Getpid()%1000000)}
	l.hub = l.prefix + "h"
	t.Cleanup(func() {
		for _, ns := range append([]string{l.hub}, l.nodes...) {
			exec.Command("ip", "netns", "del", ns).Run()
		}
	})
	l.ip("netns", "add", l.hub)
	l.ip("-n", l.hub, "link", "set", "lo", "up")
	for _, br := range []string{l.prefix + "a", l.prefix + "b"} {
		l.ip("-n", l.hub, "link", "add", br, "type", "bridge")
		l.ip("-n", l.hub, "link", "set", br, "up")
	}
	for i := range n {
		ns := fmt.Sprintf("%sn%d", l.prefix, i)
		l.ip("netns", "add", ns)
		l.nodes = append(l.nodes, ns)
		l.ip("-n", ns, "link", "set", "lo", "up")
		v := fmt.Sprintf("%sv%d", l.prefix, i)
		l.ip("link", "add", v, "netns", ns, "type", "veth", "peer", "name", v+"b", "netns", l.hub)
		l.ip("-n", ns, "addr", "add", nodeAddr(i)+"/24", "dev", v)
		l.ip("-n", ns, "link", "set", v, "up")
		l.ip("-n", l.hub, "link", "set", v+"b", "master", l.prefix+"a")
		l.ip("-n", l.hub, "link", "set", v+"b", "up")
	}
	return l
}

// split puts the nodes of side b on the second bridge, the rest on the
// first; split() heals.
func (l *netnsLab) split(b ...int) {
	for i := range l.nodes {
		br := l.prefix + "a"
		for _, j := range b {
			if i == j {
				br = l.prefix + "b"
			}
		}
		l.ip("-n", l.hub, "link", "set", fmt.Sprintf("%sv%db", l.prefix, i), "master", br)
	}
}

// dialer dials from inside namespace ns: the socket is created by a
// thread switched into ns, and keeps belonging to it.
func dialer(ns string) func(network, addr string) (net.Conn, error) {
	return func(network, addr string) (net.Conn, error) {
		type result struct {
			c   net.Conn
			err error
		}
		ch := make(chan result, 1)
		go func() {
			runtime.LockOSThread()
			orig, err := os.Open("/proc/thread-self/ns/net")
			if err != nil {
				runtime.UnlockOSThread()
				ch <- result{nil, err}
				return
			}
			defer orig.Close()
			target, err := os.Open("/var/run/netns/" + ns)
			if err != nil {
				runtime.UnlockOSThread()
				ch <- result{nil, err}
				return
			}
			defer target.Close()
			if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
				runtime.UnlockOSThread()
				ch <- result{nil, err}
				return
			}
			c, err := net.DialTimeout(network, addr, 2*time.Second)
			if unix.Setns(int(orig.Fd()), unix.CLONE_NEWNET) == nil {
				runtime.UnlockOSThread() // else the thread dies with this goroutine
			}
			ch <- result{c, err}
		}()
		r := <-ch
		return r.c, r.err
	}
}

// Partitions of a 4-validator network: 2|2 commits nothing on either side
// and forks nothing; healed, blocks resume; 3|1 keeps the majority
// committing, and the minority catches up once healed. Every node ends
// with the same blocks and valid certificates.
func TestPartitions(t *testing.T) {
	if os.Getenv(e2eNetEnv) != "1" {
		t.Skip("partition tests need root and ip netns: run make e2e-net (" + e2eNetEnv + "=1)")
	}
	if os.Geteuid() != 0 {
		t.Fatal(e2eNetEnv + "=1 but not root: network namespaces cannot be created")
	}
	const validators = 4
	lab := newNetnsLab(t, validators)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	nodes, err := writeTestnet(dir, testnetSpec{validators: validators, chainID: chain.TestChainID,
		blockTime: 500 * time.Millisecond, hostOf: nodeAddr,
		port: func(int) (int, int, int) { return 26656, 8545, 8546 }})
	if err != nil {
		t.Fatal(err)
	}
	procs := make([]*nodeProc, validators)
	clients := make([]*devload.Client, validators)
	t.Cleanup(func() {
		stopAll(procs, 5*time.Second)
		if t.Failed() {
			for _, n := range nodes {
				if log, err := os.ReadFile(filepath.Join(n.Dir, "chaind.log")); err == nil {
					t.Logf("%s log:\n%s", n.Name, lastLines(string(log), 30))
				}
			}
		}
	})
	for i, n := range nodes {
		cmd := exec.Command("ip", "netns", "exec", lab.nodes[i], exe, "--config", n.Config)
		cmd.Env = append(os.Environ(), asChaindEnv+"=1")
		p, err := runNodeProc(cmd, n, nil, dialer(lab.nodes[i]))
		if err != nil {
			t.Fatal(err)
		}
		procs[i] = p
		dial := dialer(lab.nodes[i])
		clients[i] = devload.NewClient("http://" + p.http)
		clients[i].HTTP = &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{
			DialContext: func(_ context.Context, network, addr string) (net.Conn, error) { return dial(network, addr) }}}
	}
	head := func(i int) uint64 {
		h, err := clients[i].BlockNumber()
		if err != nil {
			t.Fatalf("%s: %v", nodes[i].Name, err)
		}
		return h
	}
	heads := func() []uint64 {
		var hs []uint64
		for i := range validators {
			hs = append(hs, head(i))
		}
		return hs
	}
	waitAll := func(who []int, h uint64, within time.Duration) {
		t.Helper()
		deadline := time.Now().Add(within)
		for _, i := range who {
			for head(i) < h {
				if time.Now().After(deadline) {
					t.Fatalf("%s at %d, want %d within %v (heads %v)", nodes[i].Name, head(i), h, within, heads())
				}
				time.Sleep(100 * time.Millisecond)
			}
		}
	}
	all := []int{0, 1, 2, 3}
	waitAll(all, 3, 60*time.Second)
	t.Logf("connected: heads %v", heads())

	// 2|2: neither side has a quorum.
	lab.split(2, 3)
	time.Sleep(2 * time.Second) // a decision in flight may still land
	before := heads()
	time.Sleep(6 * time.Second)
	after := heads()
	t.Logf("2|2 partition: heads %v, 6s later %v", before, after)
	for i := range before {
		if after[i] != before[i] {
			t.Fatalf("%s committed blocks %d..%d without a quorum", nodes[i].Name, before[i]+1, after[i])
		}
	}

	// Healed: blocks resume.
	lab.split()
	top := max(after[0], after[1], after[2], after[3])
	start := time.Now()
	waitAll(all, top+3, 90*time.Second)
	t.Logf("healed: every node past block %d after %v; heads %v", top+3, time.Since(start).Round(100*time.Millisecond), heads())

	// 3|1: the majority goes on, the minority stalls.
	lab.split(3)
	time.Sleep(2 * time.Second)
	minority := head(3)
	base := head(0)
	start = time.Now()
	waitAll([]int{0, 1, 2}, base+5, 60*time.Second)
	t.Logf("3|1 partition: majority %d -> %d in %v; minority stays at %d", base, head(0), time.Since(start).Round(100*time.Millisecond), head(3))
	if h := head(3); h != minority {
		t.Fatalf("the minority validator committed %d..%d alone", minority+1, h)
	}

	// Healed: the minority catches up and follows.
	lab.split()
	target := head(0)
	start = time.Now()
	waitAll([]int{3}, target+2, 90*time.Second)
	t.Logf("healed: minority from %d to %d in %v; heads %v", minority, head(3), time.Since(start).Round(100*time.Millisecond), heads())

	// No fork: after a clean stop, every store holds the same blocks with
	// valid certificates.
	final := heads()
	common := min(final[0], final[1], final[2], final[3])
	stopAll(procs, 5*time.Second)
	var ref []types.Hash
	for _, n := range nodes {
		walkCertified(t, dir, n, common, func(b *types.Block, _ *consensus.ValidatorSet, _ *consensus.Certificate) {
			num := b.Number()
			if len(ref) < int(num) {
				ref = append(ref, b.Hash())
			} else if ref[num-1] != b.Hash() {
				t.Fatalf("fork at block %d: %s has %s, validator0 %s", num, n.Name, b.Hash().Hex(), ref[num-1].Hex())
			}
		})
	}
	t.Logf("no fork: %d nodes agree on blocks 1..%d, every certificate valid", len(nodes), common)
}
