package backend

import (
	"github.com/chaind/chaind/internal/types"
	"github.com/holiman/uint256"
)

// StakingRedelegations reads the redelegations the staking state still
// holds: stake moved from one validator to another that a slash of the
// source for an earlier infraction can still reach, and that cannot move
// on until it expires. A Staking reader that also implements it lets the
// query interfaces serve redelegations.
type StakingRedelegations interface {
	// Redelegations lists the pending entries in the order they were
	// made, of one delegator or (nil) all of them.
	Redelegations(height *uint64, delegator *types.Address) ([]RedelegationEntry, error)
}

// RedelegationEntry is one redelegation still pending.
type RedelegationEntry struct {
	// ID numbers the entry from 1 in the queue it shares with the
	// unbonding entries, so no unbonding entry has the same ID.
	ID                  uint64
	Delegator, Src, Dst types.Address
	Amount              *uint256.Int // moved, in wei
	SharesDst           *uint256.Int // shares of Dst the amount bought
	Balance             *uint256.Int // those shares' worth at Dst now, in wei
	CompletionTime      uint64       // Unix seconds: no longer slashable from then on
	CreationHeight      uint64
}
