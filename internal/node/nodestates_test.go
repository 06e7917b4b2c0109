package node

import (
	"testing"
	"time"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/protocol/wire"
	"github.com/chaind/chaind/internal/types"
)

func TestCountLive(t *testing.T) {
	var nodes []backend.NodeInfo
	var ids []types.Address
	for i, st := range []string{"active", "active", "standby", "jailed"} {
		k, _ := DevValidatorKey(700 + i)
		nodes = append(nodes, backend.NodeInfo{PublicKey: crypto.PublicKey(k).SerializeCompressed(), Status: st})
		ids = append(ids, types.Address(crypto.PrivkeyToAddress(k)))
	}
	full := types.Address{0xf}
	syncing := map[types.Address]bool{ids[1]: true, ids[2]: true, ids[3]: true, full: true}
	got := countLive(backend.NodeCounts{Active: 2, Standby: 1}, nodes, syncing)
	// One active and one standby validator catch up, and one full node;
	// a jailed validator that syncs stays jailed.
	if want := (backend.NodeCounts{Active: 1, Standby: 0, Syncing: 3}); got != want {
		t.Fatalf("counts %+v, want %+v", got, want)
	}
	for i, want := range []string{"active", "syncing", "syncing", "jailed"} {
		if nodes[i].Status != want {
			t.Errorf("node %d is %q, want %q", i, nodes[i].Status, want)
		}
	}
	if got := countLive(backend.NodeCounts{Active: 2}, nil, nil); got != (backend.NodeCounts{Active: 2}) {
		t.Fatalf("nothing syncing changed the counts: %+v", got)
	}
}

// A peer that says it is catching up is counted as syncing in the running
// cycle, and no longer once it says it is done.
func TestP2PSyncingPeerCounted(t *testing.T) {
	pn := newP2PNet(t, 1)
	pn.startValidator(0)
	n := pn.nodes[0]
	waitHeight(t, n, 1, 30*time.Second)
	x, _ := rawPeer(t, n, 650, wire.TopicCert, true)
	syncing := func() int {
		info, err := (&network{n: n}).CycleInfo(nil)
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
