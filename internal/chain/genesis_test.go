package chain

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/chaind/chaind/internal/conformance"
	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/trie"
)

// The vectors README lists the genesis hashes of both JSON-RPC test chains,
// computed independently.
func TestVectorGenesisHashes(t *testing.T) {
	vec := conformance.VectorsDir("../..")
	if vec == "" {
		t.Skip("../shared/vectors absent: genesis hash check skipped")
	}
	for _, tc := range []struct{ dir, hash string }{
		{"execution-apis/tests", "0x414c637788e37e9f65ed2c6ee962d32aeea39722ad50ee764e712fabebd69118"},
		{"execution-apis-latest/tests", "0x44fd89d504659cd58f48f4796b77a7e7012cf296a2409afa2f6c3cb99b5b3d99"},
	} {
		g, err := LoadGenesis(filepath.Join(vec, tc.dir, "genesis.json"))
		if err != nil {
			t.Fatal(err)
		}
		b, err := g.Commit(trie.NewMemoryDB())
		if err != nil {
			t.Fatal(err)
		}
		if got := b.Hash().Hex(); got != tc.hash {
			t.Errorf("%s: genesis hash %s, want %s", tc.dir, got, tc.hash)
		}
	}
}

func TestForkSchedule(t *testing.T) {
	g, err := ParseGenesis([]byte(`{"config":{"chainId":1,"homesteadBlock":0,"eip150Block":3,"eip155Block":6,"eip158Block":6,
		"byzantiumBlock":9,"constantinopleBlock":12,"petersburgBlock":15,"istanbulBlock":18,"berlinBlock":24,"londonBlock":27,
		"mergeNetsplitBlock":36,"shanghaiTime":390,"cancunTime":420,"pragueTime":450,"osakaTime":480,"terminalTotalDifficulty":"0x10"},
		"alloc":{"0x0000000000000000000000000000000000000001":{"balance":"1000","storage":{"0x01":"0x02"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	c := g.Config
	for _, tc := range []struct {
		num, time uint64
		want      forks.Fork
	}{
		{0, 0, forks.Homestead}, {3, 30, forks.TangerineWhistle}, {6, 60, forks.SpuriousDragon}, {9, 90, forks.Byzantium},
		{12, 120, forks.Constantinople}, {15, 150, forks.Petersburg}, {18, 180, forks.Istanbul}, {24, 240, forks.Berlin},
		{27, 270, forks.London}, {36, 360, forks.Paris}, {39, 390, forks.Shanghai}, {42, 420, forks.Cancun},
		{45, 450, forks.Prague}, {48, 480, forks.Osaka},
		// Forks scheduled by time build on London: a block below London's
		// number (a simulated one given any number and time) stays below.
		{12, 480, forks.Constantinople}, {26, 450, forks.Berlin}, {27, 480, forks.Osaka},
	} {
		if got := c.Fork(tc.num, tc.time); got != tc.want {
			t.Errorf("block %d time %d: %v, want %v", tc.num, tc.time, got, tc.want)
		}
	}
	acc := g.Alloc[[20]byte{19: 1}]
	if acc.Balance.Uint64() != 1000 || len(acc.Storage) != 1 {
		t.Fatalf("alloc parsed as %+v", acc)
	}
}

func TestGenesisErrors(t *testing.T) {
	for _, in := range []string{
		`{}`,
		`{"config":{"chainId":0}}`,
		`{"config":{"chainId":1,"byzantiumBlock":5,"homesteadBlock":9}}`,
		`{"config":{"chainId":1},"alloc":{"0x12":{"balance":"1"}}}`,
		`{"config":{"chainId":1},"gasLimit":"0xzz"}`,
	} {
		if _, err := ParseGenesis([]byte(in)); err == nil {
			t.Errorf("accepted %s", in)
		}
	}
	if _, err := LoadGenesis(filepath.Join(os.TempDir(), "no-such-genesis.json")); err == nil {
		t.Error("missing file accepted")
	}
}
