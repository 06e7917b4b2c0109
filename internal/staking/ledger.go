package staking

import (
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// Fixed addresses of the system contracts. They sit where the Cosmos EVM
// puts its staking, distribution and governance precompiles, so tools
// written for those find them in the same place.
var (
	StakingAddress      = types.MustAddress("0x0000000000000000000000000000000000000800")
	DistributionAddress = types.MustAddress("0x0000000000000000000000000000000000000801")
	GovernanceAddress   = types.MustAddress("0x0000000000000000000000000000000000000805")
)

// Addresses lists the system contracts.
func Addresses() []types.Address {
	return []types.Address{StakingAddress, DistributionAddress, GovernanceAddress}
}

// Status is a validator's place in the network, decided at each cycle
// boundary.
type Status uint8

// Validator states: Inactive validators are staked below requiredStake
// (or just created and not yet through a cycle boundary), Standby ones
// staked enough but outside the top `desired`, Active ones in the
// consensus set, Jailed ones penalised and out until they unjail.
const (
	Inactive Status = iota
	Standby
	Active
	Jailed
)

func (s Status) String() string {
	switch s {
	case Standby:
		return "standby"
	case Active:
		return "active"
	case Jailed:
		return "jailed"
	}
	return "inactive"
}

// Validator record fields (under StakingAddress).
const (
	vExists = iota
	vJailed
	vTokens
	vShares
	vRate
	vMaxRate
	vMaxChange
	vRateTime
	vMinSelf
	vPubkey
	vNetAddr
	vMoniker
	vIdentity
	vWebsite
	vSecurity
	vDetails
	vJailedUntil
	vCreated
	vStatus
	vConsAddr
	vListIndex
	vSlashed
	vMissed
	vSilentSince // s: time of the first block of its running streak of absences (syncTimeout)
	vLastAbsent  // the last block that recorded it absent
	vCertCycle   // cycle+1 its stake certificate was issued or renewed in (cert.go)
)

// Delegation record fields (under StakingAddress).
const (
	dShares = iota
	dValIndex
	dDelIndex
)

// Reward records (under DistributionAddress): per validator the reward
// per share accumulated so far and the unpaid commission; per delegation
// the accumulator when it was last settled and what is settled but unpaid.
const (
	rAcc = iota
	rCommission
)

const (
	rdSnap = iota
	rdUnclaimed
)

// rewardPrecision scales the reward-per-share accumulator.
var rewardPrecision = new(uint256.Int).Exp(uint256.NewInt(10), uint256.NewInt(27))

// rateOne is a commission rate of 100%: rates are 18-decimal fractions.
var rateOne = uint256.NewInt(1e18)

func valRec(v types.Address) slot { return rec(StakingAddress, "val", v[:]) }

func delRec(d, v types.Address) slot { return rec(StakingAddress, "del", d[:], v[:]) }

func valRewardRec(v types.Address) slot { return rec(DistributionAddress, "val", v[:]) }

func delRewardRec(d, v types.Address) slot { return rec(DistributionAddress, "del", d[:], v[:]) }

func consRec(c types.Address) slot { return rec(StakingAddress, "cons", c[:]) }

func withdrawRec(d types.Address) slot { return rec(DistributionAddress, "withdraw", d[:]) }

func poolRec() slot { return rec(DistributionAddress, "pool") }

var validatorList = addrList{base: rec(StakingAddress, "validators"), index: func(a types.Address) slot { return valRec(a).field(vListIndex) }}

// delegatorsOf lists the delegators of validator v.
func delegatorsOf(v types.Address) addrList {
	return addrList{base: rec(StakingAddress, "delegators", v[:]), index: func(d types.Address) slot { return delRec(d, v).field(dValIndex) }}
}

// delegationsOf lists the validators delegator d delegates to.
func delegationsOf(d types.Address) addrList {
	return addrList{base: rec(StakingAddress, "delegations", d[:]), index: func(v types.Address) slot { return delRec(d, v).field(dDelIndex) }}
}

// Supply record fields (under StakingAddress).
const (
	sTotal = iota
	sMinted
	sBurned
	sRewardedUntil // s: rewards are paid up to this block time
)

func supplyRec() slot { return rec(StakingAddress, "supply") }

// ledger applies the staking and distribution rules to a state at one
// block time (seconds).
type ledger struct {
	s      store
	now    uint64 // the block's time, Unix seconds
	nowMs  uint64 // the same in milliseconds, where the chain records them (cycle records)
	height uint64
}

func (l *ledger) exists(v types.Address) bool { return l.s.bool(valRec(v).field(vExists)) }

func (l *ledger) tokens(v types.Address) *uint256.Int { return l.s.u256(valRec(v).field(vTokens)) }

func (l *ledger) shares(v types.Address) *uint256.Int { return l.s.u256(valRec(v).field(vShares)) }

func (l *ledger) delShares(d, v types.Address) *uint256.Int {
	return l.s.u256(delRec(d, v).field(dShares))
}

// tokensOf converts shares of validator v to tokens, rounding down.
func (l *ledger) tokensOf(v types.Address, sh *uint256.Int) *uint256.Int {
	total := l.shares(v)
	if total.IsZero() {
		return new(uint256.Int)
	}
	out, _ := new(uint256.Int).MulDivOverflow(sh, l.tokens(v), total)
	return out
}

// settle moves the rewards delegation (d, v) earned since it was last
// settled into its unclaimed balance. It runs before every change of the
// delegation's shares and before a withdrawal: the lazy (F1-style)
// accounting that makes a validator's reward O(1) however many delegate.
func (l *ledger) settle(d, v types.Address) {
	acc := l.s.u256(valRewardRec(v).field(rAcc))
	dr := delRewardRec(d, v)
	snap := l.s.u256(dr.field(rdSnap))
	if acc.Eq(snap) {
		return
	}
	if sh := l.delShares(d, v); !sh.IsZero() {
		diff := new(uint256.Int).Sub(acc, snap)
		earned, _ := new(uint256.Int).MulDivOverflow(sh, diff, rewardPrecision)
		l.s.setU256(dr.field(rdUnclaimed), earned.Add(earned, l.s.u256(dr.field(rdUnclaimed))))
	}
	l.s.setU256(dr.field(rdSnap), acc)
}

// pendingRewards is what delegation (d, v) could withdraw now.
func (l *ledger) pendingRewards(d, v types.Address) *uint256.Int {
	dr := delRewardRec(d, v)
	out := l.s.u256(dr.field(rdUnclaimed))
	acc := l.s.u256(valRewardRec(v).field(rAcc))
	snap := l.s.u256(dr.field(rdSnap))
	if sh := l.delShares(d, v); !sh.IsZero() && acc.Gt(snap) {
		earned, _ := new(uint256.Int).MulDivOverflow(sh, new(uint256.Int).Sub(acc, snap), rewardPrecision)
		out.Add(out, earned)
	}
	return out
}

// bond adds amount tokens to validator v for delegator d (the coins are
// already in the staking contract's balance) and returns the new shares.
func (l *ledger) bond(d, v types.Address, amount *uint256.Int) (*uint256.Int, error) {
	tokens, total := l.tokens(v), l.shares(v)
	var sh *uint256.Int
	switch {
	case total.IsZero():
		sh = new(uint256.Int).Set(amount)
	case tokens.IsZero():
		return nil, revert("validator has no tokens left to delegate to")
	default:
		sh, _ = new(uint256.Int).MulDivOverflow(amount, total, tokens)
	}
	if sh.IsZero() {
		return nil, revert("amount too small for one share")
	}
	l.settle(d, v)
	vr, dr := valRec(v), delRec(d, v)
	l.s.setU256(vr.field(vTokens), tokens.Add(tokens, amount))
	l.s.setU256(vr.field(vShares), total.Add(total, sh))
	cur := l.delShares(d, v)
	l.s.setU256(dr.field(dShares), new(uint256.Int).Add(cur, sh))
	delegatorsOf(v).add(l.s, d)
	delegationsOf(d).add(l.s, v)
	return sh, nil
}

// unbond removes amount tokens of delegation (d, v) from the validator and
// returns them (the coins stay in the staking contract's balance). All of
// the delegation goes when amount is its whole value.
func (l *ledger) unbond(d, v types.Address, amount *uint256.Int) (*uint256.Int, error) {
	if amount.IsZero() {
		return nil, revert("amount must be positive")
	}
	sh := l.delShares(d, v)
	if sh.IsZero() {
		return nil, revert("no delegation to this validator")
	}
	value := l.tokensOf(v, sh)
	if amount.Gt(value) {
		return nil, revert("insufficient delegation: " + value.Dec() + " wei delegated")
	}
	tokens, total := l.tokens(v), l.shares(v)
	burn := new(uint256.Int).Set(sh)
	if !amount.Eq(value) {
		// Round the shares up so that no one withdraws more than they own.
		var rem uint256.Int
		prod, _ := new(uint256.Int).MulDivOverflow(amount, total, tokens)
		if new(uint256.Int).MulMod(amount, total, tokens).Cmp(&rem) != 0 {
			prod.AddUint64(prod, 1)
		}
		burn = uint256Min(prod, sh)
	}
	l.settle(d, v)
	vr := valRec(v)
	l.s.setU256(vr.field(vTokens), new(uint256.Int).Sub(tokens, amount))
	l.s.setU256(vr.field(vShares), new(uint256.Int).Sub(total, burn))
	left := new(uint256.Int).Sub(sh, burn)
	l.s.setU256(delRec(d, v).field(dShares), left)
	if left.IsZero() {
		l.dropIfEmpty(d, v)
	}
	return amount, nil
}

// dropIfEmpty removes a delegation without shares and without unpaid
// rewards from the lists, so views and the state do not keep it forever.
func (l *ledger) dropIfEmpty(d, v types.Address) {
	if !l.delShares(d, v).IsZero() || !l.s.u256(delRewardRec(d, v).field(rdUnclaimed)).IsZero() {
		return
	}
	delegatorsOf(v).remove(l.s, d)
	delegationsOf(d).remove(l.s, v)
	l.s.setWord(delRewardRec(d, v).field(rdSnap), types.Hash{})
}

func uint256Min(a, b *uint256.Int) *uint256.Int {
	if a.Lt(b) {
		return a
	}
	return b
}

// allocate gives validator v a reward: its commission first, the rest to
// its delegators through the per-share accumulator. What cannot be split
// (a validator without shares) goes to the community pool.
func (l *ledger) allocate(v types.Address, amount *uint256.Int) {
	if amount.IsZero() {
		return
	}
	vr, rr := valRec(v), valRewardRec(v)
	commission, _ := new(uint256.Int).MulDivOverflow(amount, l.s.u256(vr.field(vRate)), rateOne)
	rest := new(uint256.Int).Sub(amount, commission)
	l.s.setU256(rr.field(rCommission), commission.Add(commission, l.s.u256(rr.field(rCommission))))
	total := l.shares(v)
	if total.IsZero() {
		l.toPool(rest)
		return
	}
	inc, _ := new(uint256.Int).MulDivOverflow(rest, rewardPrecision, total)
	acc := l.s.u256(rr.field(rAcc))
	l.s.setU256(rr.field(rAcc), acc.Add(acc, inc))
}

func (l *ledger) toPool(amount *uint256.Int) {
	p := l.s.u256(poolRec())
	l.s.setU256(poolRec(), p.Add(p, amount))
}

// mint creates amount new coins in the distribution contract's balance.
func (l *ledger) mint(amount *uint256.Int) {
	if amount.IsZero() {
		return
	}
	l.s.st.AddBalance(DistributionAddress, amount)
	sr := supplyRec()
	l.s.setU256(sr.field(sMinted), new(uint256.Int).Add(l.s.u256(sr.field(sMinted)), amount))
	l.s.setU256(sr.field(sTotal), new(uint256.Int).Add(l.s.u256(sr.field(sTotal)), amount))
}

// burn records amount coins destroyed (base fees, slashes).
func (l *ledger) burn(amount *uint256.Int) {
	if amount.IsZero() {
		return
	}
	sr := supplyRec()
	l.s.setU256(sr.field(sBurned), new(uint256.Int).Add(l.s.u256(sr.field(sBurned)), amount))
	l.s.setU256(sr.field(sTotal), new(uint256.Int).Sub(l.s.u256(sr.field(sTotal)), amount))
}

// slash burns ppm parts per million of validator v's bonded tokens. The
// shares stay, so every delegator loses the same fraction and the reward
// accumulator stays exact.
func (l *ledger) slash(v types.Address, ppm uint64) *uint256.Int {
	tokens := l.tokens(v)
	amt, _ := new(uint256.Int).MulDivOverflow(tokens, uint256.NewInt(ppm), uint256.NewInt(PPM))
	if amt.IsZero() {
		return amt
	}
	vr := valRec(v)
	l.s.setU256(vr.field(vTokens), new(uint256.Int).Sub(tokens, amt))
	l.s.setU256(vr.field(vSlashed), new(uint256.Int).Add(l.s.u256(vr.field(vSlashed)), amt))
	l.s.st.SubBalance(StakingAddress, amt)
	l.burn(amt)
	return amt
}

// jail takes v out of the validator set at the next cycle boundary; it may
// unjail from until (seconds) on.
func (l *ledger) jail(v types.Address, until uint64) {
	vr := valRec(v)
	l.s.setBool(vr.field(vJailed), true)
	if until > l.s.u64(vr.field(vJailedUntil)) {
		l.s.setU64(vr.field(vJailedUntil), until)
	}
}

// selfValue is the value of the operator's own delegation.
func (l *ledger) selfValue(v types.Address) *uint256.Int { return l.tokensOf(v, l.delShares(v, v)) }

// payOut sends amount from a system contract's balance to addr.
func (l *ledger) payOut(from, to types.Address, amount *uint256.Int) {
	if amount.IsZero() {
		return
	}
	l.s.st.SubBalance(from, amount)
	l.s.st.AddBalance(to, amount)
}

// withdrawAddress is where d's rewards are paid: d unless it set another.
func (l *ledger) withdrawAddress(d types.Address) types.Address {
	if a := l.s.addr(withdrawRec(d)); a != (types.Address{}) {
		return a
	}
	return d
}

// secondsOf converts a duration in ms to whole seconds, rounding up.
func secondsOf(ms uint64) uint64 { return (ms + 999) / 1000 }
