package staking

import (
	"testing"

	"github.com/chaind/chaind/internal/types"
	"github.com/chaind/chaind/state"
	"github.com/chaind/chaind/trie"
	"github.com/holiman/uint256"
)

// BenchmarkCycleBoundary runs the selection block and the last block of a
// cycle (rewards for every active validator, the set handover) with 1,000
// validators and 100,000 delegations, on the real state database. The
// lazy reward accounting keeps the delegations out of the cost.
func BenchmarkCycleBoundary(b *testing.B) {
	st, err := state.New(types.Hash(trie.EmptyRoot), trie.NewMemoryDB())
	if err != nil {
		b.Fatal(err)
	}
	p := DefaultParams()
	p.Desired = 1000
	g := &Genesis{Params: &p}
	for i := range 1000 {
		v := genesisValidator(b, 0, 10+uint64(i))
		v.Operator = types.Address{18: byte(i >> 8), 19: byte(i)}
		v.Pubkey = consKey(b, byte(i), byte(i>>8))
		g.Validators = append(g.Validators, v)
	}
	if err := InitGenesis(st, g, 1000, new(uint256.Int)); err != nil {
		b.Fatal(err)
	}
	l := &ledger{s: store{st}, now: 1000}
	amt := uint256.NewInt(1e18)
	for i := range 100_000 {
		d := types.Address{0: 1, 16: byte(i >> 24), 17: byte(i >> 16), 18: byte(i >> 8), 19: byte(i)}
		st.AddBalance(StakingAddress, amt)
		if _, err := l.bond(d, g.Validators[i%1000].Operator, amt); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := st.Commit(true); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := range b.N {
		cy := uint64(i + 1)
		base := types.DefaultCycles.First(cy)
		if err := EndBlock(st, Block{Number: types.DefaultCycles.SelectionBlock(cy), Time: 1000 + base*2}); err != nil {
			b.Fatal(err)
		}
		if err := EndBlock(st, Block{Number: types.DefaultCycles.Last(cy), Time: 1000 + base*2 + 8}); err != nil {
			b.Fatal(err)
		}
		st.IntermediateRoot(true)
	}
}
