package node

import (
	"errors"

	"github.com/chaind/chaind/explorer"
	"github.com/chaind/chaind/internal/backend"
	"github.com/chaind/chaind/internal/front"
	"github.com/chaind/chaind/internal/types"
)

// explorerListener serves the block explorer from the node's backend. Its
// page follows new blocks over the node's JSON-RPC WebSocket: the
// WebSocket-only port when it is on, else the HTTP port's upgrade.
func (n *Node) explorerListener(addr string) front.Listener {
	x := explorer.New(explorer.Config{
		Backend:    n.backend,
		Validators: &network{n: n},
		Roles:      stakingRoles{n.Staking()},
		WebSocket: func() string {
			for _, kind := range []string{"ws", "http"} {
				if a := n.Addr(kind); a != "" {
					return "ws://" + a
				}
			}
			return ""
		},
	})
	return front.Listener{Kind: "explorer", Addr: addr, Handler: x,
		Options: explorer.Options(n.cfg.CORS, n.cfg.VHosts)}
}

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
