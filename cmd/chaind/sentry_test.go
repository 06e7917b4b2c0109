package main

import (
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/chaind/chaind/consensus"
	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/devload"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/p2p"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// peerWatch samples the validators' net_peerCount until stopped.
type peerWatch struct {
	mu      sync.Mutex
	max     []devload.Quantity // highest count seen per node
	dropped []int              // samples at 0 after the node had its peer
	samples int
	stop    chan struct{}
	done    chan struct{}
}

func watchPeers(pn *procNet, nodes int) *peerWatch {
	w := &peerWatch{max: make([]devload.Quantity, nodes), dropped: make([]int, nodes),
		stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for {
			for i := range nodes {
				var n devload.Quantity
				if err := pn.client(i).Call(&n, "net_peerCount"); err != nil {
					continue
				}
				w.mu.Lock()
				if n == 0 && w.max[i] > 0 {
					w.dropped[i]++
				}
				w.max[i] = max(w.max[i], n)
				w.samples++
				w.mu.Unlock()
			}
			select {
			case <-w.stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return w
}

func (w *peerWatch) finish() {
	close(w.stop)
	<-w.done
}

// A spy joins the network through the full node as any stranger could,
// with peer exchange on, and reports what addresses it was given.
func startSpy(t *testing.T, pn *procNet, full int, genesis types.Hash) *p2p.Host {
	t.Helper()
	key, err := secp256k1.GeneratePrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	h, err := p2p.New(p2p.Config{Key: key, Chain: p2p.Chain{ChainID: chain.TestChainID, Genesis: genesis},
		ListenAddr: "127.0.0.1:0", StaticPeers: []p2p.PeerAddr{{ID: pn.nodes[full].ID, Addr: pn.nodes[full].P2P}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := h.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	return h
}

func knows(h *p2p.Host, id p2p.ID) bool {
	return slices.ContainsFunc(h.KnownAddrs(), func(a p2p.PeerAddr) bool { return a.ID == id })
}

func waitUntil(t *testing.T, what string, within time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", within, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// The sentry-node layout (chaind testnet --sentry), four validator
// processes and one full node at a 500 ms block time: each validator's
// only peer is the full node (its static peer, peer exchange off), and
// the full node keeps the validators' addresses private. Consensus runs
// through the full node's relaying: blocks are committed, every
// validator's precommit makes it into certificates, all nodes agree on
// the head, and a stranger asking the full node for peers is never told
// where a validator is.
func TestSentryPartialMesh(t *testing.T) {
	const validators, full = 4, 4
	start := time.Now()
	pn := startProcNet(t, validators, 1, 500*time.Millisecond, func(s *testnetSpec) { s.sentry = true })
	// A stranger joins through the full node before the validators: a
	// validator that asked the full node for peers would be told of it.
	pn.start(full)
	g, err := pn.client(full).Block(0)
	if err != nil {
		t.Fatal(err)
	}
	spy1 := startSpy(t, pn, full, g.Hash)
	waitUntil(t, "the first stranger connected", 30*time.Second, func() bool { return spy1.PeerCount() == 1 })
	for i := range validators {
		pn.start(i)
	}
	watch := watchPeers(pn, validators)
	defer func() {
		select {
		case <-watch.stop:
		default:
			watch.finish()
		}
	}()
	pn.waitHead(0, 4, 60*time.Second)

	// A second stranger joins once every validator is connected to the
	// full node: it is told of the first (peer exchange works) and
	// neither is told of any validator.
	var peers devload.Quantity
	waitUntil(t, "every validator connected to the full node", 30*time.Second, func() bool {
		return pn.client(full).Call(&peers, "net_peerCount") == nil && peers == validators+1
	})
	spy2 := startSpy(t, pn, full, g.Hash)
	waitUntil(t, "the second stranger told of the first", 30*time.Second, func() bool { return knows(spy2, spy1.ID()) })
	for _, spy := range []*p2p.Host{spy1, spy2} {
		for _, n := range pn.nodes[:validators] {
			if knows(spy, n.ID) {
				t.Errorf("a stranger learned %s's address: %v", n.Name, spy.KnownAddrs())
			}
		}
	}

	// More blocks at the 500 ms block time; then all nodes at a common
	// height hold the same block.
	from := pn.head(0)
	pn.waitHead(0, from+10, 30*time.Second)
	top := pn.head(0)
	want, err := pn.client(0).Block(top)
	if err != nil {
		t.Fatal(err)
	}
	for i := range pn.nodes {
		pn.waitHead(i, top, 30*time.Second)
		got, err := pn.client(i).Block(top)
		if err != nil || got.Hash != want.Hash {
			t.Fatalf("%s: block %d is %v (%v), %s has %s", pn.nodes[i].Name, top, got, err, pn.nodes[0].Name, want.Hash)
		}
	}
	for _, spy := range []*p2p.Host{spy1, spy2} {
		for _, p := range spy.Peers() {
			if p.ID != pn.nodes[full].ID && p.ID != spy1.ID() && p.ID != spy2.ID() {
				t.Errorf("a stranger reached node %s", p.ID)
			}
		}
	}
	watch.finish()
	for i := range validators {
		if watch.max[i] != 1 || watch.dropped[i] != 0 {
			t.Errorf("%s: net_peerCount reached %d and was 0 in %d samples after connecting; want always 1",
				pn.nodes[i].Name, watch.max[i], watch.dropped[i])
		}
	}
	t.Logf("%d net_peerCount samples; blocks %d..%d in %v", watch.samples, from, top, time.Since(start).Round(time.Millisecond))

	// After a clean stop, every store holds the blocks with valid
	// certificates, and each validator's precommit, relayed by the full
	// node, is in some of the last ten.
	spy1.Close()
	spy2.Close()
	stopAll(pn.procs, 5*time.Second)
	for _, n := range pn.nodes {
		signed := make(map[string]int)
		pn.storedCertificates(n, top, func(num uint64, set *consensus.ValidatorSet, cert *consensus.Certificate) {
			if num+10 <= top {
				return
			}
			for _, v := range pn.nodes[:validators] {
				if signedBy(set, cert, types.Address(v.ID)) {
					signed[v.Name]++
				}
			}
		})
		for _, v := range pn.nodes[:validators] {
			if signed[v.Name] == 0 {
				t.Errorf("%s: no certificate of blocks %d..%d holds %s's precommit", n.Name, top-9, top, v.Name)
			}
		}
		t.Logf("%s: blocks 1..%d verified; precommits in the last ten certificates per validator: %v", n.Name, top, signed)
	}
}
