package nodes

import (
	"errors"
	"testing"
	"time"

	"github.com/chaind/chaind/internal/protocol/wire"
	"github.com/decred/dcrd/dcrec/secp256k1/v4"
)

const chainID = 8119

func newKey(t *testing.T) *secp256k1.PrivateKey {
	k, err := secp256k1.GeneratePrivateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func announce(key *secp256k1.PrivateKey, chain uint64, at time.Time) []byte {
	a := wire.NodeAnnouncement{ChainID: chain, Kind: wire.KindFull, TimeMs: uint64(at.UnixMilli()), Addr: "127.0.0.1:4000", Version: "1.0.0"}
	a.Sign(key)
	return a.Encode()
}

// The table takes a node's newest announcement only: replays, older ones,
// expired ones, ones from the future, of another chain or changed after
// signing are refused; a node that stops renewing drops out after TTL; the
// table holds at most MaxNodes.
func TestTable(t *testing.T) {
	now := time.UnixMilli(1_700_000_000_000)
	r := New(nil, Config{ChainID: chainID, TTL: time.Minute, MaxSkew: 5 * time.Second, MaxNodes: 2, Now: func() time.Time { return now }})
	k1, k2, k3 := newKey(t), newKey(t), newKey(t)
	first := announce(k1, chainID, now.Add(-time.Second))
	if _, err := r.Add(first); err != nil {
		t.Fatal(err)
	}
	newer := announce(k1, chainID, now)
	forged := append([]byte(nil), newer...)
	forged[len(forged)-66] ^= 1 // a byte of the version
	for _, c := range []struct {
		name string
		b    []byte
		want error
	}{
		{"replayed", first, ErrStale},
		{"expired", announce(k2, chainID, now.Add(-time.Minute)), ErrStale},
		{"future", announce(k2, chainID, now.Add(6*time.Second)), ErrFuture},
		{"other chain", announce(k2, chainID+1, now), ErrWrongChain},
		{"changed", forged, wire.ErrForged},
		{"garbage", []byte{1, 2, 3}, wire.ErrMalformed},
	} {
		if _, err := r.Add(c.b); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := r.Add(newer); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Add(first); !errors.Is(err, ErrStale) {
		t.Errorf("older after newer: %v", err)
	}
	if _, err := r.Add(announce(k2, chainID, now)); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Add(announce(k3, chainID, now)); !errors.Is(err, ErrFull) {
		t.Errorf("third node in a table of 2: %v", err)
	}
	ns := r.Nodes()
	if len(ns) != 2 || string(ns[0].ID[:]) > string(ns[1].ID[:]) {
		t.Fatalf("nodes %v", ns)
	}
	for _, n := range ns {
		if n.Kind != wire.KindFull || n.Addr != "127.0.0.1:4000" || len(n.Key) != 33 {
			t.Errorf("node %+v", n)
		}
	}
	// Past the TTL without renewal both are gone, and room is made.
	now = now.Add(time.Minute)
	if _, err := r.Add(announce(k3, chainID, now)); err != nil {
		t.Fatalf("after expiry: %v", err)
	}
	if ns := r.Nodes(); len(ns) != 1 || ns[0].Key == nil {
		t.Fatalf("after expiry: %v", ns)
	}
}
