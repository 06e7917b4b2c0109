package node

import (
	"testing"
	"time"

	"github.com/chaind/chaind/internal/protocol/wire"
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
