package staking

import (
	"math/rand/v2"
	"testing"

	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Random sequences of staking operations, checked after every block:
//   - the supply is exactly the sum of all balances (nothing is created or
//     lost outside minting and burning);
//   - the staking contract holds exactly the bonded tokens plus the
//     pending unbonding entries;
//   - the distribution contract holds at least every withdrawable reward,
//     unpaid commission and the community pool, so no delegator can
//     withdraw more than accrued;
//   - each validator's tokens are what was bonded to it, less what was
//     unbonded and slashed.
func TestStakingProperties(t *testing.T) {
	for seed := range uint64(8) {
		runProperty(t, seed)
	}
}

func runProperty(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	st := NewMemState()
	p := DefaultParams()
	p.Desired = 3
	p.RestakeCooldown = 20_000
	users := make([]types.Address, 6)
	initial := new(uint256.Int)
	for i := range users {
		users[i] = types.Address{0: 0xaa, 19: byte(i)}
		st.AddBalance(users[i], chain(1000))
		initial.Add(initial, chain(1000))
	}
	g := &Genesis{Params: &p, Validators: []GenesisValidator{genesisValidator(t, 1, 100), genesisValidator(t, 2, 50)}}
	if err := InitGenesis(st, g, 1000, initial); err != nil {
		t.Fatal(err)
	}
	expect := map[types.Address]*uint256.Int{addr(1): chain(100), addr(2): chain(50)}
	vals := []types.Address{addr(1), addr(2)}
	now, height := uint64(1000), uint64(0)
	next := byte(3)
	slashedEntries := 0
	for step := 0; step < 300; step++ {
		height++
		now += 2
		l := &ledger{s: store{st}, now: now, height: height}
		u := users[rng.IntN(len(users))]
		v := vals[rng.IntN(len(vals))]
		amt := chain(uint64(1 + rng.IntN(20)))
		var b Block
		switch rng.IntN(8) {
		case 0: // a new validator
			if st.GetBalance(u).Lt(chain(20)) || next > 40 {
				break
			}
			nv := newValidator(t, next, chain(20))
			nv.Operator = types.Address{0: 0xbb, 19: next}
			next++
			if l.createValidator(&p, nv) == nil {
				st.SubBalance(u, chain(20))
				st.AddBalance(StakingAddress, chain(20))
				vals = append(vals, nv.Operator)
				expect[nv.Operator] = chain(20)
			}
		case 1, 2: // delegate
			if st.GetBalance(u).Lt(amt) {
				break
			}
			if _, err := l.bond(u, v, amt); err == nil {
				st.SubBalance(u, amt)
				st.AddBalance(StakingAddress, amt)
				expect[v].Add(expect[v], amt)
			}
		case 3: // undelegate part or all
			value := l.tokensOf(v, l.delShares(u, v))
			if value.IsZero() {
				break
			}
			part := new(uint256.Int).Div(value, uint256.NewInt(uint64(1+rng.IntN(3))))
			if part.IsZero() {
				break
			}
			if _, _, _, err := l.undelegate(&p, u, v, part); err == nil {
				expect[v].Sub(expect[v], part)
			}
		case 4: // redelegate
			w := vals[rng.IntN(len(vals))]
			value := l.tokensOf(v, l.delShares(u, v))
			if value.IsZero() || w == v {
				break
			}
			if err := l.redelegate(&p, u, v, w, value); err == nil {
				expect[v].Sub(expect[v], value)
				expect[w].Add(expect[w], value)
			}
		case 5: // withdraw rewards, checked against what was withdrawable
			want := l.pendingRewards(u, v)
			before := st.GetBalance(u).Clone()
			if got, err := l.withdrawRewards(u, v); err == nil {
				if !got.Eq(want) || !st.GetBalance(u).Eq(new(uint256.Int).Add(before, want)) {
					t.Fatalf("seed %d: withdrew %v, accrued %v", seed, got, want)
				}
			}
		case 6: // withdraw commission
			_, _ = l.withdrawCommission(v)
		case 7: // a double sign at a recent height: it reaches the stake
			// that left the validator since (unbonding and redelegations)
			if rng.IntN(4) != 0 {
				break
			}
			info, _ := ReadValidator(st, v)
			at := height - uint64(rng.IntN(int(min(height, 30))))
			b.DoubleSigns = []DoubleSign{{info.ConsensusAddress, at}}
			if info.Jailed || EvidenceHandled(st, info.ConsensusAddress, at) {
				break
			}
			cut := func(x *uint256.Int) *uint256.Int {
				c, _ := new(uint256.Int).MulDivOverflow(x, uint256.NewInt(p.NodeRefutedPenalty), uint256.NewInt(PPM))
				return c
			}
			expect[v].Sub(expect[v], cut(info.Tokens))
			left := map[[2]types.Address]*uint256.Int{}
			for _, r := range ReadRedelegations(st, nil) {
				if r.Src != v || r.Height < at {
					continue
				}
				k := [2]types.Address{r.Delegator, r.Dst}
				if left[k] == nil {
					d, _ := ReadDelegation(st, r.Delegator, r.Dst)
					left[k] = new(uint256.Int)
					if d.Amount != nil {
						left[k].Set(d.Amount)
					}
				}
				c := cut(r.Amount)
				if left[k].Lt(c) {
					c.Set(left[k])
				}
				left[k].Sub(left[k], c)
				expect[r.Dst].Sub(expect[r.Dst], c)
				slashedEntries++
			}
		}
		b.Number, b.Time = height, now
		if err := EndBlock(st, b); err != nil {
			t.Fatal(err)
		}
		checkProperties(t, seed, st, vals, expect)
	}
	t.Logf("seed %d: %d redelegations slashed", seed, slashedEntries)
	if ReadSupply(st).Minted.IsZero() {
		t.Fatalf("seed %d: no rewards in 300 blocks", seed)
	}
}

func checkProperties(t *testing.T, seed uint64, st *MemState, vals []types.Address, expect map[types.Address]*uint256.Int) {
	t.Helper()
	sum := new(uint256.Int)
	for _, b := range st.Balances {
		sum.Add(sum, b)
	}
	if s := ReadSupply(st); !s.Total.Eq(sum) {
		t.Fatalf("seed %d: supply %v, balances %v", seed, s.Total, sum)
	}
	bonded, owed := new(uint256.Int), new(uint256.Int).Set(ReadSupply(st).CommunityPool)
	for _, v := range vals {
		info, _ := ReadValidator(st, v)
		if !info.Tokens.Eq(expect[v]) {
			t.Fatalf("seed %d: validator %s has %v tokens, want %v", seed, v, info.Tokens, expect[v])
		}
		bonded.Add(bonded, info.Tokens)
		owed.Add(owed, info.Commission)
		for _, d := range ReadValidatorDelegations(st, v) {
			owed.Add(owed, d.Rewards)
		}
	}
	for _, e := range ReadUnbonding(st, nil) {
		bonded.Add(bonded, e.Amount)
	}
	if got := st.GetBalance(StakingAddress); !got.Eq(bonded) {
		t.Fatalf("seed %d: staking contract holds %v, bonded+unbonding %v", seed, got, bonded)
	}
	if got := st.GetBalance(DistributionAddress); got.Lt(owed) {
		t.Fatalf("seed %d: distribution holds %v, owes %v", seed, got, owed)
	}
}
