package chain

import (
	"errors"
	"testing"

	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
)

// wideExtra is an engine that carries its own data in the extra data.
type wideExtra struct{ Ethereum }

func (wideExtra) MaxExtra() int { return 64 }

// The extra-data limit is the engine's: Ethereum's 32 bytes unless the
// engine lifts it, and never beyond what it lifts it to.
func TestExtraLimitIsTheEngines(t *testing.T) {
	_, c, _ := execFixture(t)
	parent := c.Head().Header()
	for _, tc := range []struct {
		name   string
		engine Engine
		extra  int
		ok     bool
	}{
		{"ethereum, 32 bytes", nil, 32, true},
		{"ethereum, 33 bytes", nil, 33, false},
		{"wide, 64 bytes", wideExtra{}, 64, true},
		{"wide, 65 bytes", wideExtra{}, 65, false},
	} {
		h, err := c.Config.NextHeader(parent, Attributes{Time: parent.Time + 1, Extra: make([]byte, tc.extra)})
		if err != nil {
			t.Fatal(err)
		}
		err = Rules{Config: c.Config, Engine: tc.engine}.ValidateHeader(parent, h)
		if tc.ok != (err == nil) || (!tc.ok && !errors.Is(err, ErrExtraTooLong)) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}

// Open builds block 0 with the engine's genesis accounts, and a store
// holding that block 0 refuses to open under an engine that adds none.
func TestOpenBuildsTheEnginesGenesis(t *testing.T) {
	g := DevGenesis(MainChainID, []types.Address{{1}}, 1_700_000_000)
	sys := types.Address{0x5e}
	e := allocEngine{alloc: Alloc{sys: {Nonce: 1, Code: []byte{0x00}}}}
	kv := store.NewMem()
	c, err := Open(g, kv, e)
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.StateAt(c.Genesis().Root())
	if err != nil {
		t.Fatal(err)
	}
	if st.GetNonce(sys) != 1 {
		t.Fatal("block 0 lacks the engine's account")
	}
	if _, ok := g.Alloc[sys]; ok {
		t.Fatal("Open changed the genesis it was given")
	}
	if _, err := Open(g, kv, nil); !errors.Is(err, ErrGenesisMismatch) {
		t.Fatalf("reopened without the engine: %v, want ErrGenesisMismatch", err)
	}
	if _, err := Open(g, kv, e); err != nil {
		t.Fatalf("reopened with the engine: %v", err)
	}
}

// allocEngine adds accounts to block 0.
type allocEngine struct {
	Ethereum
	alloc Alloc
}

func (e allocEngine) GenesisAlloc(*Genesis) (Alloc, error) { return e.alloc, nil }

// BenchmarkReopen: a start reads its stored genesis record and opens
// ("stored", what chaind does without --genesis); the genesis given again
// is recognised by its digests ("spelled"), and one spelled differently
// from the stored one still gets block 0 built ("rebuild").
func BenchmarkReopen(b *testing.B) {
	g := DevGenesis(MainChainID, manyAccounts(20_000), 1_700_000_000)
	kv := store.NewMem()
	c, err := Open(g, kv, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("stored", func(b *testing.B) {
		for b.Loop() {
			sg, _, err := StoredGenesis(kv)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := Open(sg, kv, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("spelled", func(b *testing.B) {
		for b.Loop() {
			if _, err := Open(g, kv, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("rebuild", func(b *testing.B) {
		for b.Loop() {
			if err := c.checkGenesis(g, kv, c.Genesis().Hash()); err != nil {
				b.Fatal(err)
			}
		}
	})
}
