package chain

import (
	"math/big"
	"testing"

	"github.com/chaind/chaind/internal/forks"
	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
	"github.com/chaind/chaind/trie"
	"github.com/holiman/uint256"
)

func TestIsPoSHeader(t *testing.T) {
	u := func(n uint64) *uint64 { return &n }
	ttd := func(n int64) *BigInt { return (*BigInt)(big.NewInt(n)) }
	hdr := func(number, difficulty uint64) *types.Header {
		return &types.Header{Number: number, Difficulty: *uint256.NewInt(difficulty)}
	}
	for _, tc := range []struct {
		name string
		cfg  Config
		h    *types.Header
		want bool
	}{
		{"crossed by difficulty: a proof-of-work block", Config{TerminalTotalDifficulty: ttd(4357120), TerminalTotalDifficultyPassed: true}, hdr(32, 131072), false},
		{"crossed by difficulty: difficulty 0 is proof of stake", Config{TerminalTotalDifficulty: ttd(4357120), TerminalTotalDifficultyPassed: true}, hdr(33, 0), true},
		{"merged at genesis (TTD 0)", Config{TerminalTotalDifficulty: ttd(0), TerminalTotalDifficultyPassed: true}, hdr(5, 131072), true},
		{"no merge configured", Config{}, hdr(5, 0), false},
		{"TTD not passed", Config{TerminalTotalDifficulty: ttd(100)}, hdr(5, 0), false},
		{"netsplit block decides", Config{MergeNetsplitBlock: u(10), TerminalTotalDifficulty: ttd(100), TerminalTotalDifficultyPassed: true}, hdr(9, 0), false},
		{"netsplit block reached", Config{MergeNetsplitBlock: u(10)}, hdr(10, 0), true},
	} {
		if got := tc.cfg.IsPoSHeader(tc.h); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A proof-of-work block runs the rules before the Merge even where the
// height alone would say Paris; every later rule and every other chain
// is left as Fork says.
func TestHeaderForkBeforeTheMerge(t *testing.T) {
	u := func(n uint64) *uint64 { return &n }
	ttd := func(n int64) *BigInt { return (*BigInt)(big.NewInt(n)) }
	london := Config{HomesteadBlock: u(0), EIP150Block: u(0), EIP155Block: u(0), EIP158Block: u(0),
		ByzantiumBlock: u(0), ConstantinopleBlock: u(0), PetersburgBlock: u(0), IstanbulBlock: u(0),
		BerlinBlock: u(0), LondonBlock: u(0)}
	byDifficulty := london
	byDifficulty.TerminalTotalDifficulty, byDifficulty.TerminalTotalDifficultyPassed = ttd(0xC0000), true
	byDifficultyShanghai := byDifficulty
	byDifficultyShanghai.ShanghaiTime = u(100)
	atHeight := london
	atHeight.MergeNetsplitBlock, atHeight.TerminalTotalDifficulty, atHeight.TerminalTotalDifficultyPassed = u(10), ttd(0xC0000), true
	hdr := func(number, time, difficulty uint64) *types.Header {
		return &types.Header{Number: number, Time: time, Difficulty: *uint256.NewInt(difficulty)}
	}
	for _, tc := range []struct {
		name string
		cfg  Config
		h    *types.Header
		want forks.Fork
	}{
		{"merge by difficulty: proof-of-work block", byDifficulty, hdr(3, 30, 0x20000), forks.London},
		{"merge by difficulty: proof-of-stake block", byDifficulty, hdr(7, 70, 0), forks.Paris},
		{"merge by difficulty: Shanghai by time", byDifficultyShanghai, hdr(12, 120, 0), forks.Shanghai},
		{"merge at a height: before it", atHeight, hdr(9, 90, 0x20000), forks.London},
		{"merge at a height: after it", atHeight, hdr(10, 100, 0), forks.Paris},
		{"no merge", london, hdr(3, 30, 0x20000), forks.London},
	} {
		if got := tc.cfg.HeaderFork(tc.h); got != tc.want {
			t.Errorf("%s: HeaderFork %v, want %v", tc.name, got, tc.want)
		}
		ctx := tc.cfg.BlockContext(tc.h, nil)
		if got := tc.cfg.ContextFork(&ctx); got != tc.want {
			t.Errorf("%s: ContextFork %v, want %v", tc.name, got, tc.want)
		}
		// The block executor runs the block under the same rules.
		st, err := state.New(types.Hash(trie.EmptyRoot), trie.NewMemoryDB())
		if err != nil {
			t.Fatal(err)
		}
		h := *tc.h
		h.GasLimit = 30_000_000
		if tc.want >= forks.London {
			h.BaseFee = uint256.NewInt(1)
		}
		if x, err := EthereumRules(&tc.cfg).Open(&h, st, func(uint64) types.Hash { return types.Hash{} }, nil); err != nil {
			t.Errorf("%s: Open: %v", tc.name, err)
		} else if x.Fork != tc.want {
			t.Errorf("%s: the executor runs %v, want %v", tc.name, x.Fork, tc.want)
		}
	}
}
