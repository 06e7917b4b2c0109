package staking

import (
	"errors"
	"strings"
	"testing"

	"github.com/chaind/chaind/internal/crypto"
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

func addr(b byte) types.Address { return types.Address{19: b} }

// consKey returns the compressed public key of a fixed test key.
func consKey(t testing.TB, i byte, more ...byte) []byte {
	t.Helper()
	seed := crypto.Keccak256([]byte("test consensus key"), append([]byte{i}, more...))
	k, err := crypto.ToPrivateKey(seed[:])
	if err != nil {
		t.Fatal(err)
	}
	return k.PubKey().SerializeCompressed()
}

func pct(n uint64) *uint256.Int { return new(uint256.Int).Mul(uint256.NewInt(n), uint256.NewInt(1e16)) }

// testLedger is a state with one genesis validator, addr(1), staked 100
// CHAIN at time 1000.
func testLedger(t testing.TB) (*MemState, *ledger, Params) {
	t.Helper()
	st := NewMemState()
	p := DefaultParams()
	g := &Genesis{Params: &p, Validators: []GenesisValidator{genesisValidator(t, 1, 100)}}
	if err := InitGenesis(st, g, 1000, new(uint256.Int)); err != nil {
		t.Fatal(err)
	}
	return st, &ledger{s: store{st}, now: 1000, height: 1}, ReadParams(st)
}

func genesisValidator(t testing.TB, i byte, stake uint64) GenesisValidator {
	return GenesisValidator{Operator: addr(i), Pubkey: consKey(t, i), NetAddress: "127.0.0.1:26656", Moniker: "v",
		CommissionRate: pct(10), MaxRate: pct(20), MaxChangeRate: pct(1), MinSelfDelegation: chain(1), Stake: chain(stake)}
}

func newValidator(t testing.TB, i byte, stake *uint256.Int) *NewValidator {
	return &NewValidator{Operator: addr(i), Description: Description{Moniker: "m"}, Rate: pct(5), MaxRate: pct(10),
		MaxChangeRate: pct(1), MinSelfDelegation: chain(1), Pubkey: consKey(t, i), NetAddress: "10.0.0.1:26656", Stake: stake}
}

func wantRevert(t *testing.T, err error, reason string) {
	t.Helper()
	var re *RevertError
	if reason == "" {
		if err != nil {
			t.Fatalf("unexpected error %v", err)
		}
		return
	}
	if !errors.As(err, &re) || !strings.Contains(re.Reason, reason) {
		t.Fatalf("error %v, want revert containing %q", err, reason)
	}
}

func TestCreateValidatorRules(t *testing.T) {
	for _, tc := range []struct {
		name   string
		edit   func(*NewValidator)
		reason string
	}{
		{"ok", func(*NewValidator) {}, ""},
		{"exists", func(nv *NewValidator) { nv.Operator = addr(1) }, "already exists"},
		{"insufficient stake", func(nv *NewValidator) { nv.Stake = chain(9) }, "insufficient stake"},
		{"below min self", func(nv *NewValidator) { nv.MinSelfDelegation = chain(50) }, "below min self delegation"},
		{"zero min self", func(nv *NewValidator) { nv.MinSelfDelegation = new(uint256.Int) }, "must be positive"},
		{"rate above max", func(nv *NewValidator) { nv.Rate = pct(11) }, "above max rate"},
		{"max above 100%", func(nv *NewValidator) { nv.MaxRate = pct(101) }, "above 100%"},
		{"change above max", func(nv *NewValidator) { nv.MaxChangeRate = pct(11) }, "max change rate above"},
		{"bad key", func(nv *NewValidator) { nv.Pubkey = make([]byte, 33) }, "not a secp256k1 point"},
		{"short key", func(nv *NewValidator) { nv.Pubkey = nv.Pubkey[:20] }, "33 bytes"},
		{"key in use", func(nv *NewValidator) { nv.Pubkey = consKey(t, 1) }, "already in use"},
		{"bad address", func(nv *NewValidator) { nv.NetAddress = "nowhere" }, "host:port"},
		{"bad port", func(nv *NewValidator) { nv.NetAddress = "1.2.3.4:0" }, "port"},
		{"no moniker", func(nv *NewValidator) { nv.Description.Moniker = "" }, "moniker"},
		{"long details", func(nv *NewValidator) { nv.Description.Details = strings.Repeat("x", 281) }, "details"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, l, p := testLedger(t)
			nv := newValidator(t, 2, chain(20))
			tc.edit(nv)
			wantRevert(t, l.createValidator(&p, nv), tc.reason)
		})
	}
}

