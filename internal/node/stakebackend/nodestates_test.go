package stakebackend

import (
	"testing"

	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
)

func TestCountLive(t *testing.T) {
	var nodes []backend.NodeInfo
	var ids []types.Address
	for i, st := range []string{"active", "active", "standby", "jailed"} {
		k, err := crypto.ToPrivateKey(append(make([]byte, 31), byte(70+i)))
		if err != nil {
			t.Fatal(err)
		}
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

func TestSigningState(t *testing.T) {
	const s, m = false, true // signed, missed; most recent first
	for _, c := range []struct {
		name   string
		missed []bool
		want   string
	}{
		{"signing", []bool{s, s, s, s, s, s, s, s, s, s}, ""},
		{"a few misses", []bool{s, m, m, s, m, m, m, m, s, m}, ""},
		{"silent for the last five", []bool{m, m, m, m, m, s, s, s, s, s}, "standby"},
		{"silent throughout", []bool{m, m, m, m, m, m, m, m, m, m}, "standby"},
		{"silent for four: not yet", []bool{m, m, m, m, s, s, s, s, s, s}, ""},
		{"back after five silent", []bool{s, m, m, m, m, m, s, s, s, s}, "syncing"},
		{"back, the silence at the window's end", []bool{s, s, s, s, s, m, m, m, m, m}, "syncing"},
		{"the silence left the window", []bool{s, s, s, s, s, s, m, m, m, m}, ""},
		{"a short record", []bool{m, m}, ""},
	} {
		if got := signingState(c.missed); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
