package staking

import "github.com/chaind/chaind/internal/types"

// A validator's bonding record keeps when it last joined and last left
// the active set, which the validator record itself does not: dashboards
// read them as a Cosmos validator's unbonding height and time and its
// signing record's start height. Both change only where states are
// decided (selectValidators), so they agree with the status shown: a
// validator joins or leaves at the end of the selection block, and the
// heights recorded are that block's.

// Bonding record fields (under StakingAddress).
const (
	bStarted      = iota // block at whose end it last became active
	bLeft                // block at whose end it last stopped being active
	bUnbondingEnd        // s: when its stake, had it unbonded on leaving, was free
)

func bondingRec(v types.Address) slot { return rec(StakingAddress, "bonding", v[:]) }

// Bonding is validator v's bonding record; zero heights mean never.
type Bonding struct {
	// StartHeight is the block at whose end the validator last became
	// active (0: never active).
	StartHeight uint64
	// UnbondingHeight is the block at whose end it last stopped being
	// active (0: never left), and UnbondingEnd (Unix seconds) that
	// block's time plus restakeCooldown: the time stake it took out then
	// was free.
	UnbondingHeight, UnbondingEnd uint64
}

// ReadBonding returns validator v's bonding record.
func ReadBonding(st State, v types.Address) Bonding {
	s, r := store{st}, bondingRec(v)
	return Bonding{StartHeight: s.u64(r.field(bStarted)), UnbondingHeight: s.u64(r.field(bLeft)),
		UnbondingEnd: s.u64(r.field(bUnbondingEnd))}
}

// activeValidators is the set of validators whose status is active now.
func (l *ledger) activeValidators() map[types.Address]bool {
	out := map[types.Address]bool{}
	for _, v := range validatorList.all(l.s) {
		if Status(l.s.u64(valRec(v).field(vStatus))) == Active {
			out[v] = true
		}
	}
	return out
}

// recordBonding compares the active validators with those that were
// active before (was) and records who joined and who left at this block.
func (l *ledger) recordBonding(p *Params, was map[types.Address]bool) {
	for _, v := range validatorList.all(l.s) {
		active := Status(l.s.u64(valRec(v).field(vStatus))) == Active
		switch r := bondingRec(v); {
		case active && !was[v]:
			l.s.setU64(r.field(bStarted), l.height)
		case !active && was[v]:
			l.s.setU64(r.field(bLeft), l.height)
			l.s.setU64(r.field(bUnbondingEnd), l.now+secondsOf(p.RestakeCooldown))
		}
	}
}
