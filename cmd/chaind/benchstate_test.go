package main

import (
	"path/filepath"
	"testing"

	"github.com/chaind/chaind/internal/chain"
	"github.com/chaind/chaind/internal/crypto/hd"
	"github.com/chaind/chaind/internal/devload"
)

// The scale genesis, written as it is generated, is the dev genesis plus
// the generated accounts and the token with its holders.
func TestWriteScaleGenesis(t *testing.T) {
	dev, err := buildDev(devFlags{accounts: 2, balance: "10", mnemonic: hd.DevMnemonic}, 0)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "g.json")
	addrs, err := writeScaleGenesis(path, dev.Genesis, 5, 3)
	if err != nil {
		t.Fatal(err)
	}
	g, err := chain.LoadGenesis(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Alloc) != len(dev.Genesis.Alloc)+5+1 {
		t.Fatalf("%d allocations, want %d", len(g.Alloc), len(dev.Genesis.Alloc)+6)
	}
	for _, a := range addrs {
		if b := g.Alloc[a].Balance; b.Uint64() != 1e15 {
			t.Fatalf("%s: balance %d", a, b.Uint64())
		}
	}
	for a, acc := range dev.Genesis.Alloc {
		if b := g.Alloc[a].Balance; b.Cmp(&acc.Balance.Int) != 0 {
			t.Fatalf("dev account %s lost its balance", a)
		}
	}
	if tok := g.Alloc[devload.TokenAddress]; len(tok.Storage) != 3 || len(tok.Code) == 0 {
		t.Fatalf("token: %d slots, %d bytes of code", len(tok.Storage), len(tok.Code))
	}
}