func TestEditValidatorRules(t *testing.T) {
	keep := Description{doNotModify, doNotModify, doNotModify, doNotModify, doNotModify}
	for _, tc := range []struct {
		name   string
		after  uint64 // seconds after genesis
		edit   Edit
		reason string
	}{
		{"nothing", 0, Edit{Description: keep, NetAddress: doNotModify}, ""},
		{"moniker", 0, Edit{Description: Description{"new", doNotModify, doNotModify, doNotModify, doNotModify}, NetAddress: doNotModify}, ""},
		{"rate too soon", 10, Edit{Description: keep, NetAddress: doNotModify, Rate: pct(11)}, "once per 24 hours"},
		{"rate ok", 86_400, Edit{Description: keep, NetAddress: doNotModify, Rate: pct(11)}, ""},
		{"rate beyond change", 86_400, Edit{Description: keep, NetAddress: doNotModify, Rate: pct(12)}, "max change rate"},
		{"rate beyond max", 86_400, Edit{Description: keep, NetAddress: doNotModify, Rate: pct(21)}, "above max rate"},
		{"min self down", 0, Edit{Description: keep, NetAddress: doNotModify, MinSelfDelegation: new(uint256.Int)}, "only increase"},
		{"min self above self", 0, Edit{Description: keep, NetAddress: doNotModify, MinSelfDelegation: chain(101)}, "above the self delegation"},
		{"min self up", 0, Edit{Description: keep, NetAddress: doNotModify, MinSelfDelegation: chain(50)}, ""},
		{"bad address", 0, Edit{Description: keep, NetAddress: "x"}, "host:port"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, l, _ := testLedger(t)
			l.now += tc.after
			wantRevert(t, l.editValidator(addr(1), &tc.edit), tc.reason)
			if tc.reason == "" && tc.edit.Rate != nil {
				if v, _ := ReadValidator(st, addr(1)); !v.Rate.Eq(tc.edit.Rate) {
					t.Fatalf("rate %v, want %v", v.Rate, tc.edit.Rate)
				}
			}
		})
	}
}

func TestDelegateUndelegateCooldown(t *testing.T) {
	st, l, p := testLedger(t)
	d := addr(9)
	st.AddBalance(StakingAddress, chain(50))
	if _, err := l.bond(d, addr(1), chain(50)); err != nil {
		t.Fatal(err)
	}
	_, _, _, err := l.undelegate(&p, d, addr(1), chain(51))
	wantRevert(t, err, "insufficient delegation")
	_, _, _, err = l.undelegate(&p, addr(8), addr(1), chain(1))
	wantRevert(t, err, "no delegation")
	out, penalty, done, err := l.undelegate(&p, d, addr(1), chain(20))
	if err != nil || !out.Eq(chain(20)) || !penalty.IsZero() {
		t.Fatalf("undelegate: %v %v %v", out, penalty, err)
	}
	if done != 1000+p.RestakeCooldown/1000 {
		t.Fatalf("completion %d", done)
	}
	if err := EndBlock(st, Block{Number: 2, Time: done - 1}); err != nil {
		t.Fatal(err)
	}
	if !st.GetBalance(d).IsZero() {
		t.Fatal("paid before the cooldown")
	}
	if len(ReadUnbonding(st, &d)) != 1 {
		t.Fatal("entry missing")
	}
	if err := EndBlock(st, Block{Number: 3, Time: done}); err != nil {
		t.Fatal(err)
	}
	if !st.GetBalance(d).Eq(chain(20)) || len(ReadUnbonding(st, &d)) != 0 {
		t.Fatalf("after the cooldown: balance %v", st.GetBalance(d))
	}
	if del, _ := ReadDelegation(st, d, addr(1)); !del.Amount.Eq(chain(30)) {
		t.Fatalf("left %v", del.Amount)
	}
}

