package chain

import (
	"errors"
	"math/big"
	"testing"

	"github.com/chaind/chaind/internal/store"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// On a chain that merges at a terminal total difficulty, the first
// proof-of-stake block must follow a parent whose total difficulty reached
// it, and no proof-of-work block may follow such a parent.
func TestTerminalTotalDifficulty(t *testing.T) {
	zero := uint64(0)
	for _, tc := range []struct {
		name      string
		genesisTD uint64 // the genesis block's difficulty, its total
		pos       bool   // the child is a proof-of-stake block
		refused   bool
	}{
		{"proof of stake before the terminal difficulty", 500, true, true},
		{"proof of stake at the terminal difficulty", 1000, true, false},
		{"proof of stake past the terminal difficulty", 1500, true, false},
		{"proof of work past the terminal block", 1000, false, true},
		{"proof of work before the terminal difficulty", 500, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := &Config{ChainID: 1, HomesteadBlock: &zero, EIP150Block: &zero, EIP155Block: &zero, EIP158Block: &zero,
				ByzantiumBlock: &zero, ConstantinopleBlock: &zero, PetersburgBlock: &zero, IstanbulBlock: &zero,
				BerlinBlock: &zero, LondonBlock: &zero,
				TerminalTotalDifficulty: (*BigInt)(big.NewInt(1000)), TerminalTotalDifficultyPassed: true}
			g := &Genesis{Config: cfg, GasLimit: 30_000_000, Difficulty: U256{*uint256.NewInt(tc.genesisTD)}, Timestamp: 1000}
			c, err := Open(g, store.NewMem(), nil)
			if err != nil {
				t.Fatal(err)
			}
			parent := c.Head().HeaderRef()
			h, err := cfg.NextHeader(parent, Attributes{Time: parent.Time + 12})
			if err != nil {
				t.Fatal(err)
			}
			h.Root = parent.Root
			if !tc.pos {
				h.Difficulty = *cfg.CalcDifficulty(h.Time, parent)
				h.MixDigest = types.Hash{}
			}
			_, err = c.InsertBlock(types.NewBlock(h, &types.Body{}))
			if got := errors.Is(err, ErrBadPoSHeader); got != tc.refused {
				t.Fatalf("refused for the terminal difficulty: %v (err %v), want %v", got, err, tc.refused)
			}
			// A proof-of-stake child that passes is a whole valid block (no
			// reward changes its state); a proof-of-work one pays a reward
			// this test does not compute, so only the rule is checked.
			if tc.pos && !tc.refused && err != nil {
				t.Fatalf("valid proof-of-stake block refused: %v", err)
			}
		})
	}
}
