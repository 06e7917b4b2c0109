package blocktests

import (
	"math/big"
	"testing"

	"github.com/chaind/chaind/internal/forks"
)

// Every network name is read by one rule: a fork has all forks before it
// from genesis; "AToBAt…" has A's forks from genesis and the rest up to B
// from a block, a time or a total difficulty.
func TestNetworkNames(t *testing.T) {
	type probe struct {
		number, time uint64
		want         forks.Fork
	}
	for _, tc := range []struct {
		name   string
		probes []probe
	}{
		{"Frontier", []probe{{0, 0, forks.Frontier}, {1000, 1000, forks.Frontier}}},
		{"EIP150", []probe{{0, 0, forks.TangerineWhistle}}},
		{"TangerineWhistle", []probe{{0, 0, forks.TangerineWhistle}}},
		{"ConstantinopleFix", []probe{{0, 0, forks.Petersburg}}},
		{"Merge", []probe{{0, 0, forks.Paris}}},
		{"Cancun", []probe{{0, 0, forks.Cancun}}},
		{"Prague", []probe{{0, 0, forks.Prague}}},
		{"HomesteadToEIP150At5", []probe{{4, 0, forks.Homestead}, {5, 0, forks.TangerineWhistle}}},
		{"EIP158ToByzantiumAt5", []probe{{4, 0, forks.SpuriousDragon}, {5, 0, forks.Byzantium}}},
		{"ByzantiumToConstantinopleFixAt5", []probe{{4, 0, forks.Byzantium}, {5, 0, forks.Petersburg}}},
		{"BerlinToLondonAt5", []probe{{4, 0, forks.Berlin}, {5, 0, forks.London}}},
		{"ParisToShanghaiAtTime15k", []probe{{9, 14_999, forks.Paris}, {9, 15_000, forks.Shanghai}}},
		{"ShanghaiToCancunAtTime15k", []probe{{9, 14_999, forks.Shanghai}, {9, 15_000, forks.Cancun}}},
	} {
		cfg, ok := Network(tc.name)
		if !ok {
			t.Errorf("%s: not known", tc.name)
			continue
		}
		if cfg.ChainID != chainID {
			t.Errorf("%s: chain ID %d", tc.name, cfg.ChainID)
		}
		for _, p := range tc.probes {
			if got := cfg.Fork(p.number, p.time); got != p.want {
				t.Errorf("%s: block %d time %d runs %v, want %v", tc.name, p.number, p.time, got, p.want)
			}
		}
	}
}

func TestNetworkSpecialForks(t *testing.T) {
	dao, ok := Network("HomesteadToDaoAt5")
	if !ok || dao.DAOForkBlock == nil || *dao.DAOForkBlock != 5 || !dao.DAOForkSupport || dao.EIP150Block != nil {
		t.Errorf("HomesteadToDaoAt5: %+v", dao)
	}
	// The DAO fork belongs only to networks that name it.
	if c, _ := Network("Byzantium"); c.DAOForkBlock != nil {
		t.Errorf("Byzantium has the DAO fork at %d", *c.DAOForkBlock)
	}
	ttd, ok := Network("ArrowGlacierToParisAtDiffC0000")
	if !ok || ttd.MergeNetsplitBlock != nil || ttd.TerminalTotalDifficulty == nil ||
		(*big.Int)(ttd.TerminalTotalDifficulty).Cmp(big.NewInt(0xC0000)) != 0 || ttd.ArrowGlacierBlock == nil || ttd.GrayGlacierBlock != nil {
		t.Errorf("ArrowGlacierToParisAtDiffC0000: %+v", ttd)
	}
}

func TestNetworkRejectsUnknownNames(t *testing.T) {
	for _, name := range []string{
		"", "Nowhere", "Dao", "CancunToShanghaiAt5", "BerlinToNowhereAt5",
		"LondonToParisAt5",         // the Merge has no block
		"BerlinToLondonAtTime15k",  // London is scheduled by block
		"ParisToShanghaiAt5",       // Shanghai is scheduled by time
		"LondonToShanghaiAtDiff10", // only the Merge follows difficulty
		"DaoToEIP150At5", "BerlinToLondonAtxyz",
	} {
		if cfg, ok := Network(name); ok {
			t.Errorf("%q accepted: %+v", name, cfg)
		}
	}
}