func TestLeftEarlyPenaltyAndJail(t *testing.T) {
	st, l, p := testLedger(t)
	// Taking the self stake below requiredStake within the cooldown costs
	// the penalty on what is taken out, and below the minimum self
	// delegation jails.
	out, penalty, _, err := l.undelegate(&p, addr(1), addr(1), chain(100))
	if err != nil {
		t.Fatal(err)
	}
	want, _ := new(uint256.Int).MulDivOverflow(chain(100), uint256.NewInt(p.LeftNetworkEarlyPenalty), uint256.NewInt(PPM))
	if !penalty.Eq(want) || !new(uint256.Int).Add(out, penalty).Eq(chain(100)) {
		t.Fatalf("penalty %v out %v", penalty, out)
	}
	if v, _ := ReadValidator(st, addr(1)); !v.Jailed {
		t.Fatal("not jailed")
	}
	if s := ReadSupply(st); !s.Burned.Eq(penalty) {
		t.Fatalf("burned %v", s.Burned)
	}
	checkSlashLog(t, st, addr(1), SlashEvent{Height: l.height, Infraction: l.height, Reason: SlashLeftEarly, PPM: p.LeftNetworkEarlyPenalty, Amount: penalty, Time: l.now})
}

// checkSlashLog checks v's slash log is exactly want.
func checkSlashLog(t *testing.T, st State, v types.Address, want ...SlashEvent) {
	t.Helper()
	got := ReadSlashEvents(st, v)
	if len(got) != len(want) {
		t.Fatalf("slash log %+v, want %+v", got, want)
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Height != w.Height || g.Infraction != w.Infraction || g.Reason != w.Reason || g.PPM != w.PPM || !g.Amount.Eq(w.Amount) || g.Time != w.Time {
			t.Fatalf("slash log entry %d: %+v, want %+v", i, g, w)
		}
	}
}

func TestRedelegateAndUnjail(t *testing.T) {
	st, l, p := testLedger(t)
	st.AddBalance(StakingAddress, chain(20))
	if err := l.createValidator(&p, newValidator(t, 2, chain(20))); err != nil {
		t.Fatal(err)
	}
	d := addr(9)
	st.AddBalance(StakingAddress, chain(5))
	if _, err := l.bond(d, addr(1), chain(5)); err != nil {
		t.Fatal(err)
	}
	wantRevert(t, l.redelegate(&p, d, addr(1), addr(1), chain(1)), "same validator")
	wantRevert(t, l.redelegate(&p, d, addr(1), addr(3), chain(1)), "no such validator")
	wantRevert(t, l.redelegate(&p, d, addr(1), addr(2), chain(6)), "insufficient delegation")
	wantRevert(t, l.redelegate(&p, addr(1), addr(1), addr(2), chain(1)), "self delegation")
	if err := l.redelegate(&p, d, addr(1), addr(2), chain(5)); err != nil {
		t.Fatal(err)
	}
	if ds := ReadDelegations(st, d); len(ds) != 1 || ds[0].Validator != addr(2) || !ds[0].Amount.Eq(chain(5)) {
		t.Fatalf("delegations %+v", ds)
	}
	// Hopping on at once would carry the stake beyond a slash of
	// validator 1; after the cooldown it may move again.
	st.AddBalance(StakingAddress, chain(20))
	if err := l.createValidator(&p, newValidator(t, 4, chain(20))); err != nil {
		t.Fatal(err)
	}
	wantRevert(t, l.redelegate(&p, d, addr(2), addr(4), chain(1)), "cannot move on until")
	l.now += secondsOf(p.RestakeCooldown)
	wantRevert(t, l.redelegate(&p, d, addr(2), addr(4), chain(1)), "")
	l.now -= secondsOf(p.RestakeCooldown)
	wantRevert(t, l.unjail(addr(2)), "not jailed")
	wantRevert(t, l.unjail(addr(3)), "not a validator")
	l.jail(addr(2), l.now+100)
	wantRevert(t, l.unjail(addr(2)), "jailed until")
	l.now += 100
	wantRevert(t, l.unjail(addr(2)), "")
}

