package chain

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
)

// streamGenesis is a genesis with what a streamed init must get right:
// many accounts (several sort runs), code, storage with a zero value (no
// slot), an empty account, a nonce.
func streamGenesis(n int) *Genesis {
	g := DevGenesis(MainChainID, manyAccounts(n), 1_700_000_000)
	g.Alloc[types.Address{0xc0}] = Account{Code: []byte{0x60, 0x00, 0x60, 0x00, 0xf3}, Nonce: 1, Storage: map[types.Hash]types.Hash{
		{31: 1}: {31: 7}, {31: 2}: {}, {0xff}: {0x01, 31: 0x02},
	}}
	g.Alloc[types.Address{0xc1}] = Account{}
	return g
}

// The store a streamed init makes is the one Open makes from the same
// genesis, key for key: block 0, its state, the flat copy and the genesis
// records; with an engine that adds accounts, one of them at an address
// the allocation also funds (the engine's wins, as in genesisWith).
func TestInitGenesisMatchesOpen(t *testing.T) {
	for _, tc := range []struct {
		name string
		e    Engine
	}{
		{"ethereum", Ethereum{}},
		{"engine accounts", allocEngine{alloc: Alloc{
			{0x5e}:             {Nonce: 1, Code: []byte{0x00}, Storage: map[types.Hash]types.Hash{{1}: {2}}},
			{0xaa, 0, 0, 0x10}: {Nonce: 1, Code: []byte{0x01}},
		}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := streamGenesis(3000)
			want := store.NewMem()
			c, err := Open(g, want, tc.e)
			if err != nil {
				t.Fatal(err)
			}
			got := store.NewMem()
			sg, err := initGenesis(bytes.NewReader(mustJSON(t, g)), got, func(*Genesis) Engine { return tc.e }, t.TempDir(), 16<<10)
			if err != nil {
				t.Fatal(err)
			}
			if h, _ := sg.StoredHash(); h != c.Genesis().Hash() {
				t.Fatalf("streamed block 0 %s, Open's %s", h, c.Genesis().Hash())
			}
			// The streamed store opens as a chain (which adds its index
			// version, as Open did), and the genesis file given again is
			// recognised.
			if _, err := Open(sg, got, tc.e); err != nil {
				t.Fatal(err)
			}
			diffStores(t, want, got)
			if _, err := Open(g, got, tc.e); err != nil {
				t.Fatalf("the genesis given again: %v", err)
			}
		})
	}
}

func diffStores(t *testing.T, want, got store.KV) {
	t.Helper()
	all := func(kv store.KV) map[string]string {
		m := map[string]string{}
		kv.Iterate(nil, func(k, v []byte) bool { m[string(k)] = string(v); return true })
		return m
	}
	w, g := all(want), all(got)
	var diffs []string
	for k, v := range w {
		if gv, ok := g[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("missing %q", k))
		} else if gv != v {
			diffs = append(diffs, fmt.Sprintf("differs %q", k))
		}
	}
	for k := range g {
		if _, ok := w[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("extra %q", k))
		}
	}
	if len(diffs) > 0 {
		t.Fatalf("%d keys differ (of %d), e.g. %s", len(diffs), len(w), strings.Join(diffs[:min(5, len(diffs))], "; "))
	}
}

// Bad input is refused with the reason: an address given twice (which a
// map would silently drop), a malformed address, a fork genesis, a store
// that already holds a chain.
func TestInitGenesisRefuses(t *testing.T) {
	g := streamGenesis(10)
	raw := string(mustJSON(t, g))
	twice := strings.Replace(raw, `"alloc":{`, `"alloc":{"0xaa00000100000000000000000000000000000000":{"balance":"0x1"},"aa00000100000000000000000000000000000000":{"balance":"0x2"},`, 1)
	bad := strings.Replace(raw, `"alloc":{`, `"alloc":{"0x12":{"balance":"0x1"},`, 1)
	for name, in := range map[string]string{"twice": twice, "bad address": bad, "not an object": `[]`} {
		if _, err := initGenesis(strings.NewReader(in), store.NewMem(), func(*Genesis) Engine { return nil }, t.TempDir(), 1<<10); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	kv := store.NewMem()
	if _, err := Open(g, kv, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := initGenesis(strings.NewReader(raw), kv, func(*Genesis) Engine { return nil }, t.TempDir(), 1<<10); err == nil {
		t.Error("a store holding a chain: accepted")
	}
	fork := *g
	fork.Fork = &ForkPoint{URL: "http://127.0.0.1:1", Number: 5}
	if _, err := initGenesis(bytes.NewReader(mustJSON(t, &fork)), store.NewMem(), func(*Genesis) Engine { return nil }, t.TempDir(), 1<<10); !errors.Is(err, ErrStreamFork) {
		t.Errorf("fork genesis: %v, want ErrStreamFork", err)
	}
}
