package staking

import (
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// The functions of this file read the system contracts' state for the
// node's query interfaces (JSON-RPC chain_*, REST, gRPC, the explorer).
// They only read; give them the state of the block asked about.

// ValidatorInfo is everything the state holds about one validator.
type ValidatorInfo struct {
	Operator          types.Address
	ConsensusAddress  types.Address
	Pubkey            []byte
	NetAddress        string
	Description       Description
	Rate, MaxRate     *uint256.Int
	MaxChangeRate     *uint256.Int
	RateUpdated       uint64 // s
	MinSelfDelegation *uint256.Int
	Tokens, Shares    *uint256.Int
	SelfDelegation    *uint256.Int
	Slashed           *uint256.Int // tokens burned by penalties so far
	Status            Status
	Jailed            bool
	JailedUntil       uint64       // s
	Created           uint64       // s
	Commission        *uint256.Int // unpaid
	Power             int64        // voting power if active: whole coins bonded
	// MissedBlocks blocks were missed in the liveness window numbered
	// MissedWindow (block number / missedBlocksWindow); a later window
	// starts again from zero.
	MissedWindow, MissedBlocks uint64
}

// ReadValidator returns validator v.
func ReadValidator(st State, v types.Address) (ValidatorInfo, bool) {
	l := &ledger{s: store{st}}
	if !l.exists(v) {
		return ValidatorInfo{}, false
	}
	vr := valRec(v)
	s := l.s
	info := ValidatorInfo{
		Operator: v, ConsensusAddress: s.addr(vr.field(vConsAddr)), Pubkey: s.bytes(vr.field(vPubkey)),
		NetAddress: s.str(vr.field(vNetAddr)), Description: l.description(v),
		Rate: s.u256(vr.field(vRate)), MaxRate: s.u256(vr.field(vMaxRate)), MaxChangeRate: s.u256(vr.field(vMaxChange)),
		RateUpdated: s.u64(vr.field(vRateTime)), MinSelfDelegation: s.u256(vr.field(vMinSelf)),
		Tokens: l.tokens(v), Shares: l.shares(v), SelfDelegation: l.selfValue(v), Slashed: s.u256(vr.field(vSlashed)),
		Status: Status(s.u64(vr.field(vStatus))), Jailed: s.bool(vr.field(vJailed)), JailedUntil: s.u64(vr.field(vJailedUntil)),
		Created: s.u64(vr.field(vCreated)), Commission: s.u256(valRewardRec(v).field(rCommission)),
	}
	info.Power = powerOf(info.Tokens)
	missed := s.u64(vr.field(vMissed))
	info.MissedWindow, info.MissedBlocks = missed>>32, missed&0xffffffff
	return info, true
}

// ReadValidators returns every validator ever created, in creation order
// (a removed one's place taken by the last).
func ReadValidators(st State) []ValidatorInfo {
	s := store{st}
	var out []ValidatorInfo
	for _, v := range validatorList.all(s) {
		if info, ok := ReadValidator(st, v); ok {
			out = append(out, info)
		}
	}
	return out
}

// Delegation is one delegator's stake with one validator.
type Delegation struct {
	Delegator, Validator types.Address
	Shares               *uint256.Int
	Amount               *uint256.Int // the shares' value in tokens now
	Rewards              *uint256.Int // withdrawable now
}

func readDelegation(l *ledger, d, v types.Address) Delegation {
	sh := l.delShares(d, v)
	return Delegation{Delegator: d, Validator: v, Shares: sh, Amount: l.tokensOf(v, sh), Rewards: l.pendingRewards(d, v)}
}

// ReadDelegations returns delegator d's delegations.
func ReadDelegations(st State, d types.Address) []Delegation {
	l := &ledger{s: store{st}}
	var out []Delegation
	for _, v := range delegationsOf(d).all(l.s) {
		out = append(out, readDelegation(l, d, v))
	}
	return out
}

// ReadValidatorDelegations returns the delegations to validator v.
func ReadValidatorDelegations(st State, v types.Address) []Delegation {
	l := &ledger{s: store{st}}
	var out []Delegation
	for _, d := range delegatorsOf(v).all(l.s) {
		out = append(out, readDelegation(l, d, v))
	}
	return out
}

// ReadDelegation returns delegation (d, v); ok is false when there is none.
func ReadDelegation(st State, d, v types.Address) (Delegation, bool) {
	l := &ledger{s: store{st}}
	if !delegationsOf(d).has(l.s, v) {
		return Delegation{}, false
	}
	return readDelegation(l, d, v), true
}

// UnbondingEntry is stake on its way back to its delegator.
type UnbondingEntry struct {
	// ID numbers the entries in the order they were started, from 1;
	// an ID is never reused.
	ID                   uint64
	Delegator, Validator types.Address
	Amount               *uint256.Int
	Completion           uint64 // s: paid by the first block at or after this time
	Height               uint64 // block that started it
}

// ReadUnbonding returns the pending unbonding entries, all of them or
// those of one delegator.
func ReadUnbonding(st State, delegator *types.Address) []UnbondingEntry {
	s := store{st}
	q := queueRec()
	var out []UnbondingEntry
	for i, tail := s.u64(q.field(qHead)), s.u64(q.field(qTail)); i < tail; i++ {
		e := entryRec(i)
		d := s.addr(e.field(uDelegator))
		if delegator != nil && d != *delegator || s.addr(e.field(uDst)) != (types.Address{}) {
			continue // another's, or a redelegation
		}
		out = append(out, UnbondingEntry{ID: i + 1, Delegator: d, Validator: s.addr(e.field(uValidator)), Amount: s.u256(e.field(uAmount)),
			Completion: s.u64(e.field(uCompletion)), Height: s.u64(e.field(uHeight))})
	}
	return out
}

// Supply is the coin supply: genesis + minted rewards − burned base fees
// and penalties.
type Supply struct {
	Total, Minted, Burned *uint256.Int
	CommunityPool         *uint256.Int
}

// ReadSupply returns the supply figures.
func ReadSupply(st State) Supply {
	s, r := store{st}, supplyRec()
	return Supply{Total: s.u256(r.field(sTotal)), Minted: s.u256(r.field(sMinted)), Burned: s.u256(r.field(sBurned)), CommunityPool: s.u256(poolRec())}
}

// ReadWithdrawAddress is where d's rewards go.
func ReadWithdrawAddress(st State, d types.Address) types.Address {
	return (&ledger{s: store{st}}).withdrawAddress(d)
}