func TestCycleSelectsAndRewards(t *testing.T) {
	st := NewMemState()
	p := DefaultParams()
	p.Desired = 2
	g := &Genesis{Params: &p, Validators: []GenesisValidator{genesisValidator(t, 1, 100), genesisValidator(t, 2, 50), genesisValidator(t, 3, 10)}}
	if err := InitGenesis(st, g, 1000, new(uint256.Int)); err != nil {
		t.Fatal(err)
	}
	set := ReadActiveSet(st)
	if len(set) != 2 || set[0].Operator != addr(1) || set[1].Operator != addr(2) || set[0].Power != 100 {
		t.Fatalf("active set %+v", set)
	}
	if v, _ := ReadValidator(st, addr(3)); v.Status != Standby {
		t.Fatalf("status %v", v.Status)
	}
	// An hour passes over cycle 0: each active validator earns one reward.
	if err := EndBlock(st, Block{Number: 9, Time: 1000 + 3600}); err != nil {
		t.Fatal(err)
	}
	s := ReadSupply(st)
	if !s.Minted.Eq(chain(2)) {
		t.Fatalf("minted %v", s.Minted)
	}
	// Validator 1 keeps 10% commission and its sole delegator (itself)
	// the rest.
	v1, _ := ReadValidator(st, addr(1))
	if !v1.Commission.Eq(new(uint256.Int).Div(chain(1), uint256.NewInt(10))) {
		t.Fatalf("commission %v", v1.Commission)
	}
	l := &ledger{s: store{st}, now: 5000}
	got, err := l.withdrawRewards(addr(1), addr(1))
	if err != nil {
		t.Fatal(err)
	}
	if want := new(uint256.Int).Sub(chain(1), v1.Commission); new(uint256.Int).Sub(want, got).Uint64() > 1 || got.Gt(want) {
		t.Fatalf("withdrew %v, want %v", got, want)
	}
	if r, ok := ReadCycle(st, 0); !ok || r.End != (1000+3600)*1000 || r.Active != 2 || r.Standby != 1 {
		t.Fatalf("cycle 0 %+v", r)
	}
}

func TestDoubleSignSlashesAndJails(t *testing.T) {
	st, _, p := testLedger(t)
	v, _ := ReadValidator(st, addr(1))
	if err := EndBlock(st, Block{Number: 5, Time: 1005, DoubleSigns: []DoubleSign{{v.ConsensusAddress, 4}}}); err != nil {
		t.Fatal(err)
	}
	after, _ := ReadValidator(st, addr(1))
	want, _ := new(uint256.Int).MulDivOverflow(chain(100), uint256.NewInt(p.NodeRefutedPenalty), uint256.NewInt(PPM))
	if !after.Jailed || !after.Slashed.Eq(want) || !new(uint256.Int).Add(after.Tokens, want).Eq(chain(100)) {
		t.Fatalf("after %+v", after)
	}
	if err := EndBlock(st, Block{Number: 9, Time: 1009}); err != nil {
		t.Fatal(err)
	}
	// The sole validator is jailed; the set keeps it rather than halt.
	if after, _ := ReadValidator(st, addr(1)); after.Status != Jailed || len(ReadActiveSet(st)) != 1 {
		t.Fatalf("status %v set %v", after.Status, ReadActiveSet(st))
	}
}

