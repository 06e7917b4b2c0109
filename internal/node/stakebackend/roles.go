package stakebackend

import (
	"errors"

	"github.com/chaind/chaind/explorer"
	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/types"
)

// Roles tells the explorer an address's staking roles.
func (n *Backend) Roles() explorer.RoleReader { return stakingRoles{n.Staking()} }

// stakingRoles tells the explorer an address's staking roles from the
// staking state at the head: "validator" for a validator's operator,
// "delegator" when it has delegations. A chain without staking contracts
// gives no roles.
type stakingRoles struct{ s backend.Staking }

func (r stakingRoles) Roles(a types.Address) ([]string, error) {
	if !r.s.StakingEnabled() {
		return nil, nil
	}
	var roles []string
	switch _, err := r.s.StakingValidator(nil, a); {
	case err == nil:
		roles = append(roles, "validator")
	case !errors.Is(err, backend.ErrValidatorNotFound):
		return nil, err
	}
	ds, err := r.s.DelegatorDelegations(nil, a)
	if err != nil {
		return nil, err
	}
	if len(ds) > 0 {
		roles = append(roles, "delegator")
	}
	return roles, nil
}
