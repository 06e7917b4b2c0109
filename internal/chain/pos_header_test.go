package chain

import (
	"math/big"
	"testing"

	"github.com/chaind/chaind/internal/types"
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