// A double sign reaches the stake that left the validator after the
// infraction, as in the Cosmos SDK: unbonding entries and redelegations
// started at or after its height lose the same fraction; those started
// before keep everything.
func TestSlashReachesLaterEntries(t *testing.T) {
	st, l, p := testLedger(t)
	st.AddBalance(StakingAddress, chain(20))
	if err := l.createValidator(&p, newValidator(t, 2, chain(20))); err != nil {
		t.Fatal(err)
	}
	d := addr(9)
	st.AddBalance(StakingAddress, chain(10))
	if _, err := l.bond(d, addr(1), chain(10)); err != nil {
		t.Fatal(err)
	}
	l.height = 2
	if _, _, _, err := l.undelegate(&p, d, addr(1), chain(1)); err != nil { // before the infraction
		t.Fatal(err)
	}
	l.height = 5
	if _, _, _, err := l.undelegate(&p, d, addr(1), chain(4)); err != nil {
		t.Fatal(err)
	}
	if err := l.redelegate(&p, d, addr(1), addr(2), chain(3)); err != nil {
		t.Fatal(err)
	}
	// Validator 2 has never been slashed, so the 3 moved bought 3 shares;
	// the entry is third in the queue, after the two unbondings.
	if rs := ReadRedelegations(st, &d); len(rs) != 1 || rs[0].Src != addr(1) || rs[0].Dst != addr(2) || !rs[0].Amount.Eq(chain(3)) ||
		rs[0].ID != 3 || !rs[0].SharesDst.Eq(chain(3)) || !rs[0].Balance.Eq(chain(3)) || rs[0].Height != 5 {
		t.Fatalf("redelegations %+v", rs)
	}
	v, _ := ReadValidator(st, addr(1))
	before := ReadSupply(st).Total
	if err := EndBlock(st, Block{Number: 6, Time: 1006, DoubleSigns: []DoubleSign{{v.ConsensusAddress, 3}}}); err != nil {
		t.Fatal(err)
	}
	fifth := func(x uint64) *uint256.Int { return new(uint256.Int).Div(chain(x), uint256.NewInt(5)) } // 20%
	es := ReadUnbonding(st, &d)
	if len(es) != 2 || !es[0].Amount.Eq(chain(1)) || !es[1].Amount.Eq(new(uint256.Int).Sub(chain(4), fifth(4))) {
		t.Fatalf("unbonding %+v", es)
	}
	if dl, _ := ReadDelegation(st, d, addr(2)); !dl.Amount.Eq(new(uint256.Int).Sub(chain(3), fifth(3))) {
		t.Fatalf("redelegated stake %v", dl.Amount)
	}
	// Validator 1 had 100 + 2 left = 102 bonded at the slash.
	burned := new(uint256.Int).Add(fifth(102), fifth(4))
	burned.Add(burned, fifth(3))
	if after, _ := ReadValidator(st, addr(1)); !after.Slashed.Eq(burned) || !after.Jailed {
		t.Fatalf("slashed %v, want %v", after.Slashed, burned)
	}
	if got := new(uint256.Int).Sub(before, ReadSupply(st).Total); !got.Eq(burned) {
		t.Fatalf("supply fell by %v, want %v", got, burned)
	}
	// The same offence again, through other votes: punished once.
	if err := EndBlock(st, Block{Number: 7, Time: 1007, DoubleSigns: []DoubleSign{{v.ConsensusAddress, 3}}}); err != nil {
		t.Fatal(err)
	}
	if after, _ := ReadValidator(st, addr(1)); !after.Slashed.Eq(burned) || !EvidenceHandled(st, v.ConsensusAddress, 3) {
		t.Fatalf("slashed twice: %v", after.Slashed)
	}
	checkSlashLog(t, st, addr(1), SlashEvent{Height: 6, Infraction: 3, Reason: SlashDoubleSign, PPM: p.NodeRefutedPenalty, Amount: burned, Time: 1006})
	// The redelegation pays nothing when it expires; the unbondings do.
	bal := st.GetBalance(d).Clone()
	if err := EndBlock(st, Block{Number: 8, Time: 1000 + secondsOf(p.RestakeCooldown) + 10}); err != nil {
		t.Fatal(err)
	}
	want := new(uint256.Int).Add(bal, es[0].Amount)
	if got := st.GetBalance(d); !got.Eq(want.Add(want, es[1].Amount)) || len(ReadRedelegations(st, nil)) != 0 {
		t.Fatalf("balance %v want %v, redelegations %v", got, want, ReadRedelegations(st, nil))
	}
}

