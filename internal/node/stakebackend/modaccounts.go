package stakebackend

import (
	"github.com/chaind/chaind/internal/query"
	"github.com/chaind/chaind/internal/staking"
)

// ModuleAccounts are the system contracts that stand where the Cosmos
// SDK has module accounts, under the SDK's module names and permissions:
// the staking contract holds the stake (a slash burns from it), the
// distribution contract the rewards not yet withdrawn, the governance
// contract the deposits (a vetoed proposal's are burned).
func (n *Backend) ModuleAccounts() []query.ModuleAccountRole {
	return []query.ModuleAccountRole{
		{Name: "bonded_tokens_pool", Address: staking.StakingAddress, Permissions: []string{"burner", "staking"}},
		{Name: "distribution", Address: staking.DistributionAddress},
		{Name: "gov", Address: staking.GovernanceAddress, Permissions: []string{"burner"}},
	}
}
