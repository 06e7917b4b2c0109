package node

import (
	"github.com/chaind/chaind/internal/pos"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/protocol/wire"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/p2p"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

// A peer that says it is catching up is counted as syncing in the running
// cycle, and no longer once it says it is done.
func TestP2PSyncingPeerCounted(t *testing.T) {
	pn := newP2PNet(t, 1)
	pn.startValidator(0)
	n := pn.nodes[0]
	waitHeight(t, n, 1, 30*time.Second)
	x, _ := rawPeer(t, n, 650, wire.TopicCert, true)
	syncing := func() int {
		info, err := n.stake.Network().CycleInfo(nil)
		if err != nil {
			t.Fatal(err)
		}
		return info.Nodes.Syncing
	}
	if got := syncing(); got != 0 {
		t.Fatalf("syncing %d before anyone syncs", got)
	}
	x.Broadcast(wire.TopicStatus, wire.Status{Height: 0, Syncing: true}.Encode())
	waitFor(t, "the peer counted as syncing", func() bool { return syncing() == 1 })
	x.Broadcast(wire.TopicStatus, wire.Status{Height: 1}.Encode())
	waitFor(t, "the peer no longer counted", func() bool { return syncing() == 0 })
}

// waitFor polls cond until it holds; the deadline only bounds a broken
// run (a loaded machine is slow), it measures nothing.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Node states follow the chain's signing records, alike on every node: a
// validator that goes down leaves active within one cycle; restarted, it
// catches up, is counted syncing once it signs again, then active; and
// nobody healthy is jailed meanwhile (nor the one that was down for less
// than the liveness window allows).
func TestP2PNodeStatesFollowTheChain(t *testing.T) {
	pn := newP2PNet(t, 4)
	if err := pos.SetDevStaking(pn.genesis, pn.keys, "127.0.0.1"); err != nil {
		t.Fatal(err)
	}
	pn.configure = func(c *Config) { c.Validators = nil } // the staking state's sets
	for i := range 4 {
		pn.startValidator(i)
	}
	// A node's id is its p2p ID, the one --p2p.peers takes, and its
	// public key's address.
	status := func(n *Node, i int) string {
		for _, nd := range n.stake.Network().Nodes() {
			if len(nd.ID) != len(p2p.ID{}) || p2p.ID(nd.ID) != pn.addrs[i].ID {
				continue
			}
			if k, err := secp256k1.ParsePubKey(nd.PublicKey); err != nil || p2p.ID(crypto.PubkeyToAddress(k)) != pn.addrs[i].ID {
				t.Fatalf("node %x lists public key %x", nd.ID, nd.PublicKey)
			}
			return nd.Status
		}
		return "missing"
	}
	waitHeight(t, pn.nodes[0], 12, 60*time.Second)
	for i := range 4 {
		if s := status(pn.nodes[0], i); s != "active" {
			t.Fatalf("validator %d is %s with every validator up", i, s)
		}
	}

	// Down: within one cycle (10 blocks) it is not active, on any node.
	stopped := pn.nodes[3].Chain.Head().Number()
	pn.nodes[3].Close()
	pn.nodes[3] = nil
	waitHeight(t, pn.nodes[0], stopped+types.DefaultCycleRule.Length+1, 60*time.Second)
	for i, n := range pn.nodes[:3] {
		waitHeight(t, n, stopped+types.DefaultCycleRule.Length+1, 30*time.Second)
		if s := status(n, 3); s == "active" {
			t.Fatalf("node %d counts validator 3 active %d blocks after it stopped", i, n.Chain.Head().Number()-stopped)
		}
	}
	info, err := pn.nodes[0].stake.Network().CycleInfo(nil)
	if err != nil {
		t.Fatal(err)
	}
	if info.Nodes.Active != 3 {
		t.Fatalf("cycle counts %+v with one of four validators down", info.Nodes)
	}

	// Back: syncing once it signs again, then active.
	pn.startValidator(3)
	waitFor(t, "validator 3 counted syncing", func() bool { return status(pn.nodes[0], 3) == "syncing" })
	waitFor(t, "validator 3 counted active again", func() bool { return status(pn.nodes[0], 3) == "active" })
	for i, n := range pn.nodes {
		for j := range 4 {
			if s := status(n, j); s == "jailed" {
				t.Fatalf("node %d counts validator %d jailed", i, j)
			}
		}
	}
}