// A validator absent from more than maxMissedBlocks certificates of one
// missedBlocksWindow-block window loses syncTimeoutPenaltyPercent and is
// jailed; the count starts again in the next window.
func TestMissedBlocksSlashAndJail(t *testing.T) {
	st, _, p := testLedger(t)
	v, _ := ReadValidator(st, addr(1))
	absent := []types.Address{v.ConsensusAddress}
	// The first window: as many misses as allowed, then the window ends.
	for n := uint64(1); n <= p.MaxMissedBlocks; n++ {
		if err := EndBlock(st, Block{Number: p.MissedBlocksWindow - 1 - p.MaxMissedBlocks + n, Time: 1000 + n, Absent: absent}); err != nil {
			t.Fatal(err)
		}
	}
	if after, _ := ReadValidator(st, addr(1)); after.Jailed || after.MissedBlocks != p.MaxMissedBlocks || after.MissedWindow != 0 {
		t.Fatalf("after %d misses: %+v", p.MaxMissedBlocks, after)
	}
	// The next window starts from zero and is punished past the maximum.
	base := p.MissedBlocksWindow
	for n := uint64(0); n <= p.MaxMissedBlocks; n++ {
		if err := EndBlock(st, Block{Number: base + n, Time: 2000 + n, Absent: absent}); err != nil {
			t.Fatal(err)
		}
	}
	after, _ := ReadValidator(st, addr(1))
	want, _ := new(uint256.Int).MulDivOverflow(chain(100), uint256.NewInt(p.SyncTimeoutPenalty), uint256.NewInt(PPM))
	if !after.Jailed || !after.Slashed.Eq(want) || after.MissedWindow != 1 || after.MissedBlocks != p.MaxMissedBlocks+1 {
		t.Fatalf("after %d misses in window 1: %+v", p.MaxMissedBlocks+1, after)
	}
	n := base + p.MaxMissedBlocks
	checkSlashLog(t, st, addr(1), SlashEvent{Height: n, Infraction: n, Reason: SlashMissedBlocks, PPM: p.SyncTimeoutPenalty, Amount: want, Time: 2000 + p.MaxMissedBlocks})
}

// TestNoRewardBeforeFirstBlock: a genesis dated long before the chain's
// first block (a --dev genesis is dated 2025-01-01) pays nothing for the
// gap; rewards, and cycle 0, run from block 1's time.
func TestNoRewardBeforeFirstBlock(t *testing.T) {
	st := NewMemState()
	p := DefaultParams()
	g := &Genesis{Params: &p, Validators: []GenesisValidator{genesisValidator(t, 1, 100), genesisValidator(t, 2, 50)}}
	const genesisTime, first = 1000, 1000 + 365*24*3600
	if err := InitGenesis(st, g, genesisTime, new(uint256.Int)); err != nil {
		t.Fatal(err)
	}
	for n := uint64(1); n <= 9; n++ {
		// 720 s after block 1, cycle 0 ends: each of the 2 validators has
		// earned a fifth of the hourly reward.
		if err := EndBlock(st, Block{Number: n, Time: first + (n-1)*90}); err != nil {
			t.Fatal(err)
		}
	}
	want := new(uint256.Int).Div(chain(2), uint256.NewInt(5))
	if got := ReadSupply(st).Minted; !got.Eq(want) {
		t.Fatalf("minted %v over cycle 0, want %v (2 validators x 720 s of %v per %d ms)", got, want, p.Reward, p.NodeRewardInterval)
	}
	c, _ := ReadCycle(st, 0)
	if c.Start != first*1000 || c.End != (first+720)*1000 {
		t.Fatalf("cycle 0 ran %d..%d ms, want %d..%d", c.Start, c.End, first*1000, (first+720)*1000)
	}
}
